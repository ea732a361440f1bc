"""The linear-algebra ops (MatMul, Gemm, Einsum, Det, MatMulInteger, FusedMatMul): seeded random cases
against the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on
concrete and on symbolic dims) and the rules' edges, and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.errors import ConstraintError, UsageError

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import (check_views, code, compare, compare_in_domain, compare_one, MS, randn, rng_for,
                                   run_ort)


def _array(rng, shape, dtype) -> np.ndarray:
    return rng.integers(0 if np.dtype(dtype).kind == "u" else -3, 4, size=shape).astype(dtype)


MATMUL = [(v, s) for v in (1, 9, 13) for s in range(8)]


@pytest.mark.parametrize("opset,seed", MATMUL, ids=[f"MatMul-{v}-{s}" for v, s in MATMUL])
def test_matmul_matches_onnxruntime(opset, seed):
    rng = rng_for("MatMul", opset, seed)
    k, m, n = (int(x) for x in rng.integers(1, 5, size=3))
    ra, rb = (int(x) for x in rng.integers(1, 5, size=2))
    batch = [int(x) for x in rng.integers(1, 4, size=max(ra, rb) - 2)] if max(ra, rb) > 2 else []
    def batch_of(r):   # the last r-2 batch dims, some set to 1 (broadcast)
        return [1 if rng.random() < 0.3 else d for d in batch[len(batch) - (r - 2):]] if r > 2 else []
    a_shape = batch_of(ra) + ([m] if ra >= 2 else []) + [k]
    b_shape = batch_of(rb) + [k] + ([n] if rb >= 2 else [])
    dtypes = [np.float32, np.float64] + ([np.int32, np.int64] if opset >= 9 else [])
    dt = dtypes[int(rng.integers(len(dtypes)))]
    check_views("MatMul", opset, [("A", _array(rng, a_shape, dt)), ("B", _array(rng, b_shape, dt))], {})


def test_matmul_inner_dims_must_agree():
    r = shapecheck.infer("MatMul", 13, {"A": "float[N,S,K]", "B": "float[K2,D]"})
    assert r.status == "conditional" and str(r.outputs["Y"]) == "float[N,S,D]"
    assert any("K2" in str(c) for c in r.conditions)
    assert shapecheck.infer("MatMul", 13, {"A": "float[2,3]", "B": "float[4,5]"}).status == "invalid"


GEMM = [(v, s) for v in (7, 9, 11, 13) for s in range(6)]


def _gemm_case(rng, opset: int, dt) -> tuple[list, dict]:
    m, k, n = (int(x) for x in rng.integers(1, 5, size=3))
    attrs = {"transA": int(rng.integers(2)), "transB": int(rng.integers(2))}
    if np.dtype(dt).kind == "f":
        attrs.update(alpha=float(rng.choice([1.0, 0.5, 2.0])), beta=float(rng.choice([1.0, 0.25, 3.0])))
    A = _array(rng, (k, m) if attrs["transA"] else (m, k), dt)
    B = _array(rng, (n, k) if attrs["transB"] else (k, n), dt)
    c_shapes = [(m, n), (n,), (1,), (), (m, 1), (1, n)] + ([None] if opset >= 11 else [])
    cs = c_shapes[int(rng.integers(len(c_shapes)))]
    return [("A", A), ("B", B), ("C", None if cs is None else _array(rng, cs, dt))], attrs


@pytest.mark.parametrize("opset,seed", GEMM, ids=[f"Gemm-{v}-{s}" for v, s in GEMM])
def test_gemm_matches_onnxruntime(opset, seed):
    rng = rng_for("Gemm", opset, seed)
    inputs, attrs = _gemm_case(rng, opset, (np.float32, np.float64)[int(rng.integers(2))])
    check_views("Gemm", opset, inputs, attrs)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint32, np.uint64])
def test_integer_gemm_matches_onnx_reference(dt):
    """onnxruntime has no integer Gemm: onnx.reference is the runtime here."""

    from tests.harness.runtime import one_node
    for seed in range(3):
        inputs, attrs = _gemm_case(rng_for("Gemm-int", np.dtype(dt).name, seed), 13, dt)
        feeds = {n: a for n, a in inputs if a is not None}
        model = one_node("Gemm", 13, inputs, attrs, [helper.np_dtype_to_tensor_dtype(np.dtype(dt))])
        want = ReferenceEvaluator(model).run(None, feeds)[0]
        got = shapecheck.execute("Gemm", 13, feeds, attrs)["Y"]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_gemm_bias_and_inner_dims():
    r = shapecheck.infer("Gemm", 13, {"A": "float[S,K]", "B": "float[N,K2]", "C": "float[N]"}, {"transB": 1})
    assert r.status == "conditional" and str(r.outputs["Y"]) == "float[S,N]"
    assert shapecheck.infer("Gemm", 13, {"A": "float[3,4]", "B": "float[4,5]", "C": "float[3]"}).status == "invalid"
    with pytest.raises(UsageError):      # C is required before 11
        shapecheck.infer("Gemm", 9, {"A": "float[3,4]", "B": "float[4,5]"})


DET_CASES = [(v, s) for v in (11, 22) for s in range(5)]


@pytest.mark.parametrize("opset,seed", DET_CASES, ids=[f"Det-{v}-{s}" for v, s in DET_CASES])
def test_det_matches_onnxruntime(opset, seed):
    rng = rng_for("det", opset, seed)
    m = int(rng.integers(1, 4))
    batch = tuple(int(d) for d in rng.integers(1, 3, size=int(rng.integers(0, 3))))
    x = rng.standard_normal(batch + (m, m)).astype(np.float32)
    compare("Det", opset, [("X", x)], {}, [code(np.float32)], tol=1e-3)


MMI_CASES = list(range(10))


@pytest.mark.parametrize("seed", MMI_CASES, ids=[f"MatMulInteger-10-{s}" for s in MMI_CASES])
def test_matmul_integer_matches_onnxruntime(seed):
    rng = rng_for("matmulinteger", seed)
    m, k, n = (int(d) for d in rng.integers(1, 5, size=3))
    batch = tuple(int(d) for d in rng.integers(1, 3, size=int(rng.integers(0, 2))))
    ta, tb = [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8), (np.int8, np.uint8)][seed % 4]

    def draw(dt, shape):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max + 1, size=shape).astype(dt)
    inputs = [("A", draw(ta, batch + (m, k))), ("B", draw(tb, (k, n)))]
    if seed % 3:
        inputs += [("a_zero_point", draw(ta, ())), ("b_zero_point", draw(tb, (n,) if seed % 2 else ()))]
    # onnxruntime's uint8 x int8 kernel saturates pairs of products at int16 (-43143 comes out as -32768, MO14):
    # that pair is compared with onnx.reference, which computes the page's exact int32 product
    compare("MatMulInteger", 10, inputs, {}, [code(np.int32)], reference=(ta, tb) == (np.uint8, np.int8))


def test_matmul_integer_uint8_int8_saturates_in_onnxruntime_on_some_cpus():
    """MO14: onnxruntime's uint8 x int8 kernel depends on the CPU.  Without avx512_vnni (or avx_vnni) it
    adds pairs of products in int16 and saturates: -32768; with it, the exact int32 sum.  The executor
    computes the page's exact product on every CPU."""
    A, B = np.array([[255, 255]], np.uint8), np.array([[-128], [-128]], np.int8)
    exact = shapecheck.execute("MatMulInteger", 10, {"A": A, "B": B})["Y"]
    assert exact.tolist() == [[-65280]]
    assert run_ort("MatMulInteger", 10, [("A", A), ("B", B)], {}, [code(np.int32)])[0].tolist() in ([[-32768]], [[-65280]])


