"""What a Loop body needs is needed wherever the model runs when the body runs at least once: a trip
count of at least 1 and no condition (``control_flow.unconditional``).  Found by a new user's trial:
a Reshape ``[0, -1, 4]`` of an outer ``x[B, 1, 4]`` inside a Loop (torch's ``repeat_interleave``
exports one) was stated as ``valid for: B >= 0`` with ``assume_nonempty=False``, and at B = 0 the
check crashed on ``0 == nan`` (the -1 is 0/0); onnxruntime refuses B = 0.  Each verdict here is
compared with onnxruntime's."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

from shapecheck import check_model
from tests.harness.runtime import run_model



def _loop(trip: str, extra_inputs=()) -> onnx.ModelProto:
    body = h.make_graph([h.make_node("Identity", ["cond_in"], ["cond_out"]),
                         h.make_node("Constant", [], ["shp"], value=nh.from_array(np.array([0, -1, 4], np.int64), "v")),
                         h.make_node("Reshape", ["x", "shp"], ["r"])],
                        "body", [h.make_tensor_value_info("i", TP.INT64, []), h.make_tensor_value_info("cond_in", TP.BOOL, [])],
                        [h.make_tensor_value_info("cond_out", TP.BOOL, []), h.make_tensor_value_info("r", TP.FLOAT, None)])
    nodes = [h.make_node("Loop", [trip, ""], ["rs"], body=body)]
    inits = []
    if trip == "M":
        inits.append(nh.from_array(np.array(2, np.int64), "M"))
    else:   # the trip count is the length of another input, which may be 0
        nodes[:0] = [h.make_node("Shape", ["y"], ["sy"]), h.make_node("Squeeze", ["sy"], ["n"])]
    inputs = [h.make_tensor_value_info("x", TP.FLOAT, ["B", 1, 4]), *extra_inputs]
    g = h.make_graph(nodes, "g", inputs, [h.make_tensor_value_info("rs", TP.FLOAT, None)], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def _runs(m: onnx.ModelProto, feeds: dict) -> bool:
    return run_model(m, feeds) is not None


def test_a_body_that_always_runs_needs_what_it_needs_everywhere():
    m = _loop("M")
    report = check_model(m, assume_nonempty=False)
    assert report.domain.text() == "B >= 1"
    for b in range(4):
        assert report.domain.admits({"B": b}) is _runs(m, {"x": np.zeros((b, 1, 4), np.float32)}), b


def test_at_the_empty_size_it_is_invalid_not_a_crash():
    at0 = check_model(_loop("M"), assume_nonempty=False, dims={"B": 0})
    assert at0.failed and [n.op_type for n in at0.nodes if n.status == "invalid"] == ["Reshape"]


def test_a_body_that_may_not_run_needs_it_only_where_it_runs():
    # trip count N, the length of y: at N = 0 the body never runs, and B = 0 is fine
    m = _loop("n", [h.make_tensor_value_info("y", TP.FLOAT, ["N"])])
    report = check_model(m, assume_nonempty=False)
    assert report.domain.admits({"B": 0, "N": 0}) is True
    assert _runs(m, {"x": np.zeros((0, 1, 4), np.float32), "y": np.zeros((0,), np.float32)})
    assert not _runs(m, {"x": np.zeros((0, 1, 4), np.float32), "y": np.zeros((2,), np.float32)})
    assert "B != 0" in [r.text for r in report.domain.relations]   # stated, as where the body runs


# torch 2.13: torch.onnx.export(M(), (torch.randn(2, 5, 4), torch.tensor([1, 2, 0, 3, 1])), path, opset_version=17,
#   dynamo=False, input_names=["x", "r"], output_names=["out"], dynamic_axes={"x": {0: "B", 1: "T"}, "r": {0: "T"}})
# with M.forward(x, r) = torch.repeat_interleave(x, r, dim=1): a Loop over T whose body reshapes x to [0, -1, 4]
REPEAT_INTERLEAVE = str(__import__("pathlib").Path(__file__).parent / "data" / "repeat_interleave_ts17.onnx")


def test_torchs_repeat_interleave_at_an_empty_batch_is_invalid_not_a_crash():
    feeds = {"x": np.zeros((0, 3, 4), np.float32), "r": np.array([1, 2, 0], np.int64)}
    assert not _runs(onnx.load(REPEAT_INTERLEAVE), feeds)
    at0 = check_model(REPEAT_INTERLEAVE, assume_nonempty=False, dims={"B": 0, "T": 3})   # raised on 0 == nan
    assert at0.failed and "Reshape" in [n.op_type for n in at0.nodes if n.status == "invalid"]
    assert not check_model(REPEAT_INTERLEAVE, dims={"B": 2, "T": 3}).failed
