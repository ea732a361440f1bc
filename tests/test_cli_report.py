"""The CLI's report: findings first (grouped, on stderr), the input domain and one summary line (on
stdout), the node table on request; unknown names answered with the nearest ones; printing that
never raises, whatever a value holds.
"""
from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from onnx import TensorProto as T, helper, numpy_helper

import shapecheck
from shapecheck.cli import main
from shapecheck.types import TensorType


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _layers(n: int = 40) -> onnx.ModelProto:
    """``n`` layers, each with the same defect: a MatMul whose weight's rows do not match the input."""
    nodes, inits, outs = [], [], []
    for i in range(n):
        w = numpy_helper.from_array(np.zeros((9, 8), np.float32), f"layers.{i}.mlp.weight")
        nodes.append(helper.make_node("MatMul", ["x", w.name], [f"/layers.{i}/mlp/out"], name=f"/layers.{i}/mlp/MatMul"))
        inits.append(w)
        outs.append(helper.make_tensor_value_info(f"/layers.{i}/mlp/out", T.FLOAT, None))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 8])], outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_a_defect_repeated_in_forty_layers_is_one_group(capsys, tmp_path):
    onnx.save(_layers(), str(tmp_path / "m.onnx"))
    code, out, err = run(capsys, "check", str(tmp_path / "m.onnx"))
    assert code == 1
    assert err.count("error[C3]") == 1 and "and 39 more like it: '/layers.1/mlp/MatMul'" in err
    assert "┏" not in out and "error" not in out          # findings on stderr; stdout: domain and summary
    assert out.splitlines()[-2].startswith("FAILED")
    code, out, _ = run(capsys, "check", "--json", str(tmp_path / "m.onnx"))
    assert sum(len(n["violations"]) for n in json.loads(out)["nodes"]) == 40      # JSON keeps every instance


def test_the_node_table_is_printed_on_request(capsys, tmp_path):
    onnx.save(_layers(3), str(tmp_path / "m.onnx"))
    assert "┏" not in run(capsys, "check", str(tmp_path / "m.onnx"))[1]
    table = run(capsys, "check", "--nodes", "all", str(tmp_path / "m.onnx"))[1]
    assert table.count("MatMul-13") == 3
    attention = run(capsys, "check", "--nodes", "attention", "examples/positions.onnx")[1]
    assert "position_embedding" in attention and "token_embedding" not in attention


def test_a_pinned_dim_is_stated_before_the_declaration_it_contradicts(capsys, tmp_path):
    """The cause first: pinned.onnx with its output declared [batch, 31, 8], which the pin (seq == 32)
    contradicts, states error[pinned] and then error[declaration]."""
    import runpy
    from pathlib import Path
    pinned = runpy.run_path(str(Path(__file__).resolve().parents[1] / "examples" / "make_examples.py"),
                            run_name="not_main")["pinned"]
    m = pinned()
    m.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", T.FLOAT, ["batch", 31, 8]))
    onnx.save(m, tmp_path / "p.onnx")
    code, _out, err = run(capsys, "check", str(tmp_path / "p.onnx"))
    heads = [line.split(":")[1].strip() for line in err.splitlines() if not line.startswith(" ")]
    assert code == 1 and heads == ["error[pinned]", "error[declaration]"], err


