"""TopK (1, 10, 11, 24), NonZero (9, 13), ArgMax/ArgMin (1, 11, 12, 13), CumSum (11, 14) and
Trilu (14) against onnxruntime on seeded random cases: shapecheck.execute's values and the
solver's output types (concrete and symbolic dims) must be the run's; NonZero's count is a fresh
symbol per node."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto

import shapecheck
from shapecheck.errors import ConstraintError
from shapecheck.dims import is_unknown

from .ort_kit import check_against_ort

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


@pytest.mark.parametrize("seed", range(16))
def test_argmax_argmin_match_onnxruntime(seed):
    rng = np.random.default_rng(500 + seed)
    op = ["ArgMax", "ArgMin"][seed % 2]
    opset = [1, 11, 12, 13][(seed // 2) % 4]
    rank = int(rng.integers(1, 4))
    shape = tuple(int(x) for x in rng.integers(1, 5, size=rank))
    x = rng.integers(-2, 3, size=shape).astype(rng.choice([np.float32, np.int32, np.int64]))   # ties on purpose
    attrs = {"axis": int(rng.integers(-rank, rank)), "keepdims": int(rng.integers(0, 2))}
    if opset >= 12:
        attrs["select_last_index"] = int(rng.integers(0, 2))
    check_against_ort(op, opset, [("data", x)], attrs, out_types=[I64])


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
