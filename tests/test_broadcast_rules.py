"""The symbolic broadcast rules against numpy's broadcasting, at every small value of their symbols."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.dims.broadcast import broadcast_result, never_one
from shapecheck.functions.shape import broadcast
from shapecheck.dims import is_unknown, symbol

N, S = symbol("N"), symbol("S")
PAIRS = [(sympy.Min(1, S), 16), (N, sympy.Min(1, S)), (N, N * sympy.Min(1, S)), (sympy.Min(64, S), S),
         (N, N), (N, 1), (sympy.Min(1, N * S), N)]


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}|{b}" for a, b in PAIRS])
def test_broadcast_result_is_numpys_wherever_numpy_broadcasts(a, b):
    (got,) = broadcast((a,), (b,))
    assert not is_unknown(got)
    for n, s in itertools.product(range(5), range(5)):
        env = {N: n, S: s}
        x, y = (int(sympy.sympify(d).subs(env)) for d in (a, b))
        try:
            want = np.broadcast_shapes((x,), (y,))[0]
        except ValueError:
            continue   # not broadcastable at these values: the spec's condition refuses them
        assert int(sympy.sympify(got).subs(env)) == want, (a, b, env)


H = symbol("H")
# a stride-2 Conv then a stride-2 ConvTranspose, added to the input (a UNet skip, TorchScript
# export): 2*ceil(H/2) is even, never 1, so it is the result wherever the two broadcast
UNET = 2 * sympy.floor(H / 2 - sympy.Rational(1, 2)) + 2


@pytest.mark.parametrize("a,b", [(UNET, H), (H, UNET), (N, 2 * S), (2 * sympy.ceiling(N / 2), N), (N + 2, S)])
def test_a_dim_that_is_never_one_is_the_broadcast_of_the_pair(a, b):
    (got,) = broadcast((a,), (b,))
    assert not is_unknown(got) and not got.has(sympy.Dummy)
    for n, s in itertools.product(range(12), range(12)):
        env = {N: n, S: s, H: n}
        x, y = (int(sympy.sympify(d).subs(env)) for d in (a, b))
        try:
            want = np.broadcast_shapes((x,), (y,))[0]
        except ValueError:
            continue
        assert int(sympy.sympify(got).subs(env)) == want, (a, b, env)


def test_two_dims_either_of_which_may_be_one_are_the_larger_or_zero():
    # N == S + 1, N == 1 (result S + 1) or S == 0 (result N): not one of the two, but one expression
    (got,) = broadcast((N,), (S + 1,))
    assert not is_unknown(got) and not got.has(sympy.Dummy)
    for n, s in itertools.product(range(6), range(6)):
        try:
            want = np.broadcast_shapes((n,), (s + 1,))[0]
        except ValueError:
            continue
        assert got.subs({N: n, S: s}) == want, (n, s)


def test_a_broadcast_of_two_input_dims_states_its_conditions_over_input_dims_as_onnxruntime_runs():
    # a trial's a[A,3] + b[B,3] then a concat with c[C,2]: the sum's rows were an unknown, and the
    # concat's condition named the sum's tensor (C == t.shape[0]); it is C == Max(A, B)
    import onnxruntime as ort
    from onnx import TensorProto, helper
    from shapecheck import check_model

    nodes = [helper.make_node("Add", ["a", "b"], ["t"]), helper.make_node("Concat", ["t", "c"], ["u"], axis=1)]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [d, w]) for n, d, w in (("a", "A", 3), ("b", "B", 3), ("c", "C", 2))]
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("u", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.log_severity_level = 4
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    for nonempty in (True, False):
        report = check_model(model, assume_nonempty=nonempty)
        assert "t.shape" not in report.domain.text(), report.domain.text()
        rows = report.types["u"].shape[0]
        ran = refused = 0
        for a, b, c in itertools.product(range(0 if not nonempty else 1, 5), repeat=3):
            sizes = {"A": a, "B": b, "C": c}
            if 0 in (max(a, b) * min(a, b, 1), c) and c != max(a, b) * min(a, b, 1):
                # onnxruntime's Concat skips an empty input's other dims (runtime-findings Q32); C4 follows the page
                assert report.domain.admits(sizes) is False, sizes
                continue
            try:
                out = session.run(None, {"a": np.zeros((a, 3), np.float32), "b": np.zeros((b, 3), np.float32),
                                         "c": np.zeros((c, 2), np.float32)})[0]
            except Exception:
                assert report.domain.admits(sizes) is False, sizes
                refused += 1
                continue
            assert report.domain.admits(sizes) is True, sizes
            assert out.shape[0] == sympy.sympify(rows).subs({symbol(k): v for k, v in sizes.items()}), (sizes, rows)
            ran += 1
        assert ran >= 10 and refused >= 10, (ran, refused)


coefficients = st.integers(-4, 4)
atoms = st.sampled_from([sympy.Integer(1), N, S, N * S, sympy.floor(N / 2), sympy.ceiling(S / 3),
                         sympy.floor((N - 1) / 2), sympy.Min(N, 3), sympy.Max(S, 2), N / 2])
dims = st.builds(lambda ts: sympy.Add(*(c * a for c, a in ts)), st.lists(st.tuples(coefficients, atoms), min_size=1, max_size=4))
POINTS = list(itertools.product(range(10), range(10)))


@settings(max_examples=400, deadline=None)
@given(dims)
def test_never_one_holds_at_every_point(d):
    # brute force: a dim said never to be 1 is not 1 at any small value of its symbols
    if never_one(d):
        for n, s in POINTS:
            assert d.subs({N: n, S: s}) != 1, (d, n, s)


@settings(max_examples=400, deadline=None)
@given(dims, dims)
def test_broadcast_result_is_numpys_on_random_dims(a, b):
    # brute force: wherever the two dims are sizes that broadcast, the proved result is numpy's
    got = broadcast_result(a, b)
    if got is None:
        return
    for n, s in POINTS:
        env = {N: n, S: s}
        x, y = (sympy.sympify(d).subs(env) for d in (a, b))
        if not (x.is_Integer and y.is_Integer and x >= 0 and y >= 0):
            continue   # not a size at this point
        try:
            want = np.broadcast_shapes((int(x),), (int(y),))[0]
        except ValueError:
            continue
        assert sympy.sympify(got).subs(env) == want, (a, b, got, env)


def test_a_unet_skip_of_a_strided_conv_and_its_transpose_has_the_size_onnxruntime_gives():
    # found on a TorchScript export of a UNet skip: the Add's output was an unknown dim, filled in
    # by the declaration's torch names; it is 2*ceil(H/2) wherever the model runs
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    from shapecheck import check_model

    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
             for n, s in (("dw", (8, 3, 3, 3)), ("uw", (8, 3, 2, 2)))]
    nodes = [helper.make_node("Conv", ["x", "dw"], ["d"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("ConvTranspose", ["d", "uw"], ["u"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Add", ["u", "x"], ["y"])]
    graph = helper.make_graph(nodes, "skip", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    report = check_model(model)
    (y,) = [t for name, t in report.types.items() if name == "y"]
    height = y.shape[2]
    assert not is_unknown(height) and not height.has(sympy.Dummy), y
    options = ort.SessionOptions()
    options.log_severity_level = 4
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    ran = 0
    for h in range(1, 12):
        admitted = report.domain.admits({"N": 1, "H": h})
        try:
            out = session.run(None, {"x": np.zeros((1, 3, h, 4), np.float32)})[0]
        except Exception:
            assert admitted is False, h   # odd heights above 1: the Add's two sizes differ
            continue
        assert admitted is True, h
        ran += 1
        assert out.shape[2] == height.subs(height.free_symbols.pop(), h), (h, out.shape)
    assert ran >= 6
