"""If, Loop and Scan through shapecheck.model.control_flow, confirmed by onnxruntime runs; run-time
sizes named and listed; no whole-graph onnx pass."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper

import shapecheck

FLOAT, INT64, BOOL = T.FLOAT, T.INT64, T.BOOL


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def model(nodes, inputs, outputs, opset=17, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def loop_body(grow: bool = False):
    """Body (i, cond, x) -> (cond, x + x, x) or (cond, concat(x, x[:1]), shape(x)): one carried value,
    one scan output (whose shape must not change between iterations: onnxruntime refuses that)."""
    nodes = [helper.make_node("Identity", ["c"], ["co"]), helper.make_node("Shape" if grow else "Identity", ["x"], ["so"])]
    if grow:
        nodes += [helper.make_node("Slice", ["x", "zero", "one", "zero"], ["head"]),
                  helper.make_node("Concat", ["x", "head"], ["xo"], axis=0)]
        inits = [helper.make_tensor("zero", INT64, [1], [0]), helper.make_tensor("one", INT64, [1], [1])]
    else:
        nodes.append(helper.make_node("Add", ["x", "x"], ["xo"]))
        inits = []
    return helper.make_graph(nodes, "body", [vi("i", INT64, []), vi("c", BOOL, []), vi("x", FLOAT, None)],
                             [vi("co", BOOL, []), vi("xo", FLOAT, None), vi("so", INT64 if grow else FLOAT, None)],
                             initializer=inits)


def loop_model(trip: int | None, with_cond: bool, grow: bool = False):
    inputs = [vi("x0", FLOAT, ["N", 4])]
    inits = []
    if trip is None:
        inputs.append(vi("M", INT64, []))
    else:
        inits.append(helper.make_tensor("M", INT64, [], [trip]))
    if with_cond:
        inits.append(helper.make_tensor("cond", BOOL, [], [True]))
    node = helper.make_node("Loop", ["M", "cond" if with_cond else "", "x0"], ["xf", "ys"], body=loop_body(grow))
    return model([node], inputs, [vi("xf", FLOAT, None), vi("ys", INT64 if grow else FLOAT, None)], inits=inits)


def run(m, feeds):
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))


@pytest.mark.parametrize("n", [2, 5])
def test_loop_with_constant_trip_count_has_exact_shapes(n):
    m = loop_model(3, with_cond=False)
    rep = shapecheck.check_model(m)
    assert str(rep.types["xf"]) == "float[N,4]" and str(rep.types["ys"]) == "float[3,N,4]"
    got = run(m, {"x0": np.ones((n, 4), np.float32)})
    assert got["xf"].shape == (n, 4) and got["ys"].shape == (3, n, 4)
    assert rep.symbols == [] and rep.coverage["by_op"]["Loop"] == {"subgraphs": 1}


def test_loop_trip_count_known_only_at_run_time_is_a_named_size():
    m = loop_model(None, with_cond=False)
    rep = shapecheck.check_model(m)
    assert str(rep.types["ys"]) == "float[trip_1,N,4]"
    assert rep.symbols == [{"name": "trip_1", "node": "Loop_0", "op_type": "Loop", "where": "ys.shape[0]",
                            "bounds": "0 <= trip_1"}]
    for k in (1, 2):
        assert run(m, {"x0": np.ones((3, 4), np.float32), "M": np.array(k, np.int64)})["ys"].shape == (k, 3, 4)
    # zero iterations: onnxruntime gives a scan output of shape [0], not [0, 3, 4] (docs/runtime-findings.md L17)
    assert run(m, {"x0": np.ones((3, 4), np.float32), "M": np.array(0, np.int64)})["ys"].shape == (0,)
    # with a condition the loop may stop early: at most M iterations, never exactly M
    rep = shapecheck.check_model(loop_model(3, with_cond=True))
    assert str(rep.types["ys"]) == "float[trip_1,N,4]" and rep.symbols[0]["bounds"] == "0 <= trip_1 <= 3"


def test_a_for_loop_over_a_dim_runs_that_dim_times():
    """torch's ``for i in range(x.shape[0])``: M = Shape(x)[0], the condition a constant true that the body
    hands back as Identity of the outer constant (no iteration can change it): the scan output has N rows.
    A body whose condition reads its own inputs may stop early: a run-time size, at most M."""
    body = helper.make_graph([helper.make_node("Identity", ["true"], ["co"]), helper.make_node("Add", ["x", "x"], ["xo"]),
                              helper.make_node("Identity", ["x"], ["so"])], "body",
                             [vi("i", INT64, []), vi("c", BOOL, []), vi("x", FLOAT, None)],
                             [vi("co", BOOL, []), vi("xo", FLOAT, None), vi("so", FLOAT, None)])
    nodes = [helper.make_node("Shape", ["x0"], ["s"]), helper.make_node("Gather", ["s", "zero"], ["M"], axis=0),
             helper.make_node("Loop", ["M", "true", "x0"], ["xf", "ys"], body=body)]
    inits = [helper.make_tensor("zero", INT64, [], [0]), helper.make_tensor("true", BOOL, [], [True])]
    m = model(nodes, [vi("x0", FLOAT, ["N", 4])], [vi("xf", FLOAT, None), vi("ys", FLOAT, None)], inits=inits)
    rep = shapecheck.check_model(m)
    assert str(rep.types["ys"]) == "float[N,N,4]" and rep.symbols == []
    for n in (1, 3):
        assert run(m, {"x0": np.ones((n, 4), np.float32)})["ys"].shape == (n, n, 4)
    # the condition computed from the iteration number (i < 2) can stop the loop: never claimed to be N
    m.graph.node[2].attribute[0].g.node[0].CopyFrom(helper.make_node("Less", ["i", "two"], ["co"]))
    m.graph.initializer.append(helper.make_tensor("two", INT64, [], [2]))
    rep = shapecheck.check_model(m)
    assert str(rep.types["ys"]).startswith("float[trip_") and run(m, {"x0": np.ones((3, 4), np.float32)})["ys"].shape == (3, 3, 4)


def test_loop_carried_value_that_grows_is_not_its_initial_shape():
    m = loop_model(2, with_cond=False, grow=True)
    rep = shapecheck.check_model(m)
    xf = rep.types["xf"]
    assert xf.dtype == "float" and len(xf.shape) == 2 and xf.shape[1] == 4
    assert str(xf) == "float[?,4]"   # N + 2 at run time: never claimed to be N
    assert str(rep.types["ys"]) == "int64[2,2]"
    got = run(m, {"x0": np.ones((3, 4), np.float32)})
    assert got["xf"].shape == (5, 4) and got["ys"].tolist() == [[3, 4], [4, 4]]


def test_two_run_time_sizes_never_share_a_name():
    nodes = [helper.make_node("NonZero", ["a"], ["na"]), helper.make_node("NonZero", ["b"], ["nb"])]
    m = model(nodes, [vi("a", BOOL, ["N"]), vi("b", BOOL, ["N"])], [vi("na", INT64, None), vi("nb", INT64, None)])
    rep = shapecheck.check_model(m)
    assert str(rep.types["na"]) == "int64[1,nnz_1]" and str(rep.types["nb"]) == "int64[1,nnz_2]"
    assert [s["bounds"] for s in rep.symbols] == ["0 <= nnz_1 <= N", "0 <= nnz_2 <= N"]
    # a model dim already called nnz_1 is never reused for a run-time size
    m2 = model(nodes, [vi("a", BOOL, ["nnz_1"]), vi("b", BOOL, ["nnz_1"])], [vi("na", INT64, None)])
    assert [s["name"] for s in shapecheck.check_model(m2).symbols] == ["nnz_2", "nnz_3"]


def scan_model():
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "xt"], ["so"]), helper.make_node("Identity", ["so"], ["yt"])], "body",
        [vi("s", FLOAT, ["N"]), vi("xt", FLOAT, ["N"])], [vi("so", FLOAT, ["N"]), vi("yt", FLOAT, ["N"])])
    node = helper.make_node("Scan", ["s0", "xs"], ["sf", "ys"], body=body, num_scan_inputs=1,
                            scan_output_axes=[1])
    return model([node], [vi("s0", FLOAT, ["N"]), vi("xs", FLOAT, ["S", "N"])],
                 [vi("sf", FLOAT, None), vi("ys", FLOAT, None)], opset=16)


@pytest.mark.parametrize("s,n", [(3, 2), (1, 4)])
def test_scan_outputs_stack_along_their_axis(s, n):
    m = scan_model()
    rep = shapecheck.check_model(m)
    assert str(rep.types["sf"]) == "float[N]" and str(rep.types["ys"]) == "float[N,S]"
    got = run(m, {"s0": np.zeros(n, np.float32), "xs": np.ones((s, n), np.float32)})
    assert got["sf"].shape == (n,) and got["ys"].shape == (n, s)


def if_model(else_cols: int):
    then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [], [vi("t", FLOAT, None)])
    other = helper.make_graph([helper.make_node("Slice", ["x", "zero", "cols", "one"], ["e"])], "else", [],
                              [vi("e", FLOAT, None)])
    inits = [helper.make_tensor("zero", INT64, [1], [0]), helper.make_tensor("one", INT64, [1], [1]),
             helper.make_tensor("cols", INT64, [1], [else_cols])]
    node = helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)
    return model([node], [vi("c", BOOL, []), vi("x", FLOAT, ["N", 4])], [vi("y", FLOAT, None)], inits=inits)


def test_if_with_a_condition_known_at_run_time_keeps_what_both_branches_agree_on():
    assert str(shapecheck.check_model(if_model(4)).types["y"]) == "float[N,4]"
    rep = shapecheck.check_model(if_model(2))
    assert str(rep.types["y"]) == "float[N,?]"
    x = np.ones((3, 4), np.float32)
    assert {run(if_model(2), {"c": np.array(c), "x": x})["y"].shape for c in (True, False)} == {(3, 4), (3, 2)}


def test_no_whole_graph_onnx_pass(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("check_model ran onnx's whole-graph shape inference")
    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", refuse)
    rep = shapecheck.check_model(loop_model(3, with_cond=False))
    assert str(rep.types["ys"]) == "float[3,N,4]"
    # a node without a spec still goes to onnx's per-node inference, and is counted
    nodes = [helper.make_node("Hardmax", ["x"], ["y"], axis=1)]
    rep = shapecheck.check_model(model(nodes, [vi("x", FLOAT, ["N", 4])], [vi("y", FLOAT, None)]))
    assert str(rep.types["y"]) == "float[N,4]"
