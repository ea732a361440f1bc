"""What a control-flow node reads itself (``model/region_fit.misfed``), checked against onnxruntime: an
If's condition and a Loop's trip count and condition.  Before, an If was skipped as a node "without a
spec" and a float condition, or one of two elements, was reported OK where onnxruntime refuses it."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as T, helper

import shapecheck
from tests.harness.runtime import run_model

NP = {T.BOOL: np.bool_, T.FLOAT: np.float32, T.INT64: np.int64}


def _if(ctype, shape):
    then = helper.make_graph([helper.make_node("Identity", ["x"], ["a"])], "then", [],
                             [helper.make_tensor_value_info("a", T.FLOAT, None)])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["b"])], "else", [],
                              [helper.make_tensor_value_info("b", T.FLOAT, None)])
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], name="if", then_branch=then, else_branch=other)], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, [2]), helper.make_tensor_value_info("c", ctype, shape)],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def _loop(mtype, mshape):
    body = helper.make_graph([helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                              helper.make_node("Add", ["s_in", "one"], ["s_out"])], "body",
                             [helper.make_tensor_value_info("i", T.INT64, []), helper.make_tensor_value_info("cond_in", T.BOOL, []),
                              helper.make_tensor_value_info("s_in", T.FLOAT, [2])],
                             [helper.make_tensor_value_info("cond_out", T.BOOL, []), helper.make_tensor_value_info("s_out", T.FLOAT, [2])],
                             [helper.make_tensor("one", T.FLOAT, [], [1.0])])
    g = helper.make_graph([helper.make_node("Loop", ["m", "c", "x"], ["y"], name="loop", body=body)], "g",
                          [helper.make_tensor_value_info("m", mtype, mshape), helper.make_tensor_value_info("c", T.BOOL, []),
                           helper.make_tensor_value_info("x", T.FLOAT, [2])], [helper.make_tensor_value_info("y", T.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("ctype, shape", [(T.BOOL, []), (T.BOOL, [1]), (T.BOOL, [1, 1]), (T.BOOL, [2]), (T.BOOL, [0]),
                                          (T.FLOAT, []), (T.INT64, [1])])
def test_an_ifs_condition_is_one_bool_as_onnxruntime_needs(ctype, shape):
    m = _if(ctype, shape)
    runs = run_model(m, {"x": np.ones(2, np.float32), "c": np.ones(shape, NP[ctype])}) is not None
    rep = shapecheck.check_model(m)
    (node,) = [n for n in rep.nodes if n.name == "if"] or [None]
    assert (rep.exit_code == 0) == runs
    if not runs:
        assert node is not None and node.status == "invalid"
        assert node.violations[0].rule == "If's own inputs fit it"


@pytest.mark.parametrize("mtype, shape", [(T.INT64, []), (T.INT64, [1]), (T.FLOAT, []), (T.INT64, [3])])
def test_a_loops_trip_count_is_one_int64(mtype, shape):
    m = _loop(mtype, shape)
    feeds = {"m": np.full(shape, 2, NP[mtype]), "c": np.array(True), "x": np.zeros(2, np.float32)}
    out = run_model(m, feeds)
    rep = shapecheck.check_model(m)
    assert (rep.exit_code == 0) == (out is not None), [str(v) for n in rep.nodes for v in n.violations]
    if out is not None:
        assert out[0].tolist() == [2.0, 2.0]


def test_strict_fails_where_nothing_is_inferred_of_a_node():
    """A node with no spec and no inference to fall back on (a custom op; an OpenVINO IR layer outside the
    scatter family) leaves its outputs unknown: OK as a check of what has specs, FAILED under --strict."""
    g = helper.make_graph([helper.make_node("Foo", ["x"], ["y"], domain="my.ops"), helper.make_node("Relu", ["y"], ["z"])],
                          "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N"])],
                          [helper.make_tensor_value_info("z", T.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("my.ops", 1)])
    rep = shapecheck.check_model(m)
    assert rep.coverage["unknown"] == 1 and rep.exit_code == 0
    assert shapecheck.check_model(m, strict=True).exit_code == 1
    relu_only = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["z"])], "g",
                                                    [helper.make_tensor_value_info("x", T.FLOAT, ["N"])],
                                                    [helper.make_tensor_value_info("z", T.FLOAT, None)]),
                                  opset_imports=[helper.make_opsetid("", 18)])
    assert shapecheck.check_model(relu_only, strict=True).exit_code == 0
