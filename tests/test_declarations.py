"""Declared shapes are claims: value_info and graph outputs are checked against inference."""
from __future__ import annotations

import onnx
import pytest
from onnx import helper

import shapecheck
from shapecheck.cli import main
from tests.harness.models import BOOL, FLOAT, INT64, const, model, node, vi


def decl(report, tensor):
    found = [d for d in report.declarations if d.tensor == tensor]
    assert len(found) == 1, report.declarations
    return found[0]


def strip_value_info(m: onnx.ModelProto) -> onnx.ModelProto:
    c = onnx.ModelProto()
    c.CopyFrom(m)
    del c.graph.value_info[:]
    return c


def verdicts(report):
    return {n.name: (n.status, tuple(v.constraint for v in n.violations), tuple(n.conditions)) for n in report.nodes}


def if_model(declared_out_shape):
    """An If whose branches each scatter into x [N,8]; the graph output is declared by the caller."""
    then_g = helper.make_graph([node("ScatterND", ["x", "rows", "vals"], ["t_out"], "then_scatter")], "then", [],
                               [vi("t_out", FLOAT, None)])
    else_g = helper.make_graph([node("Identity", ["x"], ["e_out"], "else_id")], "else", [], [vi("e_out", FLOAT, None)])
    nodes = [helper.make_node("If", ["c"], ["y"], name="choose", then_branch=then_g, else_branch=else_g)]
    return model(nodes, [vi("c", BOOL, []), vi("x", FLOAT, ["N", 8]), vi("rows", INT64, ["R", 1]),
                         vi("vals", FLOAT, ["R", 8])], [vi("y", FLOAT, declared_out_shape)])


def test_graph_output_with_wrong_rank_behind_if_is_a_violation(capsys, tmp_path):
    rep = shapecheck.check_model(if_model(["N"]))
    d = decl(rep, "y")
    assert (d.status, d.severity, d.kind, d.node) == ("contradicts", "error", "graph output", "choose")
    assert d.declared == "float[N]" and d.inferred == "float[N,8]"
    assert "rank 1 declared, 2 inferred" in d.message and d.fix == "declare 'y' as float[N,8]"
    assert rep.exit_code == 1
    # the scatter inside the branch is fine: only the declaration is wrong
    assert [n.status for n in rep.nodes if n.op_type == "ScatterND"] == ["valid"]
    onnx.save(if_model(["N"]), str(tmp_path / "m.onnx"))
    code = main(["check", str(tmp_path / "m.onnx")])
    err = capsys.readouterr().err
    assert code == 1 and "error[declaration]" in err and "declare 'y' as float[N,8]" in err


def test_correct_graph_output_agrees():
    rep = shapecheck.check_model(if_model(["N", 8]))
    assert decl(rep, "y").status == "agrees" and rep.exit_code == 0


def stale_transpose_model():
    # x was [3,2] when value_info was written; it is [2,3] now, so t is really [3,2] (CenterCropPad to [3, 2])
    nodes = [node("CenterCropPad", ["x", "s"], ["t"], "tr"), node("ScatterND", ["t", "i", "u"], ["y"], "scatter")]
    return model(nodes, [vi("x", FLOAT, [2, 3]), vi("u", FLOAT, [1, 3])], [vi("y", FLOAT, None)],
                 initializers=[const("i", [[1]]), const("s", [3, 2])], value_info=[vi("t", FLOAT, [2, 3])])


