"""The normalization specs (LayerNormalization, BatchNormalization, InstanceNormalization,
GroupNormalization, RMSNormalization) against onnxruntime on seeded random cases: output values
(within a float tolerance: the kernels compute statistics in float64), dtypes and shapes from
shapecheck.execute, and the solver's inferred output types, on concrete and on symbolic dims."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.errors import ConstraintError
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array
from shapecheck.dims import symbol

from .layout_harness import check_inferred
from .ort_kit import run_ort

REG = default_registry()
F32 = helper.np_dtype_to_tensor_dtype(np.dtype(np.float32))


def _type(a: np.ndarray) -> str:
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def compare(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int]) -> None:
    """Run ``op`` in onnxruntime and through execute and solve; outputs must agree (values within tolerance)."""
    want = run_ort(op, opset, inputs, attrs, out_types)
    feeds = {n: a for n, a in inputs if a is not None}
    got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types)).values())
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
        tol = 2e-2 if w.dtype == np.float16 else 1e-4
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)
    spec = REG.resolve(op, opset)
    types = {n: _type(a) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    outs = list(res.outputs.values())
    for t, w in zip(outs, want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), _type(w))
    name, arr = inputs[0]                               # again with the first input's dims as symbols
    types[name] = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status in ("valid", "conditional"), res.violations
    for t, w in zip(res.outputs.values(), want):
        assert t.shape is not None, str(t)
        check_inferred(t, w, {symbol(f"D{i}"): n for i, n in enumerate(arr.shape)}, False)


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


LN_CASES = [(v, s) for v in (17, 18, 24) for s in range(8)]


@pytest.mark.parametrize("opset,seed", LN_CASES, ids=[f"LayerNormalization-{v}-{s}" for v, s in LN_CASES])
def test_layer_normalization_matches_onnxruntime(opset, seed):
    rng = _rng("ln", opset, seed)
    rank = int(rng.integers(1, 5))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    dt = rng.choice([np.float32, np.float64, np.float16])
    x = rng.standard_normal(shape).astype(dt)
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    norm = shape[a:]
    k = int(rng.integers(0, len(norm) + 1))          # a suffix of the normalized shape, some dims set to 1
    sshape = tuple(1 if rng.random() < 0.3 else d for d in norm[len(norm) - k:])
    inputs = [("X", x), ("Scale", rng.standard_normal(sshape).astype(dt))]
    if rng.random() < 0.6:
        inputs.append(("B", rng.standard_normal(norm).astype(dt)))
    n_out = int(rng.integers(1, 4))
    stash = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    compare("LayerNormalization", opset, inputs, {"axis": axis, "epsilon": 1e-3}, [stash] + [F32] * (n_out - 1))


def test_layer_normalization_symbolic_outputs():
    r = shapecheck.infer("LayerNormalization", 17, {"X": "float16[N,S,768]", "Scale": "float16[768]"}, {})
    assert [str(t) for t in r.outputs.values()] == ["float16[N,S,768]", "float[N,S,1]", "float[N,S,1]"]
    r = shapecheck.infer("LayerNormalization", 17, {"X": "float[N,S,D]", "Scale": "float[D]"}, {"axis": 1})
    assert str(r.outputs["Mean"]) == "float[N,1,1]" and r.status == "valid"


def test_layer_normalization_scale_that_does_not_fit_is_refuted():
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("LayerNormalization", 17, {"X": np.zeros((2, 3, 4), np.float32),
                                                     "Scale": np.ones(5, np.float32)})
    assert exc.value.constraint == "C3"


BN_CASES = [(v, s) for v in (7, 9, 14, 15) for s in range(8)]


@pytest.mark.parametrize("opset,seed", BN_CASES, ids=[f"BatchNormalization-{v}-{s}" for v, s in BN_CASES])
def test_batch_normalization_matches_onnxruntime(opset, seed):
    rng = _rng("bn", opset, seed)
    rank = int(rng.integers(2, 5))
    shape = tuple(int(s) for s in rng.integers(1, 4, size=rank))
    shape = (shape[0] + 1,) + shape[1:]                 # a batch of 2 or more: a batch variance of 0 is no test
    dt = rng.choice([np.float32, np.float64])
    training = int(rng.random() < 0.5)
    spatial = 0 if opset == 7 and not training and rng.random() < 0.5 else 1   # no training per activation in onnxruntime
    pshape = shape[1:2] if spatial else shape[1:]
    x = rng.standard_normal(shape).astype(dt)
    names = ["scale", "B", "mean", "var"] if opset < 14 else ["scale", "B", "input_mean", "input_var"]
    params = [rng.standard_normal(pshape).astype(dt) for _ in range(3)] + [rng.uniform(0.5, 2, pshape).astype(dt)]
    attrs = {"epsilon": 1e-3, "momentum": 0.8}
    if opset == 7 and not spatial:
        attrs["spatial"] = 0
    if opset >= 14:
        attrs["training_mode"] = training
        n_out = 3 if training else 1
    else:
        n_out = 5 if training else 1
    stash = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    compare("BatchNormalization", opset, [("X", x)] + list(zip(names, params)), attrs, [stash] * n_out)


def test_batch_normalization_symbolic_and_refuted():
    r = shapecheck.infer("BatchNormalization", 15, {"X": "float[N,64,H,W]", "scale": "float[64]", "B": "float[64]",
                                                    "input_mean": "float[64]", "input_var": "float[64]"})
    assert str(r.outputs["Y"]) == "float[N,64,H,W]" and r.status == "valid"
    r = shapecheck.infer("BatchNormalization", 9, {"X": "float[N,C,H]", "scale": "float[C]", "B": "float[C]",
                                                   "mean": "float[C]", "var": "float[D]"})
    assert r.status == "conditional" and any("D" in str(c) for c in r.conditions)
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("BatchNormalization", 15, {"X": np.zeros((2, 3, 4), np.float32),
                                                      **{n: np.ones(4, np.float32) for n in ("scale", "B", "input_mean", "input_var")}},
                           output_count=1)
    assert exc.value.constraint == "C3"


IN_CASES = [(v, s) for v in (7, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", IN_CASES, ids=[f"InstanceNormalization-{v}-{s}" for v, s in IN_CASES])
def test_instance_normalization_matches_onnxruntime(opset, seed):
    rng = _rng("in", opset, seed)
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(int(s) for s in rng.integers(2, 4, size=int(rng.integers(1, 3))))
    dt = np.float32                                    # onnxruntime's CPU kernel is float only
    c = shape[1]
    inputs = [("input", rng.standard_normal(shape).astype(dt)), ("scale", rng.standard_normal(c).astype(dt)),
              ("B", rng.standard_normal(c).astype(dt))]
    compare("InstanceNormalization", opset, inputs, {"epsilon": 1e-3}, [helper.np_dtype_to_tensor_dtype(np.dtype(dt))])


GN_CASES = [(v, s) for v in (18, 21) for s in range(6)]


@pytest.mark.parametrize("opset,seed", GN_CASES, ids=[f"GroupNormalization-{v}-{s}" for v, s in GN_CASES])
def test_group_normalization_matches_onnxruntime(opset, seed):
    rng = _rng("gn", opset, seed)
    g = int(rng.integers(1, 4))
    c = g * int(rng.integers(1, 3))
    shape = (int(rng.integers(1, 3)), c) + tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    dt = rng.choice([np.float32, np.float64])
    p = c if opset >= 21 else g
    inputs = [("X", rng.standard_normal(shape).astype(dt)), ("scale", rng.standard_normal(p).astype(dt)),
              ("bias", rng.standard_normal(p).astype(dt))]
    compare("GroupNormalization", opset, inputs, {"epsilon": 1e-3, "num_groups": g}, [helper.np_dtype_to_tensor_dtype(np.dtype(dt))])


RMS_CASES = [(23, s) for s in range(8)] + [(24, s) for s in range(2)]


@pytest.mark.parametrize("opset,seed", RMS_CASES, ids=[f"RMSNormalization-{v}-{s}" for v, s in RMS_CASES])
def test_rms_normalization_matches_onnxruntime(opset, seed):
    rng = _rng("rms", opset, seed)
    rank = int(rng.integers(1, 5))
    shape = tuple(int(s) for s in rng.integers(1, 5, size=rank))
    x_dt = s_dt = rng.choice([np.float32, np.float64])   # onnxruntime refuses mixed types
    axis = int(rng.integers(-rank, rank))
    norm = shape[axis + rank if axis < 0 else axis:]
    k = int(rng.integers(0, len(norm) + 1))
    sshape = tuple(1 if rng.random() < 0.3 else d for d in norm[len(norm) - k:])
    inputs = [("X", rng.standard_normal(shape).astype(x_dt)), ("scale", rng.standard_normal(sshape).astype(s_dt))]
    compare("RMSNormalization", opset, inputs, {"axis": axis, "epsilon": 1e-3}, [helper.np_dtype_to_tensor_dtype(np.dtype(s_dt))])


def test_group_normalization_channels_not_a_multiple_is_refuted():
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("GroupNormalization", 21, {"X": np.zeros((2, 4, 5), np.float32), "scale": np.ones(4, np.float32),
                                                      "bias": np.ones(4, np.float32)}, {"num_groups": 3})
    assert exc.value.constraint == "C3"
    r = shapecheck.infer("GroupNormalization", 21, {"X": "float[N,C,H,W]", "scale": "float[C]", "bias": "float[C]"},
                         {"num_groups": 32})
    assert str(r.outputs["Y"]) == "float[N,C,H,W]" and r.status == "conditional"