def _strided_table_model() -> onnx.ModelProto:
    """A stride-2 Conv1d whose output gets a slice of a 40-column position table added: seq <= 80.
    The Conv's weight and bias are read nearer the Add than the table, and hold no 80 or 81."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
             for n, s in (("conv.weight", (16, 8, 3)), ("conv.bias", (16,)), ("pos", (1, 16, 40)))]
    inits += [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in (("two", 2), ("zero", [0]), ("axis", [2]))]
    nodes = [helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["y"], name="conv", strides=[2], pads=[1, 1]),
             helper.make_node("Shape", ["y"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "two"], ["n"], name="len"),
             helper.make_node("Unsqueeze", ["n", "zero"], ["end"], name="end"),
             helper.make_node("Slice", ["pos", "zero", "end", "axis"], ["p"], name="table"),
             helper.make_node("Add", ["y", "p"], ["out"], name="add_positions")]
    g = helper.make_graph(nodes, "strided", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 8, "seq"])],
                          [helper.make_tensor_value_info("out", T.FLOAT, None)], initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_a_bound_through_a_stride_names_the_table_not_the_nearer_weights(capsys, tmp_path):
    """seq <= 80 holds no number of the 40-column table: the constant is found by the Add's own condition
    (Min(40, floor(seq/2 - 1/2) + 1)), not as the nearest constants (the Conv's weight and bias, which a
    larger copy would not help; they were named, and the table cut from the line).  onnxruntime runs the
    model at seq = 80 and refuses seq = 81, as the domain says."""
    import onnxruntime as ort
    path = tmp_path / "strided.onnx"
    onnx.save(_strided_table_model(), path)
    code, out, _err = run(capsys, "check", str(path))
    assert code == 0 and "1 <= seq <= 80" in out, out
    bound = next(line for line in out.splitlines() if line.strip().startswith("1 <= seq <= 80"))
    assert "initializer 'pos' float[1,16,40]" in bound and "conv." not in bound, bound
    assert "re-export with initializer 'pos' float[1,16,40] larger" in out and "conv." not in out, out
    code, _out, err = run(capsys, "check", str(path), "--dims", "seq=81")
    assert code == 1 and "error[outside-domain]" in err and "re-export with initializer 'pos'" in err, err
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    sess.run(None, {"x": np.zeros((2, 8, 80), np.float32)})
    with pytest.raises(Exception):
        sess.run(None, {"x": np.zeros((2, 8, 81), np.float32)})


def test_quiet_still_prints_every_error_and_warning(capsys):
    code, out, err = run(capsys, "check", "--quiet", "examples/pinned.onnx")
    assert code == 1 and "error[pinned]" in err and len(out.splitlines()) == 1
    code, out, err = run(capsys, "check", "--quiet", "examples/positions.onnx")
    assert code == 0 and "note[" not in err and "valid for" not in out


def test_a_bound_a_constant_sets_says_which_constant_to_enlarge(capsys):
    out = run(capsys, "check", "examples/positions.onnx")[1].splitlines()
    at = out.index("  1 <= seq <= 64    (needed by position_embedding; from initializer 'wpe' float[64,16])")
    assert out[at + 1] == "    = to go past it: re-export with initializer 'wpe' float[64,16] larger (the bound is its size)"
    # a lower bound (a pool's window) is no cap, and a bound no constant sets names none to change
    pooled = run(capsys, "check", "tests/fixtures/domain/flatten_linear_ts17.onnx")[1]
    assert "  height >= 4    (needed by" in pooled and "to go past it" not in pooled


def test_a_linear_cap_from_a_constant_gets_the_hint_and_the_other_kinds_do_not():
    from shapecheck.domain.relation import DomainRelation, Source
    from shapecheck.notation import Rel
    from shapecheck.report.text import domain_lines

    class Domain:
        invalid_nodes, dims, valid, assumption, every_value = [], {"p": "p >= 1"}, True, "every input dim >= 1", ()
        relations: list = []
        given: dict = {}

        def text(self):
            return "p + s <= 64"

    src = [Source("/Gather", "Gather", "Gather-13", ("C5",), ("initializer 'wpe' float[64,8]",))]
    for relation, kind, hinted in ((Rel("<=", "p + s", 64), "linear", True), (Rel(">=", 64, "p + s"), "linear", True),
                                   (Rel(">=", "p + s", 3), "linear", False), (Rel("==", "p", "s"), "equality", False)):
        Domain.relations = [DomainRelation(kind, ("p", "s"), "the relation", sources=src, relation=relation)]
        assert any("to go past it: re-export with initializer 'wpe'" in line for line in domain_lines(Domain())) == hinted


def test_sizes_outside_the_domain_are_the_first_finding_with_the_fix_at_the_table(capsys):
    """--dims past a position table: the cause (the sizes are outside the domain the model has without
    them, from that table) comes before the node it breaks, and the domain line says at which sizes."""
    model = "tests/fixtures/domain/bert_pos_ts17.onnx"
    code, out, err = run(capsys, "check", model, "--dims", "seq=200")
    lines = err.splitlines()
    assert code == 1 and lines[0] == f"{model}: error[outside-domain]: model: `1 <= seq <= 64`", err
    assert "seq = 200 (given), input domain = batch >= 1, 1 <= seq <= 64" in lines[2]
    assert lines[3].startswith("  = fix: check at sizes where 1 <= seq <= 64, or re-export with constant "), lines[3]
    assert lines[3].endswith("larger (the bound is its size) to run at seq = 200")
    assert "error[C2]: node '/m/embeddings/Expand_1'" in err.split("\n", 4)[-1]
    assert "valid for: not at seq = 200 (whatever batch): node '/m/embeddings/Expand_1' is invalid there" in out
    # inside the domain: no such finding, and the domain line says at which sizes it was checked
    code, out, err = run(capsys, "check", model, "--dims", "seq=64")
    assert code == 0 and "outside-domain" not in err, err
    assert "valid for: batch >= 1 at seq = 64 (assuming every input dim >= 1)" in out, out


@pytest.mark.parametrize("argv, want", [
    (["infer", "ScaterND", "-i", "x=float[2]"], "did you mean ScatterND"),
    (["infer", "matmul", "-i", "x=float[2]"], "did you mean MatMul?"),
    (["diff", "ScatterND-99", "ScatterND-18"], "ScatterND has versions 11, 13, 16, 18"),
    (["infer", "openvino:ScatterUpdat", "-i", "x=float[2]"], "did you mean openvino:ScatterUpdate"),
])
def test_unknown_names_get_the_nearest_not_the_whole_list(capsys, argv, want):
    code, out, err = run(capsys, *argv)
    assert code == 2 and want in err and len(err) < 300, err


@pytest.mark.parametrize("argv", [["check", "--version"], ["infer", "--version"], ["--version"]])
def test_version_works_before_or_after_the_subcommand(capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.startswith("shapecheck ")


_VALUES = st.sampled_from([
    np.array([1 + 2j, 3j], np.complex64), np.array(["a", "bc"], dtype=object), np.array([True, False]),
    np.array([1.5, -2.0], np.float32).astype(ml_dtypes.float8_e4m3fn), np.array([0.5], ml_dtypes.bfloat16),
    np.array([object(), None], dtype=object), np.array([1, 2, 3], np.int64), np.zeros((0, 2), np.float32),
    np.array(2 ** 62, np.int64), np.array([np.nan, np.inf], np.float64),
])


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(_VALUES, st.sampled_from(["ScatterND", "Identity", "Add", "Concat"]))
def test_printing_never_raises(value, op):
    t = TensorType(str(value.dtype), value.shape, value)
    for x in (t, TensorType("int64", (2,), None, (1 + 2j, 3.5)), TensorType("float", (2,), bounds=(0, 5, True))):
        str(x), repr(x)
    inputs = {"ScatterND": {"data": np.zeros(4, np.int64), "indices": np.array([[1]]), "updates": value.reshape(-1)[:1]},
              "Identity": {"input": value}, "Add": {"A": value, "B": value}, "Concat": {"inputs": value}}[op]
    try:
        r = shapecheck.infer(op, 18, inputs, {"axis": 0} if op == "Concat" else None)
    except shapecheck.ShapeCheckError:
        return
    str(r), repr(r), json.dumps(r.to_dict(), default=str)
    for f in r.violations + r.warnings:
        str(f), repr(f)


def _mask_subgraph(order: list[int]) -> onnx.ModelProto:
    """The attention-mask subgraph onnxruntime-genai's builder writes, its nodes in ``order``."""
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    nodes = [
        helper.make_node("Unsqueeze", ["attention_mask", "axes12"], ["mask_2d"], name="/model/attn_mask_reformat/Unsqueeze"),
        helper.make_node("Shape", ["attention_mask"], ["am_shape"], name="/model/attn_mask_reformat/Shape"),
        helper.make_node("Gather", ["am_shape", "zero"], ["b"], name="/model/attn_mask_reformat/Gather", axis=0),
        helper.make_node("Gather", ["am_shape", "one"], ["s"], name="/model/attn_mask_reformat/Gather_1", axis=0),
        helper.make_node("Unsqueeze", ["b", "axis0"], ["b1"], name="/model/attn_mask_reformat/Unsqueeze_1"),
        helper.make_node("Unsqueeze", ["s", "axis0"], ["s1"], name="/model/attn_mask_reformat/Unsqueeze_2"),
        helper.make_node("Concat", ["b1", "one1", "s1", "s1"], ["mask_shape"], name="/model/attn_mask_reformat/Concat",
                         axis=0),
        helper.make_node("Expand", ["mask_2d", "mask_shape"], ["mask_4d"], name="/model/attn_mask_reformat/Expand"),
        helper.make_node("Cast", ["mask_4d"], ["mask_f"], name="/model/attn_mask_reformat/Cast", to=T.FLOAT),
    ]
    g = helper.make_graph([nodes[i] for i in order], "g",
                          [helper.make_tensor_value_info("attention_mask", T.INT64, ["batch", "seq"])],
                          [helper.make_tensor_value_info("mask_f", T.FLOAT, ["batch", 1, "seq", "seq"])],
                          [c("zero", 0), c("one", 1), c("axis0", [0]), c("one1", [1]), c("axes12", [1, 2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_a_graph_out_of_order_gets_g2_once_and_nothing_else():
    shuffled = shapecheck.check_model(_mask_subgraph([7, 0, 1, 2, 3, 4, 5, 6, 8]))
    assert [v.constraint for v in shuffled.violations] == ["G2"]
    assert all(n.status == "valid" for n in shuffled.nodes)
    assert str(shuffled.types["mask_f"]) == "float[batch,1,seq,seq]"
    ordered = shapecheck.check_model(_mask_subgraph(list(range(9))))
    assert ordered.violations == [] and ordered.exit_code == 0


def test_dim_names_a_subgraph_body_declares_are_its_own():
    """A Scan body declares its state as [B, d_v]; its owner binds batch and 16: no note, no condition."""
    body = helper.make_graph(
        [helper.make_node("Add", ["state_in", "x_t"], ["state_out"]), helper.make_node("Identity", ["state_out"], ["y_t"])],
        "body", [helper.make_tensor_value_info(n, T.FLOAT, ["B", "d_v"]) for n in ("state_in", "x_t")],
        [helper.make_tensor_value_info(n, T.FLOAT, ["B", "d_v"]) for n in ("state_out", "y_t")])
    scan = helper.make_node("Scan", ["s0", "xs"], ["s_final", "ys"], num_scan_inputs=1, body=body,
                            scan_input_axes=[1], scan_output_axes=[1])
    g = helper.make_graph([scan], "g", [helper.make_tensor_value_info("s0", T.FLOAT, ["batch", 16]),
                                        helper.make_tensor_value_info("xs", T.FLOAT, ["batch", "seq", 16])],
                          [helper.make_tensor_value_info("ys", T.FLOAT, ["batch", "seq", 16])])
    rep = shapecheck.check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    assert rep.domain.relations == [] and rep.domain.text() == "batch >= 1, seq >= 1"
    assert not [d for d in rep.declarations if d.status != "agrees"]


def test_an_annotated_copy_in_another_folder_carries_its_external_data(tmp_path):
    import onnxruntime as ort
    w = numpy_helper.from_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64), "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["n", 64])],
                          [helper.make_tensor_value_info("y", T.FLOAT, ["n", 64])], [w])
    (tmp_path / "a" / "weights").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), str(tmp_path / "a" / "m.onnx"),
              save_as_external_data=True, location="weights/m.data", size_threshold=0)
    before = (tmp_path / "a" / "weights" / "m.data").read_bytes()
    assert main(["check", "-q", str(tmp_path / "a" / "m.onnx"), "--output", str(tmp_path / "b" / "out.onnx")]) == 0
    x = np.ones((2, 64), np.float32)
    got = ort.InferenceSession(str(tmp_path / "b" / "out.onnx")).run(None, {"x": x})[0]
    assert np.array_equal(got, x @ np.arange(64 * 64, dtype=np.float32).reshape(64, 64))
    assert (tmp_path / "a" / "weights" / "m.data").read_bytes() == before      # the model is never modified