def test_stale_value_info_is_a_warning_and_inference_decides_the_scatter(capsys, tmp_path):
    rep = shapecheck.check_model(stale_transpose_model())
    d = decl(rep, "t")
    assert (d.status, d.severity, d.kind, d.node) == ("contradicts", "warning", "value_info", "tr")
    assert d.declared == "float[2,3]" and d.inferred == "float[3,2]"
    assert "dim 0: 2 declared, 3 inferred" in d.message
    crop, n = rep.nodes
    assert crop.status == "valid" and crop.spec == "CenterCropPad-18"
    # with the stale [2,3], updates [1,3] would fit; with the true [3,2] they must be [1,2]
    assert n.status == "invalid" and n.violations[0].constraint == "C7"
    assert n.violations[0].fix == "give updates the shape [1,2]"
    assert n.inputs["data"] == {"tensor": "t", "type": "float[3,2]", "source": "inferred"}
    # a value_info contradiction alone is a warning; strict makes it a failure
    fixed = stale_transpose_model()
    fixed.graph.input[1].CopyFrom(vi("u", FLOAT, [1, 2]))
    assert shapecheck.check_model(fixed).exit_code == 0
    assert shapecheck.check_model(fixed, strict=True).exit_code == 1


def test_declared_output_on_scatter_contradicts_its_data():
    m = model([node("ScatterElements", ["d", "i", "u"], ["y"], "se")],
              [vi("d", FLOAT, [3, 3]), vi("i", INT64, [1, 3]), vi("u", FLOAT, [1, 3])], [vi("y", FLOAT, [4, 4])])
    rep = shapecheck.check_model(m)
    d = decl(rep, "y")
    assert (d.status, d.severity, d.node) == ("contradicts", "error", "se")
    assert "dim 0: 4 declared, 3 inferred" in d.message and "dim 1: 4 declared, 3 inferred" in d.message
    assert rep.nodes[0].status == "valid" and rep.exit_code == 1


def _scatter_with_value_info(name, out_name=None):
    outs = [vi("z", FLOAT, None if out_name is None else [out_name, 4])]
    return model([node("ScatterND", ["d", "i", "u"], ["y"], "nd"), node("Relu", ["y"], ["z"], "relu")],
                 [vi("d", FLOAT, ["N", 4]), vi("i", INT64, ["K", 1]), vi("u", FLOAT, ["K", 4])],
                 outs, value_info=[vi("y", FLOAT, [name, 4])])


def test_a_declared_input_name_against_another_inferred_dim_is_a_condition():
    # y's dim 0 is N; value_info calls it K, which the inputs declare for another dim
    m = _scatter_with_value_info("K")
    rep = shapecheck.check_model(m)
    d = decl(rep, "y")
    # the condition fails at the smallest sizes the domain admits past all-ones (model/refinements.py)
    assert (d.status, d.severity, d.conditions) == ("condition", "warning", ["K == N"])
    assert "but at N = 2, K = 1, which the domain admits, inference gives float[2,4] where the value_info says " \
           "float[1,4]: the declaration is wrong there" in d.message, d.message
    assert {"condition": "K == N", "kind": "condition", "nodes": ["y (value_info)"]} in rep.assumptions
    assert rep.exit_code == 0 and shapecheck.check_model(m, strict=True).exit_code == 1
    # annotate writes the inferred N, not the declared K
    out = shapecheck.annotate(m)
    (y,) = [v for v in out.graph.value_info if v.name == "y"]
    assert [dd.dim_param or dd.dim_value for dd in y.type.tensor_type.shape.dim] == ["N", 4]


def test_a_name_no_input_declares_is_defined_by_inference():
    """TorchScript names output dims it could not infer (``Convmask_dim_0``): such a name
    constrains nothing, so it is defined by the dim it names, and strict mode passes."""
    m = _scatter_with_value_info("M")
    rep = shapecheck.check_model(m)
    d = decl(rep, "y")
    assert d.status == "agrees" and "M = N" in d.message
    assert not [a for a in rep.assumptions if a["kind"] == "condition"]
    assert shapecheck.check_model(m, strict=True).exit_code == 0


