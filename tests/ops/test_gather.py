"""The gather ops (Gather, GatherElements, GatherND, OneHot): seeded random cases against the runtimes
(values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete and on
symbolic dims) and the rules' edges, and ONNX's own node tests (``tests/harness/node_cases.py``; the
per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.dims import is_unknown, symbol
from shapecheck.executor import run_spec
from shapecheck.registry import default_registry

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import compare_one, rng_for


ONEHOT_CASES = [(v, s) for v in (9, 11) for s in range(5)]


@pytest.mark.parametrize("opset,seed", ONEHOT_CASES, ids=[f"OneHot-{v}-{s}" for v, s in ONEHOT_CASES])
def test_onehot_matches_onnxruntime(opset, seed):
    rng = rng_for("onehot", opset, seed)
    depth = int(rng.integers(1, 6))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    idx = rng.integers(-depth - 1, depth + 2, size=shape).astype(np.int64)
    kind = seed % 3
    dv = np.array(depth, np.int64) if kind != 1 else np.array([depth + 0.6], np.float32)
    values = np.array([2, 9], np.float32 if kind != 2 else np.int64)
    axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
    compare_one("OneHot", opset, [("indices", idx), ("depth", dv), ("values", values)], {"axis": axis},
            valued=("depth",), out_dtype=values.dtype)


def test_onehot_depth_is_the_symbolic_value():
    r = shapecheck.infer("OneHot", 11, {"indices": "int64[N,S]", "depth": "int64[] = V", "values": "float[2]"})
    assert str(r.outputs["output"]) == "float[N,S,V]"
    r = shapecheck.infer("OneHot", 11, {"indices": "int64[N]", "depth": "int64[]", "values": "float[2]"}, {"axis": 0})
    d = r.outputs["output"].shape[0]
    assert is_unknown(d) and r.outputs["output"].shape[1:] == (symbol("N"),)


REG = default_registry()


def ours(name: str, inputs: dict, attrs: dict | None = None) -> np.ndarray:
    return run_spec(REG.get(name), inputs, attrs)[0]["output"]


def _shape(rng, max_dim: int = 4, ranks=(1, 3)) -> tuple[int, tuple[int, ...]]:
    """A random rank in ``ranks`` (inclusive) and a shape of dims in [1, max_dim]."""
    r = int(rng.integers(ranks[0], ranks[1] + 1))
    return r, tuple(int(d) for d in rng.integers(1, max_dim + 1, size=r))


def _values_of(rng, dtype, shape):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    return rng.integers(-9 if np.dtype(dtype).kind != "u" else 0, 10, size=shape).astype(dtype)


def _onnx_run(op: str, opset: int, arrays: dict, attrs: dict) -> tuple[np.ndarray, np.ndarray]:
    import onnxruntime as ort
    from onnx.reference import ReferenceEvaluator
    names = list(arrays)
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
           for n, a in arrays.items()]
    out_t = helper.np_dtype_to_tensor_dtype(arrays[names[0]].dtype)
    g = helper.make_graph([helper.make_node(op, names, ["y"], **attrs)], "g", ins,
                          [helper.make_tensor_value_info("y", out_t, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, arrays)[0], ReferenceEvaluator(m).run(None, arrays)[0]


@pytest.mark.parametrize("seed", range(24))
def test_gather_nd_matches_onnxruntime_and_reference(seed):
    rng = np.random.default_rng(600 + seed)
    opset = [11, 12, 13][seed % 3]
    b = int(rng.integers(0, 2)) if opset > 11 else 0
    r = int(rng.integers(b + 1, 4 + b))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=r))
    k = int(rng.integers(1, r - b + 1))
    mid = tuple(int(d) for d in rng.integers(1, 3, size=int(rng.integers(0, 2))))
    ishape = shape[:b] + mid + (k,)
    dims = np.asarray(shape[b:b + k])
    idx = (rng.random(ishape) * dims).astype(np.int64) - (dims if seed % 2 else 0)
    arrays = {"data": _values_of(rng, [np.float32, np.int64, np.bool_][seed % 3], shape), "indices": idx}
    attrs = {"batch_dims": b} if opset > 11 else {}
    got = ours(f"GatherND-{opset}", arrays, attrs)
    o, ref = _onnx_run("GatherND", opset, arrays, attrs)
    assert got.shape == o.shape == ref.shape
    np.testing.assert_array_equal(got, o)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("seed", range(24))
def test_gather_elements_matches_onnxruntime_and_reference(seed):
    rng = np.random.default_rng(700 + seed)
    opset = [11, 13][seed % 2]
    r, shape = _shape(rng)
    axis = int(rng.integers(-r, r))
    a = axis % r
    smaller = seed % 3 == 0      # indices smaller than data off the axis: onnxruntime only (runtime-findings Q21)
    ishape = tuple(int(rng.integers(1, 6)) if d == a else (int(rng.integers(1, shape[d] + 1)) if smaller else shape[d])
                   for d in range(r))
    idx = rng.integers(-shape[a], shape[a], size=ishape).astype([np.int64, np.int32][seed % 2])
    arrays = {"data": _values_of(rng, np.float32, shape), "indices": idx}
    got = ours(f"GatherElements-{opset}", arrays, {"axis": axis})
    o, ref = None, None
    try:
        o, ref = _onnx_run("GatherElements", opset, arrays, {"axis": axis})
    except ValueError as exc:
        # onnx.reference wants equal dims off the axis, and compares a negative axis against
        # non-negative dims, so it also fails when the axis dim differs (runtime-findings Q21)
        assert (smaller or (axis < 0 and ishape[a] != shape[a])) and "same size" in str(exc)
        o = _ort_only("GatherElements", opset, arrays, {"axis": axis})
    np.testing.assert_array_equal(got, o)
    if ref is not None:
        np.testing.assert_array_equal(got, ref)


def _ort_only(op, opset, arrays, attrs):
    import onnxruntime as ort
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
           for n, a in arrays.items()]
    g = helper.make_graph([helper.make_node(op, list(arrays), ["y"], **attrs)], "g", ins,
                          [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(arrays["data"].dtype), None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, arrays)[0]


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("gather")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 15


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "gather")
