"""A Loop's iteration number is 0 to M - 1 (``model/body_inputs._iteration``): a body that indexes a
table by it needs M to fit the table.  A new user's trial: ``Gather(w, i + 2)`` with w of 10 rows in a
loop of N iterations was ``valid for: N >= 1`` (a runtime-check note), and onnxruntime fails at 9."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto as T, helper, numpy_helper

import shapecheck
from tests.harness.runtime import run_model


def _loop(cond: str):
    body = helper.make_graph([
        helper.make_node("Add", ["i", "two"], ["j"]),
        helper.make_node("Gather", ["w", "j"], ["row"], axis=0, name="take"),
        helper.make_node("ReduceSum", ["row"], ["rs"], keepdims=0),
        helper.make_node("Add", ["acc", "rs"], ["acc_out"]),
        helper.make_node("Identity", ["cond"], ["cond_out"])], "body",
        [helper.make_tensor_value_info("i", T.INT64, []), helper.make_tensor_value_info("cond", T.BOOL, []),
         helper.make_tensor_value_info("acc", T.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", T.BOOL, []), helper.make_tensor_value_info("acc_out", T.FLOAT, [])])
    g = helper.make_graph([
        helper.make_node("Shape", ["x"], ["s"], start=0, end=1),
        helper.make_node("Squeeze", ["s"], ["n"]),
        helper.make_node("Loop", ["n", cond, "zero"], ["out"], body=body)], "g",
        [helper.make_tensor_value_info("x", T.FLOAT, ["N", 2]), helper.make_tensor_value_info("c", T.BOOL, [])],
        [helper.make_tensor_value_info("out", T.FLOAT, [])],
        [numpy_helper.from_array(np.ones((10, 3), np.float32), "w"), numpy_helper.from_array(np.array(2, np.int64), "two"),
         numpy_helper.from_array(np.array(0.0, np.float32), "zero")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def _runs(m, n: int) -> bool:
    return run_model(m, {"x": np.ones((n, 2), np.float32), "c": np.array(True)}) is not None


def test_a_for_loop_indexing_a_table_by_its_counter_is_bounded_by_the_table():
    m = _loop("")
    rep = shapecheck.check_model(m)
    assert rep.domain.text() == "1 <= N <= 8"
    assert [r.sources[0].constants for r in rep.domain.relations] == [("initializer 'w' float[10,3]",)]
    for n in range(1, 12):
        assert rep.domain.admits({"N": n}) is _runs(m, n), n
    assert shapecheck.check_model(m, dims="N=9").exit_code == 1


def test_a_loop_its_condition_may_end_early_states_no_top():
    m = _loop("c")   # a while loop: the counter need not reach N - 1, so it bounds nothing here
    rep = shapecheck.check_model(m)
    assert rep.domain.text() == "N >= 1" and _runs(m, 9) is False
    (take,) = [n for n in rep.nodes if n.name.endswith("take")]
    assert take.runtime_checks == ["C5"]   # left to the runtime, as it checks it
