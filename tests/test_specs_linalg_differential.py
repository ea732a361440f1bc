"""MatMul, Softmax/LogSoftmax, Dropout and Gemm against onnxruntime on seeded random cases: values
(to float tolerance), dtypes and shapes from shapecheck.execute, and the solver's output types on
concrete dims and with every input's dims as symbols (each inferred dim, with the run's sizes put
in, must be the run's dim)."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
import sympy
from onnx import helper

import shapecheck
from shapecheck.errors import UsageError
from shapecheck.solver import solve
from shapecheck.types import dtype_of_array
from shapecheck.dims import is_unknown, symbol

from .ort_kit import REG, run_ort


def _type(a: np.ndarray, prefix: str | None = None) -> str:
    dims = [f"{prefix}{i}" for i in range(a.ndim)] if prefix else [str(d) for d in a.shape]
    return f"{dtype_of_array(a)}[{','.join(dims)}]"


def _fresh(d) -> bool:
    return isinstance(d, sympy.Basic) and any(is_unknown(s) for s in d.free_symbols)


def check(op: str, opset: int, inputs: list, attrs: dict, n_out: int = 1, out_types: list | None = None,
          valued: tuple = ()) -> list[np.ndarray]:
    """Run ``op`` in onnxruntime, shapecheck.execute and the solver; every view must agree."""
    first = helper.np_dtype_to_tensor_dtype(inputs[0][1].dtype)
    want = run_ort(op, opset, inputs, attrs, out_types or [first] * n_out)
    feeds = {n: a for n, a in inputs if a is not None}
    got = list(shapecheck.execute(op, opset, feeds, attrs).values())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)
    spec = REG.resolve(op, opset)
    types = {n: (a if n in valued else _type(a)) for n, a in feeds.items()}
    res = solve(spec, types, attrs)
    assert res.status == "valid", (res.violations, res.conditions)
    outs = list(res.outputs.values())
    for t, w in zip(outs, want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), _type(w))
    # symbolic: each input's dims as its own symbols (A_0, A_1, ... for input A); an unknown (fresh)
    # dim is sound, any other dim must evaluate to the run's size
    sub = {symbol(f"{n}_{i}"): d for n, a in feeds.items() if n not in valued for i, d in enumerate(a.shape)}
    types.update({n: _type(a, f"{n}_") for n, a in feeds.items() if n not in valued and a.ndim})
    res = solve(spec, types, attrs)
    assert res.status in ("valid", "conditional"), res.violations
    for t, w in zip(res.outputs.values(), want):
        assert t.shape is not None and len(t.shape) == w.ndim, (str(t), w.shape)
        known = [(d, n) for d, n in zip(t.shape, w.shape) if not _fresh(d)]
        assert all(sympy.sympify(d).xreplace(sub) == n for d, n in known), (str(t), w.shape, sub)
    return want


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def _array(rng, shape, dtype) -> np.ndarray:
    return rng.integers(0 if np.dtype(dtype).kind == "u" else -3, 4, size=shape).astype(dtype)


MATMUL = [(v, s) for v in (1, 9, 13) for s in range(8)]


@pytest.mark.parametrize("opset,seed", MATMUL, ids=[f"MatMul-{v}-{s}" for v, s in MATMUL])
def test_matmul_matches_onnxruntime(opset, seed):
    rng = _rng("MatMul", opset, seed)
    k, m, n = (int(x) for x in rng.integers(1, 5, size=3))
    ra, rb = (int(x) for x in rng.integers(1, 5, size=2))
    batch = [int(x) for x in rng.integers(1, 4, size=max(ra, rb) - 2)] if max(ra, rb) > 2 else []
    def batch_of(r):   # the last r-2 batch dims, some set to 1 (broadcast)
        return [1 if rng.random() < 0.3 else d for d in batch[len(batch) - (r - 2):]] if r > 2 else []
    a_shape = batch_of(ra) + ([m] if ra >= 2 else []) + [k]
    b_shape = batch_of(rb) + [k] + ([n] if rb >= 2 else [])
    dtypes = [np.float32, np.float64] + ([np.int32, np.int64] if opset >= 9 else [])
    dt = dtypes[int(rng.integers(len(dtypes)))]
    check("MatMul", opset, [("A", _array(rng, a_shape, dt)), ("B", _array(rng, b_shape, dt))], {})


def test_matmul_inner_dims_must_agree():
    r = shapecheck.infer("MatMul", 13, {"A": "float[N,S,K]", "B": "float[K2,D]"})
    assert r.status == "conditional" and str(r.outputs["Y"]) == "float[N,S,D]"
    assert any("K2" in str(c) for c in r.conditions)
    assert shapecheck.infer("MatMul", 13, {"A": "float[2,3]", "B": "float[4,5]"}).status == "invalid"


SOFTMAX = [(op, v, s) for op in ("Softmax", "LogSoftmax") for v in (1, 11, 13) for s in range(5)]


@pytest.mark.parametrize("op,opset,seed", SOFTMAX, ids=[f"{o}-{v}-{s}" for o, v, s in SOFTMAX])
def test_softmax_matches_onnxruntime(op, opset, seed):
    rng = _rng(op, opset, seed)
    rank = int(rng.integers(1, 5))
    shape = [int(d) for d in rng.integers(1, 5, size=rank)]
    dt = (np.float32, np.float64)[int(rng.integers(2))]
    x = rng.standard_normal(shape).astype(dt)
    default_ok = opset >= 13 or rank >= 2        # the default axis 1 needs rank 2 before 13
    attrs = {} if default_ok and rng.random() < 0.3 else {"axis": int(rng.integers(-rank, rank))}
    check(op, opset, [("input", x)], attrs)


def test_softmax_coerces_to_2d_before_13():
    """Versions 1 and 11 normalize over every dim from axis on; 13 over axis alone (as onnxruntime)."""
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    old = check("Softmax", 11, [("input", x)], {"axis": 1})[0]
    new = check("Softmax", 13, [("input", x)], {"axis": 1})[0]
    np.testing.assert_allclose(old.reshape(2, 12).sum(axis=1), 1, rtol=1e-5)
    np.testing.assert_allclose(new.sum(axis=1), 1, rtol=1e-5)
    assert not np.allclose(old, new)


def test_softmax_axis_outside_the_rank_is_refuted():
    for opset in (1, 11, 13):
        r = shapecheck.infer("Softmax", opset, {"input": "float[N,S,D]"}, {"axis": 3})
        assert r.status == "invalid" and any(v.constraint == "C2" for v in r.violations)
        assert str(shapecheck.infer("LogSoftmax", opset, {"input": "float[N,S,D]"}).outputs["output"]) == "float[N,S,D]"


DROPOUT = [(v, s) for v in (7, 10, 12, 13) for s in range(5)]
BOOL = helper.np_dtype_to_tensor_dtype(np.dtype(bool))


@pytest.mark.parametrize("opset,seed", DROPOUT, ids=[f"Dropout-{v}-{s}" for v, s in DROPOUT])
def test_dropout_matches_onnxruntime(opset, seed):
    """Out of training mode (the values are deterministic): output = data, mask as onnxruntime gives."""
    rng = _rng("Dropout", opset, seed)
    shape = [int(d) for d in rng.integers(1, 5, size=int(rng.integers(0, 4)))]
    dt = (np.float32, np.float64)[int(rng.integers(2))]
    x = rng.standard_normal(shape).astype(dt)
    inputs, attrs = [("data", x)], {}
    ratio = float(rng.choice([0.0, 0.25, 0.5]))
    if opset >= 12:
        if rng.random() < 0.7:
            inputs.append(("ratio", np.array(ratio, dtype=(np.float32, np.float64)[int(rng.integers(2))])))
            if rng.random() < 0.6:
                inputs.append(("training_mode", np.array(False)))
    else:
        attrs["ratio"] = ratio
    mask_type = helper.np_dtype_to_tensor_dtype(x.dtype) if opset < 10 else BOOL
    check("Dropout", opset, inputs, attrs, out_types=[helper.np_dtype_to_tensor_dtype(x.dtype), mask_type])


def test_dropout_training_keeps_the_shape():
    """In training mode the values are random; shapes and dtypes still match onnxruntime's."""
    x = np.ones((3, 4), np.float32)
    inputs = [("data", x), ("ratio", np.array(0.5, np.float32)), ("training_mode", np.array(True))]
    want = run_ort("Dropout", 13, inputs, {"seed": 1}, [1, BOOL])
    got = list(shapecheck.execute("Dropout", 13, dict(inputs), {"seed": 1}).values())
    assert [(g.dtype, g.shape) for g in got] == [(w.dtype, w.shape) for w in want]
    assert set(np.unique(got[0])) <= {0.0, 2.0}
    r = shapecheck.infer("Dropout", 13, {"data": "float[N,S]", "ratio": "float[]", "training_mode": "bool[]"})
    assert r.status == "valid" and [str(t) for t in r.outputs.values()] == ["float[N,S]", "bool[N,S]"]


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
    rng = _rng("Gemm", opset, seed)
    inputs, attrs = _gemm_case(rng, opset, (np.float32, np.float64)[int(rng.integers(2))])
    check("Gemm", opset, inputs, attrs)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint32, np.uint64])
def test_integer_gemm_matches_onnx_reference(dt):
    """onnxruntime has no integer Gemm: onnx.reference is the runtime here."""
    from onnx.reference import ReferenceEvaluator

    from .ort_kit import one_node
    for seed in range(3):
        inputs, attrs = _gemm_case(_rng("Gemm-int", np.dtype(dt).name, seed), 13, dt)
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
