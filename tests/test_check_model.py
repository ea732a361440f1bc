"""`shapecheck check` and `shapecheck.check_model` on ONNX models and OpenVINO IR."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import onnx
import pytest

import shapecheck
from shapecheck.cli import main
from tests.harness.models import BOOL, FLOAT, INT64, const, model, node, registry_without, vi

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- shipped examples

def test_examples_are_up_to_date(tmp_path):
    import runpy
    runpy.run_path(str(EXAMPLES / "make_examples.py"), run_name="not_main")["main"](tmp_path)
    for f in tmp_path.iterdir():
        assert f.read_bytes() == (EXAMPLES / f.name).read_bytes(), \
            f"examples/{f.name} is stale: run python examples/make_examples.py"


def test_kv_cache_example_is_valid_with_symbolic_dims(capsys):
    code, out, _ = run_cli(capsys, "check", str(EXAMPLES / "kv_cache.onnx"), "--nodes", "all")
    assert code == 0
    rep = shapecheck.check_model(str(EXAMPLES / "kv_cache.onnx"))
    (n,) = rep.nodes
    assert (n.spec, n.status, n.outputs["output"]) == ("ScatterND-18", "valid", "float[batch,max_len,hidden]")
    assert "kv_update" in out and "valid" in out


def test_broken_example_reports_each_mistake_with_its_constraint(capsys):
    code, out, err = run_cli(capsys, "check", str(EXAMPLES / "broken.onnx"))
    assert code == 1 and "error[C7]" not in out   # findings go to stderr, each naming the file
    assert err.startswith(f"{EXAMPLES / 'broken.onnx'}: error[C7]: node 'wrong_updates'")
    rep = shapecheck.check_model(str(EXAMPLES / "broken.onnx"))
    by_name = {n.name: n for n in rep.nodes}
    assert {v.constraint for v in by_name["wrong_updates"].violations} == {"C7", "C8"}
    assert [v.constraint for v in by_name["max_at_16"].violations] == ["C10"]
    assert [v.constraint for v in by_name["shape_mismatch"].violations] == ["C3"]
    c7 = next(v for v in by_name["wrong_updates"].violations if v.constraint == "C7")
    assert c7.fix == "give updates the shape [2,4,4]" and c7.values["updates.shape"] == "[2,4]"
    assert "ScatterElements-18" in by_name["max_at_16"].violations[0].fix
    assert "error[C7]" in err and "fix: give updates the shape [2,4,4]" in err


def test_subgraph_nodes_are_checked():
    rep = shapecheck.check_model(str(EXAMPLES / "subgraph.onnx"))
    names = sorted(n.name for n in rep.nodes)
    assert names == ["choose/else_branch/else_scatter", "choose/then_branch/then_scatter"]
    assert all(n.status == "valid" for n in rep.nodes)
    # the If has no spec of its own: its condition is checked, its outputs are its branches'
    assert rep.summary["skipped"] == 0 and rep.coverage["by_op"]["If"] == {"subgraphs": 1}


def test_openvino_ir_example_reads_axis_from_bin():
    rep = shapecheck.check_model(str(EXAMPLES / "scatter_update.xml"))
    (n,) = rep.nodes
    assert n.spec == "openvino:ScatterElementsUpdate-3" and n.status == "valid"
    assert n.outputs["output"] == "float[1000,256,7,7]"
    assert n.inputs["axis"]["type"] == "int64[1] = [0]"


def test_openvino_ir_negative_index_constant_is_refuted(tmp_path):
    xml = (EXAMPLES / "scatter_update.xml").read_text()
    (tmp_path / "m.bin").write_bytes((-1).to_bytes(8, "little", signed=True))
    (tmp_path / "m.xml").write_text(xml)
    rep = shapecheck.check_model(str(tmp_path / "m.xml"))
    (n,) = rep.nodes
    # axis -1 is allowed (C4) but then dim 3 is scattered: indices dim 2 (7) <= data dim 2 (7) holds, all fine
    assert n.status == "valid" and n.inputs["axis"]["type"] == "int64[1] = [-1]"


def test_openvino_ir_without_bin_leaves_axis_unknown(tmp_path):
    shutil.copy(EXAMPLES / "scatter_update.xml", tmp_path / "m.xml")
    rep = shapecheck.check_model(str(tmp_path / "m.xml"))
    (n,) = rep.nodes
    # the axis value is a run-time value now: the rules that read it are left to run time, the rest is proved
    result = shapecheck.infer("openvino:ScatterElementsUpdate", 3, {
        "data": "float[1000,256,7,7]", "indices": "int32[125,20,7,6]", "updates": "float[125,20,7,6]",
        "axis": "int64[1]"})
    status = {c.id: c.status for c in result.constraints}
    assert status["C4"] == status["C5"] == status["C10"] == "unchecked"
    assert status["C1"] == status["C2"] == status["C3"] == "proved"
    assert n.status == "valid" and n.inputs["axis"]["type"] == "int64[1]"
    assert any(".bin" in note for note in rep.notes)


# ---------------------------------------------------------------- conditions across the graph

def _two_nodes(idx_a, idx_b, opset=18):
    nodes = [node("ScatterElements", ["d", "ia", "ua"], ["y1"], "first"),
             node("ScatterElements", ["y1", "ib", "ub"], ["y2"], "second")]
    return model(nodes, [vi("d", FLOAT, [10]), vi("ia", INT64, idx_a), vi("ua", FLOAT, ["N"]),
                         vi("ib", INT64, idx_b), vi("ub", FLOAT, ["N"])], [vi("y2", FLOAT, [10])], opset)


def test_shared_condition_is_one_assumption_listing_both_nodes():
    rep = shapecheck.check_model(_two_nodes(["seq"], ["seq"]))
    assert [a["condition"] for a in rep.assumptions] == ["N == seq"]
    assert rep.assumptions[0]["nodes"] == ["first", "second"]
    assert rep.exit_code == 0


def test_contradicting_conditions_make_the_model_invalid(capsys, tmp_path):
    m = _two_nodes([4], [5])
    rep = shapecheck.check_model(m)
    assert all(n.status == "conditional" for n in rep.nodes)
    assert {a["condition"] for a in rep.assumptions} == {"N == 4", "N == 5"}
    (bad,) = rep.violations      # one root cause, one finding: the domain of N is empty
    assert bad.constraint == "contradiction" and "N == 4 and N == 5" in bad.rule
    assert bad.values["needed by"].startswith("'first'") and "'second'" in bad.values["needed by"]
    assert rep.exit_code == 1
    onnx.save(m, str(tmp_path / "m.onnx"))
    code, out, err = run_cli(capsys, "check", str(tmp_path / "m.onnx"))
    assert code == 1 and "no input meets the model's conditions" in err


def test_strict_fails_on_remaining_conditions(capsys, tmp_path):
    onnx.save(_two_nodes(["seq"], ["seq"]), str(tmp_path / "m.onnx"))
    assert run_cli(capsys, "check", str(tmp_path / "m.onnx"))[0] == 0
    code, out, _ = run_cli(capsys, "check", "--strict", str(tmp_path / "m.onnx"))
    assert code == 1 and "N == seq" in out
    # --quiet prints the failures: under --strict the conditions are, so they say why (a trial saw a bare FAILED)
    code, out, _ = run_cli(capsys, "check", "--strict", "-q", str(tmp_path / "m.onnx"))
    assert code == 1 and "N == seq" in out and "FAILED" in out
    code, out, _ = run_cli(capsys, "check", "-q", str(tmp_path / "m.onnx"))
    assert code == 0 and "N == seq" not in out


def test_json_report_schema(capsys, tmp_path):
    onnx.save(_two_nodes(["seq"], ["seq"]), str(tmp_path / "m.onnx"))
    code, out, _ = run_cli(capsys, "check", "--json", str(tmp_path / "m.onnx"))
    doc = json.loads(out)
    assert code == 0
    assert set(doc) >= {"model", "nodes", "assumptions", "declarations", "summary"}
    n = doc["nodes"][0]
    assert set(n) >= {"name", "op_type", "domain", "opset", "spec", "status", "outputs", "conditions",
                      "violations", "warnings", "inputs"}
    assert n["spec"] == "ScatterElements-18" and n["outputs"] == {"output": "float[10]"}
    assert n["inputs"]["updates"] == {"tensor": "ua", "type": "float[N]", "source": "declared"}
    assert doc["summary"] == {"checked": 2, "valid": 0, "conditional": 2, "invalid": 0, "unchecked": 0, "skipped": 0}


def test_node_without_spec_takes_onnx_inference():
    # in a registry without CenterCropPad's specs (to shape [3, 2]) its output type comes from onnx's inference, and
    # the ScatterND after it is checked against that: [3,2] data needs updates [1,2]
    nodes = [node("CenterCropPad", ["x", "s"], ["t"], "tr"), node("ScatterND", ["t", "i", "u"], ["y"], "sc")]
    m = model(nodes, [vi("x", FLOAT, [2, 3]), vi("u", FLOAT, [1, 2])], [vi("y", FLOAT, None)],
              initializers=[const("i", [[1]]), const("s", [3, 2])])
    rep = shapecheck.check_model(m, registry=registry_without("CenterCropPad"))
    (n,) = rep.nodes
    assert n.status == "valid" and n.inputs["data"]["source"] == "onnx inference"
    assert n.outputs["output"] == "float[3,2]"


def test_op_missing_at_the_models_opset_is_a_finding():
    m = model([node("ScatterND", ["d", "i", "u"], ["y"], "nd")],
              [vi("d", FLOAT, [4]), vi("i", INT64, [1, 1]), vi("u", FLOAT, [1])], [vi("y", FLOAT, [4])], opset=10)
    (n,) = shapecheck.check_model(m).nodes
    assert n.status == "invalid" and n.violations[0].constraint == "opset"
    assert "first version is ScatterND-11" in n.violations[0].message


def test_scatter_at_opset_11_is_deprecated_and_invalid():
    m = model([node("Scatter", ["d", "i", "u"], ["y"], "old")],
              [vi("d", FLOAT, [4]), vi("i", INT64, [1]), vi("u", FLOAT, [1])], [vi("y", FLOAT, [4])], opset=11)
    (n,) = shapecheck.check_model(m).nodes
    assert n.spec == "Scatter-11" and [v.constraint for v in n.violations] == ["deprecated"]


def test_attribute_the_opset_lacks_is_a_violation():
    m = model([node("ScatterND", ["d", "i", "u"], ["y"], "nd", reduction="add")],
              [vi("d", FLOAT, [4]), vi("i", INT64, [1, 1]), vi("u", FLOAT, [1])], [vi("y", FLOAT, [4])], opset=13)
    (n,) = shapecheck.check_model(m).nodes
    assert n.status == "invalid" and n.violations[0].constraint == "A1"
    assert "ScatterND-16" in n.violations[0].fix


def test_constant_node_values_are_used():
    idx = onnx.helper.make_node("Constant", [], ["i"], value=const("v", [[7]]))
    m = model([idx, node("ScatterND", ["d", "i", "u"], ["y"], "nd")],
              [vi("d", FLOAT, ["N"]), vi("u", FLOAT, [1])], [vi("y", FLOAT, ["N"])])
    (n,) = shapecheck.check_model(m).nodes
    assert n.status == "conditional" and n.conditions == ["N >= 8"]


# ---------------------------------------------------------------- annotate, external data, custom specs

def test_annotate_writes_a_copy_and_never_touches_the_input(tmp_path, capsys):
    src = tmp_path / "kv.onnx"
    shutil.copy(EXAMPLES / "subgraph.onnx", src)
    before = sha(src)
    out = tmp_path / "annotated.onnx"
    code, _, _ = run_cli(capsys, "check", str(src), "--output", str(out))
    assert code == 0 and sha(src) == before
    m = onnx.load(str(out))
    branch = next(a.g for a in m.graph.node[0].attribute if a.name == "then_branch")
    (o,) = branch.output
    dims = [d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim]
    assert dims == ["N", 8]
    code, _, err = run_cli(capsys, "check", str(src), "--output", str(src))
    assert code == 2 and "never modifies a model in place" in err and sha(src) == before


def test_external_data_is_not_loaded_unless_asked(tmp_path):
    import numpy as np
    big = onnx.numpy_helper.from_array(np.zeros((64, 64), np.float32), "data")
    m = model([node("ScatterND", ["data", "i", "u"], ["y"], "nd")], [vi("u", FLOAT, [1, 64])],
              [vi("y", FLOAT, [64, 64])], initializers=[big, const("i", [[3]])])
    path = tmp_path / "ext.onnx"
    onnx.save(m, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location="ext.bin",
              size_threshold=0)
    (tmp_path / "ext.bin").rename(tmp_path / "moved.bin")  # loading external data would now fail
    rep = shapecheck.check_model(str(path))
    (n,) = rep.nodes
    assert n.status == "valid" and n.inputs["data"]["type"] == "float[64,64]"
    # the index initializer is external too: its values are unknown, so its bound check is left to run time
    assert n.inputs["indices"]["type"] == "int64[1,1]" and n.violations == []
    # the data file is not beside the model: a note says so (a runtime cannot load the model)
    assert [x for x in rep.notes if "external data" in x] == [
        "external data 'ext.bin' (initializer 'data') is not beside the model: checked from the tensors' types, "
        "but a runtime cannot load the model without it"]
    (tmp_path / "moved.bin").rename(tmp_path / "ext.bin")
    assert not [x for x in shapecheck.check_model(str(path)).notes if "external data" in x]


def test_extra_specs_directory_adds_an_operator(tmp_path, capsys):
    spec = tmp_path / "specs" / "com.acme"
    spec.mkdir(parents=True)
    (spec / "RowScatter-1.toml").write_text('''
op = "RowScatter"
domain = "com.acme"
version = 1
[semantics]
kind = "scatter_nd"
data = "data"
indices = "indices"
updates = "updates"
reduction = '"none"'
[types]
T = ["float"]
[[inputs]]
name = "data"
type = "T"
[[inputs]]
name = "indices"
type = "T"
[[inputs]]
name = "updates"
type = "T"
[[outputs]]
name = "output"
type = "dtype(data)"
shape = "data.shape"
[[constraints]]
id = "C1"
rule = "rank(data) == 2 and updates.shape == indices.shape[:-1] ++ data.shape[1:]"
message = "updates are whole rows"
''')
    g = onnx.helper.make_graph([onnx.helper.make_node("RowScatter", ["d", "i", "u"], ["y"], name="rs", domain="com.acme")],
                               "g", [vi("d", FLOAT, ["N", 4]), vi("i", FLOAT, ["M", 1]), vi("u", FLOAT, ["M", 5])],
                               [vi("y", FLOAT, None)])
    m = onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 18), onnx.helper.make_opsetid("com.acme", 1)])
    onnx.save(m, str(tmp_path / "m.onnx"))
    code, out, err = run_cli(capsys, "--specs", str(tmp_path / "specs"), "check", str(tmp_path / "m.onnx"))
    assert code == 1 and "com.acme:RowScatter-1" in err and "error[C1]" in err
    rep = shapecheck.check_model(str(tmp_path / "m.onnx"), specs=[str(tmp_path / "specs")])
    assert [v.constraint for v in rep.nodes[0].violations] == ["C1"]
    # without the extra specs the node is simply skipped
    assert shapecheck.check_model(str(tmp_path / "m.onnx")).summary == \
        {"checked": 0, "valid": 0, "conditional": 0, "invalid": 0, "unchecked": 0, "skipped": 1}


# ---------------------------------------------------------------- bad input: exit 2, one paragraph

def _empty_dir(tmp_path):
    (tmp_path / "empty").mkdir(exist_ok=True)
    return tmp_path / "empty"


def _bad(tmp_path):
    (tmp_path / "text.onnx").write_text("hello, I am not a model\n")
    good = (EXAMPLES / "kv_cache.onnx").read_bytes()
    (tmp_path / "trunc.onnx").write_bytes(good[: len(good) // 2])
    m = model([node("ScatterND", ["d", "", "u"], ["y"], "holey")], [vi("d", FLOAT, [4]), vi("u", FLOAT, [1])],
              [vi("y", FLOAT, [4])])
    onnx.save(m, str(tmp_path / "missing_input.onnx"))
    (tmp_path / "bad.xml").write_text("<net><layers><layer id='0' type='Parameter'>")
    (tmp_path / "bomb.xml").write_text('<?xml version="1.0"?><!DOCTYPE net [<!ENTITY a "aaaaaaaaaa">'
                                       '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><net><layers>&b;</layers></net>')
    (tmp_path / "notir.xml").write_text("<html><body/></html>")
    return {
        "missing": (tmp_path / "nope.onnx", "no such file"),
        "directory": (_empty_dir(tmp_path), "is a directory without models"),
        "text": (tmp_path / "text.onnx", "not an ONNX model"),
        "truncated": (tmp_path / "trunc.onnx", "not an ONNX model"),
        "missing input": (tmp_path / "missing_input.onnx", "input 1 (indices) is missing"),
        "malformed xml": (tmp_path / "bad.xml", "malformed XML"),
        "entity expansion": (tmp_path / "bomb.xml", "refused to parse"),
        "not IR": (tmp_path / "notir.xml", "not an OpenVINO IR file"),
    }


@pytest.mark.parametrize("case", ["missing", "directory", "text", "truncated", "missing input",
                                  "malformed xml", "entity expansion", "not IR"])
def test_bad_models_exit_2_with_one_paragraph(case, tmp_path, capsys):
    path, expected = _bad(tmp_path)[case]
    code, out, err = run_cli(capsys, "check", str(path))
    assert code == 2, (out, err)
    assert expected in err and str(path.name) in err
    assert "Traceback" not in err + out
    assert err.strip().count("\n\n") == 0  # one paragraph


def test_loop_body_is_checked():
    body = onnx.helper.make_graph(
        [node("Identity", ["cond_in"], ["cond_out"], "keep_going"),
         node("ScatterND", ["acc_in", "idx", "upd"], ["acc_out"], "body_scatter", reduction="add")],
        "body", [vi("i", INT64, []), vi("cond_in", BOOL, []), vi("acc_in", FLOAT, ["N", 4])],
        [vi("cond_out", BOOL, []), vi("acc_out", FLOAT, ["N", 4])])
    loop = onnx.helper.make_node("Loop", ["trip", "c", "x"], ["y"], name="loop", body=body)
    m = model([loop], [vi("trip", INT64, []), vi("c", BOOL, []), vi("x", FLOAT, ["N", 4]),
                       vi("idx", INT64, ["M", 1]), vi("upd", FLOAT, ["M", 5])], [vi("y", FLOAT, ["N", 4])])
    rep = shapecheck.check_model(m)
    (n,) = [x for x in rep.nodes if x.op_type == "ScatterND"]
    # the body input is bound from the Loop's own input, not taken from the body's declaration
    assert n.name == "loop/body/body_scatter" and n.inputs["data"]["source"] == "owner input"
    assert [v.constraint for v in n.violations] == ["C7"] and n.violations[0].fix == "give updates the shape [M,4]"


def test_a_size_of_0_given_under_the_nonempty_assumption_is_noted():
    m = _two_nodes(["seq"], ["seq"])
    at0 = shapecheck.check_model(m, dims="seq=0,N=0")
    assert [n for n in at0.notes if "is below what the other dims are assumed to be" in n] == [
        "seq = 0 is below what the other dims are assumed to be (at least 1; --allow-empty-dims takes 0 as a size): "
        "checked there as the graph stands",
        "N = 0 is below what the other dims are assumed to be (at least 1; --allow-empty-dims takes 0 as a size): "
        "checked there as the graph stands"]
    assert not [n for n in shapecheck.check_model(m, dims="seq=0,N=0", assume_nonempty=False).notes if "below" in n]
    assert not [n for n in shapecheck.check_model(m, dims="seq=2,N=2").notes if "below" in n]
