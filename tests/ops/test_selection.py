"""The selection ops (TopK, NonZero, Unique, Compress, CumSum, Trilu): seeded random cases against the
runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete and
on symbolic dims) and the rules' edges, ONNX's own node tests (``tests/harness/node_cases.py``; the
per-op quirks are ``tests/ops/quirks.py``'s), and odd queries, which end in a result or a usage
error."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto

import shapecheck
from shapecheck.dims import is_unknown
from shapecheck.errors import ConstraintError

from tests.harness.node_cases import check_node_case, family_cases, family_specs
from tests.harness.queries import check_odd_queries
from tests.harness.runtime import check_against_ort, code, compare, random_shape, rng_for, run_ort, type_of


UNIQUE_CASES = list(range(12))


@pytest.mark.parametrize("seed", UNIQUE_CASES, ids=[f"Unique-11-{s}" for s in UNIQUE_CASES])
def test_unique_matches_onnxruntime(seed):
    rng = rng_for("unique", seed)
    rank = int(rng.integers(0, 4))
    shape = tuple(int(d) for d in rng.integers(0 if seed % 4 == 0 else 1, 4, size=rank))
    dt = [np.float32, np.int64, np.int8, np.float64][seed % 4]       # onnxruntime has no int32 Unique
    x = rng.integers(0, 3, size=shape).astype(dt)
    attrs: dict = {"sorted": int(rng.integers(0, 2))}
    if rank and rng.random() < 0.5:
        attrs["axis"] = int(rng.integers(-rank, rank))
    I64 = code(np.int64)
    want = compare("Unique", 11, [("X", x)], attrs, [code(dt), I64, I64, I64], fresh=True)
    # with X a constant the solver counts u exactly
    r = shapecheck.infer("Unique", 11, {"X": type_of(x, valued=x.ndim <= 1 and x.size <= 64)}, attrs)
    if x.ndim == 1:
        assert r.outputs["Y"].shape == want[0].shape and r.outputs["counts"].shape == want[3].shape


def test_unique_shares_one_fresh_count():
    r = shapecheck.infer("Unique", 11, {"X": "float[N,4]"}, {"axis": -1})
    u = r.outputs["Y"].shape[1]
    # a run-time size, named after its spec label and bounded by the axis it counts along
    assert r.status == "valid" and str(r.outputs["Y"]) == "float[N,unique]" and str(r.outputs["inverse_indices"]) == "int64[4]"
    assert u.upper == 4
    assert r.outputs["indices"].shape == (u,) and r.outputs["counts"].shape == (u,)
    assert str(shapecheck.infer("Unique", 11, {"X": "int64[5] = [3, 1, 3, 3, 2]"}).outputs["Y"]) == "int64[3]"


COMPRESS_CASES = [(v, s) for v in (9, 11) for s in range(8)]


@pytest.mark.parametrize("opset,seed", COMPRESS_CASES, ids=[f"Compress-{v}-{s}" for v, s in COMPRESS_CASES])
def test_compress_matches_onnxruntime(opset, seed):
    rng = rng_for("compress", opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 4))
    x = rng.standard_normal(shape).astype([np.float32, np.int64][seed % 2])
    attrs = {"axis": int(rng.integers(-rank, rank))} if rng.random() < 0.7 else {}
    n = int(np.prod(shape)) if not attrs else shape[attrs["axis"]]
    cond = rng.random(int(rng.integers(0, n + 1))) < 0.6
    want = compare("Compress", opset, [("input", x), ("condition", cond)], attrs, [code(x.dtype)], fresh=True)
    r = shapecheck.infer("Compress", opset, {"input": type_of(x), "condition": type_of(cond, valued=True)}, attrs)
    assert r.status == "valid" and r.outputs["output"].shape == want[0].shape      # a constant condition is counted


def test_compress_longer_condition_is_refuted():
    x, cond = np.zeros((3, 2), np.float32), np.array([True, False, True, True])
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("Compress", 11, {"input": x, "condition": cond}, {"axis": 0})
    assert exc.value.constraint == "C4"
    assert run_ort("Compress", 11, [("input", x), ("condition", cond)], {"axis": 0}, [code(np.float32)])[0].shape == (2, 2)


I64 = TensorProto.INT64


def _distinct(rng, shape, dtype):
    """Values without ties (the order of equal values is the runtime's choice in TopK)."""
    n = int(np.prod(shape))
    return (rng.permutation(n) - n // 2).reshape(shape).astype(dtype)


@pytest.mark.parametrize("seed", range(16))
def test_topk_matches_onnxruntime(seed):
    rng = np.random.default_rng(300 + seed)
    opset = [1, 10, 11, 24][seed % 4]
    rank = int(rng.integers(1, 4))
    shape = tuple(int(x) for x in rng.integers(1, 5, size=rank))
    dtype = rng.choice([np.float32, np.int64, np.int32]) if opset >= 11 else np.float32
    x = _distinct(rng, shape, dtype)
    axis = int(rng.integers(-rank, rank))
    k = int(rng.integers(0, shape[axis] + 1))
    out_types = [TensorProto.FLOAT if dtype == np.float32 else (I64 if dtype == np.int64 else TensorProto.INT32), I64]
    if opset == 1:
        check_against_ort("TopK", 1, [("X", x)], {"axis": axis, "k": k}, n_out=2, out_types=out_types)
        return
    attrs = {"axis": axis}
    if opset >= 11:
        attrs["largest"] = int(rng.integers(0, 2))
    check_against_ort("TopK", opset, [("X", x), ("K", np.array([k], np.int64))], attrs, n_out=2,
                      out_types=out_types, valued=("K",))


def test_topk_with_a_run_time_k_shares_one_fresh_symbol():
    r = shapecheck.infer("TopK", 11, {"X": "float[B,S]", "K": "int64[1]"})
    v, i = r.outputs["Values"].shape[1], r.outputs["Indices"].shape[1]
    assert is_unknown(v) and v is i
    r = shapecheck.infer("TopK", 11, {"X": "float[B,S]", "K": "int64[1] = [S]"})
    assert str(r.outputs["Values"]) == "float[B,S]" and r.status == "valid"


@pytest.mark.parametrize("seed", range(10))
def test_nonzero_matches_onnxruntime(seed):
    rng = np.random.default_rng(400 + seed)
    rank = int(rng.integers(1, 4))
    x = (rng.integers(0, 3, size=tuple(int(s) for s in rng.integers(0, 4, size=rank))) *
         (rng.random() < 0.9)).astype(rng.choice([np.float32, np.int32, np.bool_]))
    check_against_ort("NonZero", [9, 13][seed % 2], [("X", x)], {}, out_types=[I64], fresh=True)


def test_nonzero_count_is_a_fresh_symbol_per_node():
    a = shapecheck.infer("NonZero", 13, {"X": "float[N,M]"}).outputs["Y"].shape
    b = shapecheck.infer("NonZero", 13, {"X": "float[N,M]"}).outputs["Y"].shape
    assert a[0] == 2 and is_unknown(a[1]) and a[1] != b[1]


@pytest.mark.parametrize("seed", range(10))
def test_cumsum_matches_onnxruntime(seed):
    rng = np.random.default_rng(600 + seed)
    rank = int(rng.integers(1, 4))
    x = rng.integers(-5, 6, size=tuple(int(s) for s in rng.integers(0, 5, size=rank))).astype(
        rng.choice([np.float32, np.int32, np.int64, np.float64]))
    axis = np.array(int(rng.integers(-rank, rank)), dtype=rng.choice([np.int32, np.int64]))
    attrs = {"exclusive": int(rng.integers(0, 2)), "reverse": int(rng.integers(0, 2))}
    check_against_ort("CumSum", [11, 14][seed % 2], [("x", x), ("axis", axis)], attrs, valued=("axis",))


def test_cumsum_of_a_shape_tensor_keeps_its_dims():
    r = shapecheck.infer("CumSum", 14, {"x": "int64[3] = [N, 3, 4]", "axis": "int64[] = 0"}, {"exclusive": 1})
    assert str(r.outputs["y"]) == "int64[3] = [0, N, N+3]"


@pytest.mark.parametrize("seed", range(8))
def test_trilu_matches_onnxruntime(seed):
    rng = np.random.default_rng(700 + seed)
    rank = int(rng.integers(2, 4))
    x = rng.integers(-5, 6, size=tuple(int(s) for s in rng.integers(0, 5, size=rank))).astype(np.float32)
    k = None if seed % 3 == 0 else np.array(int(rng.integers(-4, 5)), np.int64)
    check_against_ort("Trilu", 14, [("input", x), ("k", k)], {"upper": int(rng.integers(0, 2))}, valued=("k",))


@pytest.mark.parametrize("op,opset,inputs,attrs,cid", [
    ("TopK", 11, {"X": np.zeros((3, 4), np.float32), "K": np.array([5])}, {}, "C4"),
    ("TopK", 11, {"X": np.zeros((3, 4), np.float32), "K": np.array(2)}, {}, "C3"),
    ("ArgMax", 13, {"data": np.zeros((0, 3), np.float32)}, {"axis": 0}, "C3"),
    ("CumSum", 14, {"x": np.zeros(3, np.float32), "axis": np.array(1)}, {}, "C4"),
    ("Trilu", 14, {"input": np.zeros(4, np.float32)}, {}, "C2"),
])
def test_what_onnxruntime_rejects_is_refuted(op, opset, inputs, attrs, cid):
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute(op, opset, inputs, attrs)
    assert exc.value.constraint == cid


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("selection")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 45


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "selection")


SPECS = family_specs("selection")


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_odd_queries_never_raise_anything_but_usage_errors(spec):
    check_odd_queries(spec)
