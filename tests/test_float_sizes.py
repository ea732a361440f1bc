"""Sizes held in float (``functions/float_sizes.py``) against onnxruntime.

TorchScript exports Python's float arithmetic on sizes as ONNX float ops: ``math.ceil(h / 2)`` is
``Ceil(Div(Cast(h, float), 2.0))``.  Random chains of such ops over a size of a graph input are
checked here: where shapecheck gives the chain's value (a dim over the input's size), it is the
value onnxruntime computes at every size tried; where the arithmetic would round (a division by 3,
a fraction added), it gives none.
"""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import sympy
from hypothesis import HealthCheck, given, settings, strategies as st
from onnx import TensorProto as T, helper, numpy_helper

import shapecheck
from shapecheck.dims import symbol

SIZES = (1, 2, 3, 5, 7, 8, 15, 16, 17, 63, 64, 65, 1000, 4097, 65535)
STEP = st.one_of(st.tuples(st.sampled_from(["Add", "Sub", "Mul", "Div"]), st.sampled_from([1.0, 2.0, 3.0, 4.0, 0.5, 8.0])),
                 st.tuples(st.sampled_from(["Floor", "Ceil"]), st.none()))


def _chain(steps: list, dtype: int = T.FLOAT) -> onnx.ModelProto:
    """``x: float[N]``; ``N`` cast to float (``dtype``), then ``steps``, then cast to int64: output ``y``."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
             helper.make_node("Cast", ["n"], ["f0"], to=dtype)]
    inits = [numpy_helper.from_array(np.array(0, np.int64), "zero")]
    np_dtype = np.float32 if dtype == T.FLOAT else np.float64
    for k, (op, c) in enumerate(steps):
        if c is None:
            nodes.append(helper.make_node(op, [f"f{k}"], [f"f{k + 1}"]))
        else:
            inits.append(numpy_helper.from_array(np.array(c, np_dtype), f"c{k}"))
            nodes.append(helper.make_node(op, [f"f{k}", f"c{k}"], [f"f{k + 1}"]))
    nodes.append(helper.make_node("Cast", [f"f{len(steps)}"], ["y"], to=T.INT64))
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", T.FLOAT, ["N"])],
                          [helper.make_tensor_value_info("y", T.INT64, [])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _value(model: onnx.ModelProto):
    """The output's value as a dim over the input's size ``N``; None where it has none (no value,
    or a fresh size known only at run time)."""
    sym = shapecheck.check_model(model).types["y"].sym
    if sym is None or not all(isinstance(e, int) or sympy.sympify(e).free_symbols <= {symbol("N")} for e in sym):
        return None
    return sym


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(STEP, min_size=1, max_size=4), st.sampled_from([T.FLOAT, T.DOUBLE]))
def test_a_size_computed_in_float_is_the_value_onnxruntime_computes(steps, dtype):
    model = _chain(steps, dtype)
    got = _value(model)
    if got is None:
        return
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    n = symbol("N")
    for size in SIZES:
        want = int(sess.run(None, {"x": np.zeros(size, np.float32)})[0])
        assert int(sympy.sympify(got[0]).subs(n, size)) == want, (steps, got, size)


def test_math_ceil_of_a_halved_size_keeps_its_value():
    """MobileViT's ``math.ceil(w / 2) * 2`` over a patch grid, exported by the tracer."""
    got = _value(_chain([("Div", 2.0), ("Ceil", None), ("Mul", 2.0)]))
    assert got is not None and str(got[0]) == "2*ceiling(N/2)"


def test_float_arithmetic_that_rounds_keeps_no_value():
    # a third of a size is rounded in float; a fraction added leaves a value that is not a size
    assert _value(_chain([("Div", 3.0), ("Floor", None)])) is None
    assert _value(_chain([("Add", 0.5)])) is None
    # a half cast back to an integer type is truncated: its value would need the sign, and is not kept
    assert _value(_chain([("Div", 2.0)])) is None