def test_a_defined_name_used_again_is_compared_with_its_definition():
    # M is defined as N by y; z = Relu(y) declares the same M (agrees), then one declaring M + 1
    agree = shapecheck.check_model(_scatter_with_value_info("M", "M"))
    assert [x.status for x in agree.declarations] == ["agrees", "agrees"]
    clash = shapecheck.check_model(_scatter_with_value_info("M", "M + 1"))
    z = decl(clash, "z")
    assert z.status == "contradicts" and "dim 0" in z.message and clash.exit_code == 1


def unknown_dim_model(with_value_info: bool):
    # NonZero's output length is data dependent: onnx leaves dim 1 unknown; value_info says 5
    nodes = [node("NonZero", ["mask"], ["nz"], "nonzero"), node("Transpose", ["nz"], ["pairs"], "tr", perm=[1, 0]),
             node("ScatterND", ["grid", "pairs", "u"], ["y"], "scatter")]
    vis = [vi("pairs", INT64, [5, 2])] if with_value_info else []
    return model(nodes, [vi("mask", BOOL, [4, 4]), vi("grid", FLOAT, [4, 4]), vi("u", FLOAT, [5])],
                 [vi("y", FLOAT, [4, 4])], value_info=vis)


def test_declaration_fills_only_what_inference_left_unknown():
    rep = shapecheck.check_model(unknown_dim_model(True))
    d = decl(rep, "pairs")
    assert (d.status, d.severity) == ("refines", "info")
    # NonZero's count is a run-time size: named per node and defined, with its bound, in the report
    assert d.inferred == "int64[nnz_1,2]" and d.declared == "int64[5,2]"
    assert rep.symbols == [{"name": "nnz_1", "node": "nonzero", "op_type": "NonZero", "where": "nz.shape[1]",
                            "bounds": "0 <= nnz_1 <= 16"}]
    assert {"condition": "pairs dim 0 = 5, taken from value_info", "kind": "refinement",
            "nodes": ["pairs (value_info)"]} in rep.assumptions
    (n,) = [x for x in rep.nodes if x.op_type == "ScatterND"]
    assert n.status == "valid" and n.inputs["indices"]["type"] == "int64[5,2]"
    # without the declaration the same node needs the unknown dim to match updates
    (bare,) = [x for x in shapecheck.check_model(unknown_dim_model(False)).nodes if x.op_type == "ScatterND"]
    assert bare.status == "conditional" and bare.conditions == ["nnz_1 == 5"]  # the size NonZero finds at run time
    # a refinement is an assumption, not a condition: strict does not fail on it
    assert shapecheck.check_model(unknown_dim_model(True), strict=True).exit_code == 0


@pytest.mark.parametrize("build", [stale_transpose_model, lambda: if_model(["N"]),
                                   lambda: _symbol_model()], ids=["stale", "if", "symbol"])
def test_verdicts_do_not_depend_on_value_info(build):
    m = build()
    assert verdicts(shapecheck.check_model(m)) == verdicts(shapecheck.check_model(strip_value_info(m)))


def _symbol_model():
    return model([node("ScatterND", ["d", "i", "u"], ["y"], "nd"), node("Relu", ["y"], ["z"], "relu")],
                 [vi("d", FLOAT, ["N", 4]), vi("i", INT64, ["K", 1]), vi("u", FLOAT, ["K", 4])],
                 [vi("z", FLOAT, None)], value_info=[vi("y", FLOAT, ["M", 4])])


def test_json_has_declarations_and_input_sources(capsys, tmp_path):
    import json
    onnx.save(stale_transpose_model(), str(tmp_path / "m.onnx"))
    main(["check", "--json", str(tmp_path / "m.onnx")])
    doc = json.loads(capsys.readouterr().out)
    (d,) = doc["declarations"]
    assert d == {"tensor": "t", "node": "tr", "kind": "value_info", "declared": "float[2,3]",
                 "inferred": "float[3,2]", "status": "contradicts", "severity": "warning",
                 "message": d["message"], "fix": "declare 't' as float[3,2]"}
    assert doc["nodes"][1]["inputs"]["data"]["source"] == "inferred"
    assert doc["nodes"][1]["inputs"]["updates"]["source"] == "declared"