def test_an_annotated_copy_replaces_no_file_it_did_not_write_and_leaves_nothing_when_it_fails(tmp_path, capsys):
    # a new user's trial: --output into another folder replaced an unrelated 'weights/m.data' there with
    # the model's weights (OK, exit 0); and where the data could not be copied, the annotated model was
    # left behind, pointing at data that is not there (onnxruntime could not load it)
    w = numpy_helper.from_array(np.zeros((8, 8), np.float32), "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["n", 8])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)], [w])
    (tmp_path / "a").mkdir()
    model = str(tmp_path / "a" / "m.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), model,
              save_as_external_data=True, location="m.data", size_threshold=0)
    for name, other in (("b", "precious weights of another model"), ("c", None)):
        (tmp_path / name).mkdir()
        if other is None:
            (tmp_path / name / "m.data").mkdir()   # a directory where the data would go
        else:
            (tmp_path / name / "m.data").write_text(other)
        code, out, err = run(capsys, "check", "-q", model, "--output", str(tmp_path / name / "out.onnx"))
        assert code == 2 and "error[output]:" in err and "which exists and is not m.data" in err, err
        assert "nothing written (its --output cannot be written)" in out
        assert sorted(p.name for p in (tmp_path / name).iterdir()) == ["m.data"]   # nothing new
        if other is not None:
            assert (tmp_path / name / "m.data").read_text() == other
    code, out, _err = run(capsys, "check", "--json", model, "--output", str(tmp_path / "b" / "out.onnx"))
    doc = json.loads(out)   # a JSON consumer gets the error as JSON too
    assert code == 2 and doc["ok"] is False and doc["kind"] == "output" and doc["exit_code"] == 2
    # into a folder of its own, and again into the same folder (the data there is the same bytes)
    (tmp_path / "d").mkdir()
    for _ in range(2):
        assert run(capsys, "check", "-q", model, "--output", str(tmp_path / "d" / "out.onnx"))[0] == 0
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["m.data", "out.onnx"]
    # a folder that does not exist: nothing is made
    assert run(capsys, "check", "-q", model, "--output", str(tmp_path / "e" / "out.onnx"))[0] == 2
    assert not (tmp_path / "e").exists()


def test_configuration_in_pyproject_and_flags_over_it(capsys, tmp_path, monkeypatch):
    import shutil
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    (tmp_path / "models" / "old").mkdir(parents=True)
    shutil.copy(root / "examples" / "positions.onnx", tmp_path / "models" / "positions.onnx")
    shutil.copy(root / "examples" / "pinned.onnx", tmp_path / "models" / "old" / "pinned.onnx")
    (tmp_path / "pyproject.toml").write_text('[tool.shapecheck]\npaths = ["models"]\nexclude = ["*/old/*"]\n'
                                             'strict = true\nignore = ["runtime-check"]\n')
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check")                  # paths, exclude, strict from the file
    assert code == 1 and "pinned" not in out + err and "runtime-check" not in err
    assert "1 <= seq <= 64" in out                         # strict fails on the domain's bound
    code, out, err = run(capsys, "check", "--ignore", "condition")   # a flag over the file's ignore
    assert code == 0 and "note[runtime-check]" in err
    code, out, err = run(capsys, "check", "models/old/pinned.onnx", "--ignore", "pinned")
    assert code == 1 and "error[pinned]" not in err         # strict still fails on seq == 32
    (tmp_path / "pyproject.toml").write_text('[tool.shapecheck]\nstrictt = true\n')
    code, _, err = run(capsys, "check")
    assert code == 2 and "pyproject.toml" in err and "'strictt'" in err
    (tmp_path / "other.toml").write_text('select = ["pinned"]\n')
    code, out, err = run(capsys, "check", "--config", "other.toml", "models")
    assert code == 1 and "error[pinned]" in err and "runtime-check" not in err


def test_infer_on_a_model_prints_every_tensors_type(capsys):
    # `shapecheck infer MODEL` once ended in a traceback (the op query's printer got the model's types)
    code, out, err = run(capsys, "infer", "examples/kv_cache.onnx")
    want = shapecheck.infer("examples/kv_cache.onnx")
    assert code == 0 and not err and out.splitlines() == [f"{k}: {v}" for k, v in want.items()]
    code, out, _ = run(capsys, "infer", "examples/kv_cache.onnx", "--json")
    assert code == 0 and json.loads(out) == {k: str(v) for k, v in want.items()}
    code, _, err = run(capsys, "infer", "examples/kv_cache.onnx", "-i", "x=float[2]")
    assert code == 2 and "operator query" in err and "Traceback" not in err


def test_the_domain_says_how_many_nodes_it_does_not_cover(capsys, tmp_path):
    # a node of a domain no spec describes: what it needs is not in the domain, and the line says so
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Warp", ["r"], ["y"], domain="com.example")],
                          "g", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 8])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.example", 1)])
    onnx.save(m, str(tmp_path / "m.onnx"))
    code, out, _err = run(capsys, "check", str(tmp_path / "m.onnx"))
    assert "valid for: batch >= 1 (assuming every input dim >= 1; not checked: 1 node without a spec)" in out
    assert shapecheck.check_model(m).summary["skipped"] == 1   # the count the line reads
    onnx.save(helper.make_model(helper.make_graph(g.node[:1], "g", g.input, [helper.make_tensor_value_info("r", T.FLOAT, None)]),
                                opset_imports=[helper.make_opsetid("", 18)]), str(tmp_path / "all.onnx"))
    code, out, _err = run(capsys, "check", str(tmp_path / "all.onnx"))
    assert "not checked" not in out and shapecheck.check_model(str(tmp_path / "all.onnx")).summary["skipped"] == 0


