"""ReduceSum/ReduceProd/ReduceMax/ReduceMin/ReduceMean (attribute axes up to 13, input axes from
13/18) against onnxruntime on seeded random cases: values, dtypes and shapes from
shapecheck.execute, and the solver's output types on concrete and symbolic dims.  Also the value
rules on shape tensors."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import shapecheck
from shapecheck.errors import ConstraintError

from .ort_kit import check_against_ort

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