def test_a_declarations_headline_says_what_happened_not_its_status_word():
    """A new user's trial: an EfficientNet export's note ended in the bare word 'condition'."""
    from shapecheck.report.text import declaration_lines
    from shapecheck.model.reports import DeclarationReport
    d = DeclarationReport("out", "/Mul", "graph output", "float[N,4]", "float[M,4]", "condition", "info",
                          "the graph output of 'out' names its dims differently from inference; valid only if N == M",
                          "declare 'out' as float[M,4]")
    label, lines = declaration_lines(d)
    assert label == "note" and lines[0] == "note[declaration]: graph output 'out' (produced by /Mul): declaration holds only under a condition"
    d.status, d.severity = "contradicts", "error"
    assert declaration_lines(d)[1][0].endswith("): declaration contradicts inference")


@pytest.mark.parametrize("dims, status, shown", [
    (None, "condition", "Min(64, seq) == seq"),   # the claim holds where seq <= 64
    ({"seq": 65, "frames": 9}, "contradicts", "declared float[64,3] but inference gives float[65,3]"),
    ({"seq": 8}, "agrees", ""),
])
def test_a_capped_dim_param_is_read_as_its_min_and_bound_at_the_sizes_given(dims, status, shown):
    # torch writes a capped size as Min(64, seq): it was read as one opaque name, which --dims left
    # unbound (a contradiction over 'Min(64, seq)' at seq = 65); now it is sympy's Min, evaluated where
    # the sizes are given, floors with it
    from onnx import TensorProto as T
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["y"], ["z"])], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["seq", "((frames - 1)//4) + 1"])],
                          [helper.make_tensor_value_info("z", T.FLOAT, None)],
                          value_info=[helper.make_tensor_value_info("y", T.FLOAT, ["Min(64, seq)", "((frames - 1)//4) + 1"])])
    report = shapecheck.check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), dims=dims)
    got = decl(report, "y")
    assert got.status == status and shown in got.message
    assert not any("Min(64, seq)" in s.name for t in report.types.values() for d in t.shape or ()
                   for s in getattr(d, "free_symbols", ()))