def test_a_pin_names_the_constants_that_hold_its_number_not_another_sources_nearest():
    """A TorchScript nn.TransformerEncoder pins seq == 10 at a dozen nodes: the reshapes' constants hold
    the 10, and two more reshapes, whose 10 comes through their inputs' types, had their nearest
    constants (Unsqueeze axes, [0]) named beside them.  A source's nearest constants are named only
    where no source of the relation has constants that hold its number."""
    from shapecheck.domain.build import Need
    from shapecheck.domain.intset import DimSet
    from shapecheck.domain.relation import Source
    from shapecheck.dims import symbol
    from shapecheck.frontends.graph import ModelGraph, ModelNode
    from shapecheck.model.domain import model_domain
    from shapecheck.notation import Rel
    from shapecheck.types import parse_type
    seq, batch = symbol("seq"), symbol("batch")
    g = ModelGraph("m.onnx", "onnx", nodes=[ModelNode("unsq", "Unsqueeze", "", 17, ["z", "axes"], ["u"], {}),
                                            ModelNode("b", "Add", "", 17, ["x", "u"], ["y"], {}),
                                            ModelNode("a", "Add", "", 17, ["x", "pos"], ["w"], {})],
                   sources={"pos": parse_type("float[1,16,4]"), "axes": parse_type("int64[1] = [0]")},
                   source_kind={"pos": "initializer", "axes": "constant"})
    need = Need("seq == 16", Rel("==", seq, 16), [Source("b", "Add", "Add-14"), Source("a", "Add", "Add-14")])
    both = model_domain(g, [need], [], {batch: DimSet.interval(1, None), seq: DimSet.interval(1, None)}, True, set())
    [rel] = [r for r in both.relations if r.dims == ("seq",)]
    assert {s.node: s.constants for s in rel.sources} == {"b": (), "a": ("initializer 'pos' float[1,16,4]",)}
    alone = model_domain(g, [Need("seq == 16", Rel("==", seq, 16), [Source("b", "Add", "Add-14")])], [],
                         {batch: DimSet.interval(1, None), seq: DimSet.interval(1, None)}, True, set())
    [rel] = [r for r in alone.relations if r.dims == ("seq",)]
    assert [s.constants for s in rel.sources] == [("constant 'axes' int64[1] = [0]",)]   # the nearest, alone