def test_matmul_integer_per_row_a_zero_point_is_refuted():
    feeds = {"A": np.zeros((3, 2), np.uint8), "B": np.zeros((2, 4), np.int8), "a_zero_point": np.zeros(3, np.uint8)}
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("MatMulInteger", 10, feeds)
    assert exc.value.constraint == "C5"
    with pytest.raises(Exception, match="zero point must be a scalar"):
        run_ort("MatMulInteger", 10, list(feeds.items()), {}, [code(np.int32)])


FMM_CASES = list(range(12))


@pytest.mark.parametrize("seed", FMM_CASES, ids=[f"FusedMatMul-{s}" for s in FMM_CASES])
def test_fused_matmul_matches_onnxruntime(seed):
    rng = rng_for("fmm", seed)
    m, k, n = (int(x) for x in rng.integers(1, 5, size=3))
    attrs = {"alpha": float(rng.choice([1.0, 0.5, 2.0]))}
    if rng.random() < 0.4:                            # transBatch: one rank >= 3 on both sides
        rank = int(rng.integers(3, 5))
        batch = tuple(int(x) for x in rng.integers(1, 4, size=rank - 2))
        a, b = batch + (m, k), batch + (k, n)
        if rng.random() < 0.5:
            attrs["transBatchA"] = 1
            a = a[-2:-1] + a[:-2] + a[-1:]            # the array whose transBatch is [*batch, m, k]
        if rng.random() < 0.5:
            attrs["transBatchB"] = 1
            b = b[-2:-1] + b[:-2] + b[-1:]
    else:
        a = tuple(int(x) for x in rng.integers(1, 3, size=int(rng.integers(0, 3)))) + (m, k)
        b = (k, n) if rng.random() < 0.5 else a[:-2] + (k, n)
    if rng.random() < 0.5:
        attrs["transA"] = 1
        a = a[:-2] + (a[-1], a[-2])
    if rng.random() < 0.5:
        attrs["transB"] = 1
        b = b[:-2] + (b[-1], b[-2])
    dt = rng.choice([np.float32, np.float64])
    compare_in_domain("FusedMatMul", 17, [("A", randn(rng, a, dt)), ("B", randn(rng, b, dt))], attrs, [code(dt)], domain=MS)