def test_a_graph_output_declared_at_the_export_size_is_a_warning(capsys, tmp_path):
    """torch's dynamo exporter declared an LSTM model's output float[batch,7,4] (7: the sample's
    sequence) for an input of dynamic seq: a note that it 'names its dims differently'.  It is a
    warning: every reader of the declared shape is wrong at another seq (onnxruntime runs the model at
    seq = 9, warning that the output's shape does not match); a value_info's stays a note."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto as T
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["y"], ["z"])], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 4])],
                          [helper.make_tensor_value_info("z", T.FLOAT, ["batch", 7, 4])],
                          value_info=[helper.make_tensor_value_info("y", T.FLOAT, ["batch", 7, 4])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), path)
    report = shapecheck.check_model(str(path))
    out, mid = decl(report, "z"), decl(report, "y")
    assert (out.status, out.severity, mid.status, mid.severity) == ("condition", "warning", "condition", "info")
    assert out.message == ("the graph output 'z' is declared float[batch,7,4] but inference gives float[batch,seq,4]: "
                           "the declaration holds only where seq == 7"), out.message
    assert main(["check", str(path)]) == 0 and "warning[declaration]: graph output 'z'" in capsys.readouterr().err
    assert main(["check", "--strict", str(path)]) == 1
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": np.zeros((2, 9, 4), np.float32)})
    assert got[0].shape == (2, 9, 4)


def _rolled(declared):
    """x[N] split at a run-time index and joined back in the other order (torch.roll as dynamo exports
    it): each part's length is known only at run time, and their sum is N; ``declared`` is the
    value_info of the join."""
    nodes = [node("Slice", ["x", "at", "end"], ["tail"]), node("Slice", ["x", "zero", "at"], ["head"]),
             node("Concat", ["tail", "head"], ["rolled"], axis=0), node("Add", ["rolled", "x"], ["y"])]
    return model(nodes, [vi("x", FLOAT, ["N"]), vi("at", INT64, [1])], [vi("y", FLOAT, None)],
                 initializers=[const("end", [2 ** 62]), const("zero", [0])],
                 value_info=[vi("rolled", FLOAT, declared)] if declared else [])


def test_a_declaration_fills_in_a_dim_computed_from_unknown_dims(tmp_path):
    # found on a dynamo export of torch.roll: the value_info's (right) [B,H,W,4] was a condition over
    # the slices' unknown lengths ('valid only if H == val_23.shape[1] + val_24.shape[1]'), its fix said
    # to declare '?', and --output wrote '?' over the declared dims
    rep = shapecheck.check_model(_rolled(["N"]))
    d = decl(rep, "rolled")
    assert (d.status, d.severity, d.inferred) == ("refines", "info", "float[?]")
    (add,) = [n for n in rep.nodes if n.op_type == "Add"]
    assert add.status == "valid" and not rep.domain.relations
    assert "shape[" not in rep.domain.text()
    out = tmp_path / "annotated.onnx"
    shapecheck.check_model(_rolled(["N"]), output=str(out))
    (info,) = [v for v in onnx.load(str(out)).graph.value_info if v.name == "rolled"]
    assert [x.dim_param for x in info.type.tensor_type.shape.dim] == ["N"]
    # without the declaration the Add's condition is over the unknown lengths: stated, not taken as met
    (bare,) = [n for n in shapecheck.check_model(_rolled(None)).nodes if n.op_type == "Add"]
    assert bare.status == "conditional"


def test_a_declaration_wrong_at_the_sizes_given_is_fixed_by_the_type_of_every_size():
    # a new user's trial (a dynamo GRU export declared its output float[B,9,8]): at --dims B=2,T=12 the
    # fix said "declare 'y' as float[2,12,8]", a type that holds at those sizes only
    m = model([node("Identity", ["x"], ["y"])], [vi("x", FLOAT, ["N", "T"])], [vi("y", FLOAT, ["N", 9])])
    d = decl(shapecheck.check_model(m, dims="N=2,T=12"), "y")
    assert d.status == "contradicts" and d.fix == "declare 'y' as float[N,T]"
    assert decl(shapecheck.check_model(m), "y").status == "condition"   # T == 9, without the sizes


def test_a_name_no_input_declares_is_defined_inside_a_multiple():
    # a new user's trial on a dynamo Swin export (input [B,3,32*h,32*w]): torch's own names in the
    # value_infos (float[B,16,8*s39,8*s94]) made 45 notes 'valid only if s39 == h, s94 == w'
    nodes = [node("Identity", ["x"], ["a"]), node("Identity", ["a"], ["b"]), node("Identity", ["b"], ["c"])]
    infos = [vi("a", FLOAT, ["N", "8*s"]), vi("b", FLOAT, ["N", "8*s"]), vi("c", FLOAT, ["N", "2*s + 1"])]
    rep = shapecheck.check_model(model(nodes, [vi("x", FLOAT, ["N", "8*T"])], [vi("c", FLOAT, None)], value_info=infos))
    assert decl(rep, "a").status == "agrees" and decl(rep, "b").status == "agrees"   # s = T, defined by a
    assert decl(rep, "c").status == "contradicts"   # 2*T + 1 against 8*T, the name as a defined it: never equal
    # a multiple that does not divide what inference has defines nothing: a condition, as before
    odd = model([node("Identity", ["x"], ["a"])], [vi("x", FLOAT, ["N", "T + 1"])], [vi("a", FLOAT, None)],
                value_info=[vi("a", FLOAT, ["N", "2*s"])])
    assert decl(shapecheck.check_model(odd), "a").status == "condition"