def test_dims_naming_a_dim_the_model_does_not_declare_is_an_options_error_not_an_unreadable_model(capsys):
    # a new user's trial: a misspelt --dims name was 'error[unreadable]' and 'not checked (unreadable)'
    code, out, err = run(capsys, "check", "examples/kv_cache.onnx", "--dims", "sqe=4")
    assert code == 2
    assert "error[options]: --dims names 'sqe', which no input of the model declares; its inputs declare " \
           "batch, max_len, hidden" in err and "unreadable" not in err + out
    assert "examples/kv_cache.onnx: not checked (the options do not fit it)" in out
    code, out, _err = run(capsys, "check", "examples/kv_cache.onnx", "--dims", "sqe=4", "--format", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert code == 2 and result["ruleId"] == "shapecheck/options" and result["level"] == "error"


def test_a_dim_pinned_to_a_few_sizes_is_fixed_by_one_static_size_and_dims_are_given_once():
    # a new user's trial: 'declare frames static: frames in {1, 2, 99, 100}' (a static dim is one size), and
    # '--dims B=2,B=3' taken without a word
    from shapecheck.errors import UsageError
    from shapecheck.model.sizes import parse_sizes
    g = helper.make_graph([helper.make_node("Add", ["x", "c"], ["y"], name="add")], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["seq"])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)],
                          [numpy_helper.from_array(np.zeros(16, np.float32), "c")])
    rep = shapecheck.check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    (pin,) = [f for f in rep.violations if f.constraint == "pinned"]
    assert pin.fix.endswith("or declare seq static: seq = one of 1, 16"), pin.fix
    with pytest.raises(UsageError, match=r"--dims gives B twice \(B=2, B=3\): one size each"):
        parse_sizes("B=2,B=3")
    assert parse_sizes("B=2, B=2") == {"B": 2}
