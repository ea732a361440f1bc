"""One root cause, one finding, and a domain that says when no input size is valid.

A Conv whose kernel is larger than its input is invalid at every size: its output is empty
(``[N,8,0,0]``), and the Conv it feeds would be invalid only because of it.  What an invalid node
makes empty is not checked downstream (as what it leaves unknown is not), and a model with a node
that always runs and is invalid at every size is valid for no input size.  An invalid node whose
output it still defines from inputs the violation is not about (a ScatterND's is data's type)
feeds on as before: the errors downstream are causes of their own.  A node in a branch that may
not run does not empty the domain.  A declaration that fills in what inference leaves unknown is one
note, and none for an invalid node's output.
"""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T, helper, numpy_helper

import shapecheck
from shapecheck.cli import main


def _convs(kernel: int, size: int = 4) -> onnx.ModelProto:
    w1 = numpy_helper.from_array(np.zeros((8, 3, kernel, kernel), np.float32), "w1")
    w2 = numpy_helper.from_array(np.zeros((8, 8, 3, 3), np.float32), "w2")
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], name="conv1"),
             helper.make_node("Relu", ["a"], ["r"], name="relu"),
             helper.make_node("Conv", ["r", "w2"], ["y"], name="conv2")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N", 3, size, size])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)], [w1, w2])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_an_empty_output_of_an_invalid_conv_is_not_checked_downstream():
    rep = shapecheck.check_model(_convs(kernel=5))
    status = {n.name: n.status for n in rep.nodes}
    assert status == {"conv1": "invalid", "relu": "unchecked", "conv2": "unchecked"}
    assert [v.constraint for n in rep.nodes for v in n.violations] == ["C9"]
    assert rep.summary["fed_by_invalid"] == 2 and rep.exit_code == 1
    # onnxruntime refuses the model too: the one finding is the one to fix
    with pytest.raises(Exception):
        ort.InferenceSession(_convs(kernel=5).SerializeToString()).run(None, {"x": np.zeros((1, 3, 4, 4), np.float32)})


def test_a_node_invalid_at_every_size_leaves_no_input_size(capsys, tmp_path):
    rep = shapecheck.check_model(_convs(kernel=5))
    assert rep.domain.invalid_nodes == ["conv1"] and not rep.domain.valid
    assert rep.domain.text() == "no input size" and rep.domain.admits({"N": 1}) is False
    assert rep.domain.to_dict()["valid"] is False
    path = tmp_path / "convs.onnx"
    onnx.save(_convs(kernel=5), str(path))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "valid for: no input size: node 'conv1' is invalid at every size\n" in out and "N >= 1" not in out


def test_a_model_that_runs_keeps_its_domain():
    rep = shapecheck.check_model(_convs(kernel=3, size=8))
    assert rep.exit_code == 0 and rep.domain.valid and rep.domain.invalid_nodes == []
    assert rep.domain.text() == "N >= 1"
    y = ort.InferenceSession(_convs(kernel=3, size=8).SerializeToString()).run(
        None, {"x": np.zeros((2, 3, 8, 8), np.float32)})[0]
    assert str(rep.types["y"]) == "float[N,8,4,4]" and y.shape == (2, 8, 4, 4)


def test_an_invalid_scatter_still_feeds_the_next_node_its_data_type():
    # ScatterND's output is data's type whatever its updates are: a second, independent defect
    # downstream is a finding of its own
    data = helper.make_tensor_value_info("data", T.FLOAT, [4, 4])
    nodes = [helper.make_node("ScatterND", ["data", "idx", "upd"], ["s"], name="scatter"),
             helper.make_node("MatMul", ["s", "w"], ["y"], name="matmul")]
    g = helper.make_graph(nodes, "g", [data, helper.make_tensor_value_info("idx", T.INT64, [2, 1]),
                                       helper.make_tensor_value_info("upd", T.FLOAT, [2, 3]),
                                       helper.make_tensor_value_info("w", T.FLOAT, [5, 2])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)])
    rep = shapecheck.check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    assert {n.name: n.status for n in rep.nodes} == {"scatter": "invalid", "matmul": "invalid"}
    assert rep.domain.invalid_nodes == ["scatter", "matmul"]


def test_an_invalid_node_in_a_branch_does_not_empty_the_domain():
    bad = numpy_helper.from_array(np.zeros((8, 3, 5, 5), np.float32), "wb")
    good = numpy_helper.from_array(np.zeros((8, 3, 1, 1), np.float32), "wg")
    then = helper.make_graph([helper.make_node("Conv", ["x", "wb"], ["t"], name="bad_conv")], "then", [],
                             [helper.make_tensor_value_info("t", T.FLOAT, None)])
    other = helper.make_graph([helper.make_node("Conv", ["x", "wg"], ["e"], name="good_conv")], "else", [],
                              [helper.make_tensor_value_info("e", T.FLOAT, None)])
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)],
                          "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N", 3, 4, 4]),
                                helper.make_tensor_value_info("c", T.BOOL, [])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)], [bad, good])
    rep = shapecheck.check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    assert any(n.name.endswith("bad_conv") and n.status == "invalid" for n in rep.nodes)
    assert rep.domain.invalid_nodes == [] and rep.domain.valid


