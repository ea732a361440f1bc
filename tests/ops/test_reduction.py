"""The reductions (Reduce*, ReduceL1...ReduceSumSquare, ArgMax, ArgMin): seeded random cases against
the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete
and on symbolic dims) and the rules' edges, ONNX's own node tests (``tests/harness/node_cases.py``;
the per-op quirks are ``tests/ops/quirks.py``'s), and odd queries, which end in a result or a usage
error."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from onnx import TensorProto

import shapecheck
from shapecheck.errors import ConstraintError

from tests.harness.node_cases import check_node_case, family_cases, family_specs
from tests.harness.queries import check_odd_queries
from tests.harness.runtime import check_against_ort, code, compare, random_shape, rng_for, run_ort


REDUCE_OPS = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")


RED_CASES = [(op, v, s) for op in REDUCE_OPS for v in (1, 11, 13, 18) for s in range(4)]


@pytest.mark.parametrize("op,opset,seed", RED_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in RED_CASES])
def test_reduction_matches_onnxruntime(op, opset, seed):
    rng = rng_for(op, opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 4))
    dt = [np.float32, np.float64, np.float16, np.int32, np.int64][seed % 5 if op != "ReduceLogSum" else seed % 3]
    if opset == 1 and dt == np.float16:
        dt = np.float32                      # onnxruntime's float16 fallback inserts a Cast it cannot load at opset 1
    x = rng.uniform(0.5, 3, shape) if op == "ReduceLogSum" else rng.uniform(-3, 3, shape)   # log of a positive sum
    x = (np.round(x) if np.dtype(dt).kind == "i" else x).astype(dt)
    if np.dtype(dt).kind == "i" and op == "ReduceLogSum":
        x = np.abs(x) + 1
    axes = sorted({int(a) for a in rng.integers(-rank, rank, size=int(rng.integers(0, rank + 1)))})
    attrs: dict = {"keepdims": int(rng.integers(0, 2))}
    inputs = [("data", x)]
    if opset < 18:
        if axes:
            attrs["axes"] = axes
    else:
        inputs.append(("axes", np.array(axes, np.int64) if axes or rng.random() < 0.5 else None))
        if not axes and rng.random() < 0.5:
            attrs["noop_with_empty_axes"] = 1
    compare(op, opset, inputs, attrs, [code(dt)], tol=1e-3, valued=("axes",))


def test_reduction_of_nothing_is_elementwise_as_the_runtimes_compute():
    """noop_with_empty_axes: the page says Identity; onnxruntime takes |x|, x^2, log x per element (MO4)."""
    x = np.array([[-3.0, 2.0]], np.float32)
    for op, want in (("ReduceL1", [[3, 2]]), ("ReduceSumSquare", [[9, 4]]), ("ReduceLogSumExp", [[-3, 2]])):
        got = shapecheck.execute(op, 18, {"data": x, "axes": np.array([], np.int64)}, {"noop_with_empty_axes": 1})
        np.testing.assert_allclose(got["reduced"], want, rtol=1e-6)
        np.testing.assert_allclose(run_ort(op, 18, [("data", x), ("axes", np.array([], np.int64))],
                                           {"noop_with_empty_axes": 1}, [code(np.float32)])[0], want, rtol=1e-6)


def test_reduction_symbolic_and_refuted():
    r = shapecheck.infer("ReduceL2", 18, {"data": "float[N,S,D]", "axes": "int64[1] = [-1]"}, {"keepdims": 0})
    assert r.status == "valid" and str(r.outputs["reduced"]) == "float[N,S]"
    r = shapecheck.infer("ReduceSumSquare", 13, {"data": "float[N,S,D]"}, {"axes": [1]})
    assert r.status == "valid" and str(r.outputs["reduced"]) == "float[N,1,D]"
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("ReduceLogSumExp", 11, {"data": np.zeros((2, 3), np.float32)}, {"axes": [2]})
    assert exc.value.constraint == "C2"


OPS = {"ReduceSum": [1, 11, 13], "ReduceProd": [1, 11, 13, 18], "ReduceMax": [1, 11, 12, 13, 18, 20],
       "ReduceMin": [1, 11, 12, 13, 18, 20], "ReduceMean": [1, 11, 13, 18]}


INPUT_AXES = {"ReduceSum": 13}   # first version with axes as an input; 18 for the others


CASES = [(op, v, s) for op, vs in OPS.items() for v in vs for s in range(3)]


@pytest.mark.parametrize("op,opset,seed", CASES, ids=[f"{o}-{v}-{s}" for o, v, s in CASES])
def test_reduce_matches_onnxruntime(op, opset, seed):
    rng = np.random.default_rng(zlib.crc32(f"{op}-{opset}-{seed}".encode()))
    rank = int(rng.integers(1, 4))
    low = 1 if op in ("ReduceMax", "ReduceMin") else 0      # max/min of nothing: see the kernel
    shape = tuple(int(s) for s in rng.integers(low, 4, size=rank))
    dtypes = [np.float32, np.int32, np.int64, np.float64] + ([np.int8, np.uint8] if opset >= 12 and op in ("ReduceMax", "ReduceMin") else [])
    x = rng.integers(-3 if op != "ReduceProd" else -2, 4, size=shape).astype(rng.choice(dtypes))
    if x.dtype == np.uint8:
        x = np.abs(x).astype(np.uint8)
    k = int(rng.integers(0, rank + 1))
    axes = [int(a) - (rank if rng.random() < 0.3 else 0) for a in rng.permutation(rank)[:k]]
    attrs = {"keepdims": int(rng.integers(0, 2))}
    inputs = [("data", x)]
    if opset >= INPUT_AXES.get(op, 18):
        if axes or rng.random() < 0.5:
            inputs.append(("axes", np.array(axes, dtype=np.int64)))
        attrs["noop_with_empty_axes"] = int(rng.integers(0, 2))
    elif axes:
        attrs["axes"] = axes
    check_against_ort(op, opset, inputs, attrs, valued=("axes",))


@pytest.mark.parametrize("op,want", [("ReduceProd", "int64[] = 12*N"), ("ReduceSum", "int64[] = N+7"),
                                     ("ReduceMax", "int64[] = Max(4,N)"), ("ReduceMin", "int64[] = Min(3,N)")])
def test_reduction_of_a_shape_tensor_is_a_dim(op, want):
    opset = 18
    r = shapecheck.infer(op, opset, {"data": "int64[3] = [N, 3, 4]"}, {"keepdims": 0})
    assert str(r.outputs["reduced"]) == want and r.status == "valid"
    r = shapecheck.infer(op, 12, {"data": "int64[3] = [N, 3, 4]"}, {"axes": [0], "keepdims": 1})
    assert str(r.outputs["reduced"]).startswith("int64[1] = [")


def test_run_time_axes_keep_the_rank_with_keepdims():
    r = shapecheck.infer("ReduceSum", 13, {"data": "float[N,S,D]", "axes": "int64[1]"})
    assert r.outputs["reduced"].shape is not None and len(r.outputs["reduced"].shape) == 3
    r = shapecheck.infer("ReduceSum", 13, {"data": "float[N,S,D]", "axes": "int64[1] = [-1]"}, {"keepdims": 0})
    assert str(r.outputs["reduced"]) == "float[N,S]"


def test_axis_outside_the_rank_is_refuted():
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("ReduceSum", 13, {"data": np.zeros((2, 3), np.float32), "axes": np.array([2])})
    assert exc.value.constraint == "C2"


I64 = TensorProto.INT64


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


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("reduction")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 120


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "reduction")


SPECS = family_specs("reduction")


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_odd_queries_never_raise_anything_but_usage_errors(spec):
    check_odd_queries(spec)