EQUATIONS = [("ij,jk->ik", ["ab", "bc"]), ("bij,bjk->bik", ["xab", "xbc"]), ("ii->i", ["aa"]), ("ii", ["aa"]),
             ("ij->", ["ab"]), ("i,j->ij", ["a", "b"]), ("...ij,...jk->...ik", ["xab", "xbc"]),
             ("bhsd,bhtd->bhst", ["xyab", "xycb"]), ("ij", ["ab"]), ("ji", ["ab"]), ("i,i", ["a", "a"]),
             ("bij , bjk", ["xab", "xbc"])]


@pytest.mark.parametrize("k", range(len(EQUATIONS)), ids=[e for e, _ in EQUATIONS])
def test_einsum_matches_onnxruntime(k):
    eq, dims = EQUATIONS[k]
    rng = rng_for("einsum", k)
    size = {c: int(rng.integers(1, 5)) for c in "abcxy"}
    dt = [np.float32, np.float64, np.int32, np.int64][k % 4]
    ops = [(f"x{i}", (rng.standard_normal(tuple(size[c] for c in d)) * 5).astype(dt)) for i, d in enumerate(dims)]
    compare_one("Einsum", 12, ops, {"equation": eq}, tol=1e-4)


def test_einsum_output_is_exact_over_symbols():
    r = shapecheck.infer("Einsum", 12, {"Inputs": ["float[B,H,S,D]", "float[B,H,T,D]"]}, {"equation": "bhsd,bhtd->bhst"})
    assert str(r.outputs["Output"]) == "float[B,H,S,T]" and r.status == "valid"
    r = shapecheck.infer("Einsum", 12, {"Inputs": ["float[N,S,S]"]}, {"equation": "...ii->...i"})
    assert str(r.outputs["Output"]) == "float[N,S]" and r.status == "valid"
    r = shapecheck.infer("Einsum", 12, {"Inputs": ["float[N,3,4]"]}, {"equation": "bii->bi"})
    assert r.status == "invalid"
    ops = [("x0", np.ones((2, 3, 4), np.float32)), ("x1", np.ones((4, 5), np.float32))]
    with pytest.raises(Exception, match="Ellipsis"):     # onnxruntime refuses ellipses of two ranks, as C2
        run_ort("Einsum", 12, ops, {"equation": "...ij,...jk->...ik"}, [helper.np_dtype_to_tensor_dtype(np.dtype(np.float32))])
    r = shapecheck.infer("Einsum", 12, {"Inputs": ["float[2,3,4]", "float[4,5]"]}, {"equation": "...ij,...jk->...ik"})
    assert r.status == "invalid" and r.violations[0].constraint == "C2"


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("linalg")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 25


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "linalg")