def test_at_given_sizes_the_node_is_invalid_at_these_sizes_not_at_every_size(capsys, tmp_path):
    # a new user's trial: with --dims the line said 'invalid at every size' of a node valid at other sizes
    path = tmp_path / "convs.onnx"
    onnx.save(_convs(kernel=3, size=8), str(path))
    assert main(["check", str(path), "--dims", "N=1"]) == 0
    onnx.save(_convs(kernel=5), str(path))
    assert main(["check", str(path), "--dims", "N=1"]) == 1
    assert "valid for: not at N = 1: node 'conv1' is invalid there\n" in capsys.readouterr().out


def test_a_declaration_that_fills_in_an_invalid_nodes_output_does_not_feed_it_on():
    # an invalid Where leaves its output unknown; the exporter's value_info fills it in (a note), but
    # the tensor is still the invalid node's: the Add it feeds is not checked (it would be invalid
    # only because of it, a second finding of the one cause), as without the value_info
    def where_model(with_value_info: bool) -> onnx.ModelProto:
        nodes = [helper.make_node("Where", ["c", "x", "y"], ["w"], name="where"),
                 helper.make_node("Add", ["w", "b"], ["z"], name="add")]
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("c", T.BOOL, [1, 4]),
                                           helper.make_tensor_value_info("x", T.FLOAT, ["N", 5]),
                                           helper.make_tensor_value_info("y", T.FLOAT, []),
                                           helper.make_tensor_value_info("b", T.FLOAT, ["N", 5])],
                              [helper.make_tensor_value_info("z", T.FLOAT, None)],
                              value_info=[helper.make_tensor_value_info("w", T.FLOAT, ["N", 4])] if with_value_info else [])
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    for with_value_info in (False, True):
        rep = shapecheck.check_model(where_model(with_value_info))
        assert {n.name: n.status for n in rep.nodes} == {"where": "invalid", "add": "unchecked"}, with_value_info
        assert [v.constraint for n in rep.nodes for v in n.violations] == ["C3"]
    assert [d.status for d in rep.declarations if d.tensor == "w"] == ["refines"]


def _expand_declared(shape: list[int], op: str = "Expand", domain: str = "") -> onnx.ModelProto:
    """A 1x128 table expanded to ``shape`` (or given to ``op`` of ``domain``), its output declared of rank 2
    only (value_info dims without values or names, as torch writes for a dim it does not know)."""
    inits = [numpy_helper.from_array(np.zeros((1, 128), np.int64), "pos"),
             numpy_helper.from_array(np.array(shape, np.int64), "shape")]
    nodes = [helper.make_node(op, ["pos", "shape"], ["e"], name="expand", domain=domain),
             helper.make_node("Add", ["e", "x"], ["out"], name="add")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.INT64, ["batch", "seq"])],
                          [helper.make_tensor_value_info("out", T.INT64, None)], inits,
                          value_info=[helper.make_tensor_value_info("e", T.INT64, [None, None])])
    ops = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return helper.make_model(g, opset_imports=ops)


def test_what_a_declaration_fills_in_is_one_note_and_none_for_an_invalid_node(capsys, tmp_path):
    """A declaration that fills in an output inference leaves unknown is one note (it was stated twice:
    as the declaration and as its refinement); of an invalid node's output it is none: the node's
    error is the root cause (a torch export's Expand at a sequence past its table stated both notes)."""
    unknown = tmp_path / "unknown.onnx"
    onnx.save(_expand_declared([3, 200], op="MyExpand", domain="custom"), unknown)
    assert main(["check", str(unknown)]) == 0
    err = capsys.readouterr().err
    assert err.count("note[declaration]") == 1 and "fills in element type = int64, rank = 2" in err and "declaration-refines" not in err, err
    report = shapecheck.check_model(str(unknown))
    assert "refinement" in {a["kind"] for a in report.assumptions}   # still in the report's data
    invalid = tmp_path / "invalid.onnx"
    onnx.save(_expand_declared([3, 200]), invalid)
    assert main(["check", str(invalid)]) == 1
    err = capsys.readouterr().err
    assert "error[C2]" in err and "note[declaration" not in err, err
    with pytest.raises(Exception):   # onnxruntime refuses the Expand too
        ort.InferenceSession(str(invalid), providers=["CPUExecutionProvider"]).run(
            None, {"x": np.zeros((3, 200), np.int64)})
