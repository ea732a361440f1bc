"""Resize's antialias filter (``antialias = 1``) in the executor, against onnxruntime and onnx.reference.

Seeded random downscales of 2-D and 4-D float inputs, linear and cubic, every coordinate
transformation of Resize-19, exclude_outside, cubic_coeff_a, scales or sizes: the executor must give
what onnx.reference gives and what onnxruntime gives.  The cases draw an ``in * scale`` that is
whole and output lengths of 2 or more, where the two runtimes agree; where they part (pytorch_half_pixel
with an output length of 1, runtime-findings AA1; an ``in * scale`` that is not whole, TO11) a test
pins which one the executor follows.  Also: antialias leaves an upscale as plain interpolation, and a
uint8 input is rounded as both runtimes round it.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto
from onnx.reference import ReferenceEvaluator

import shapecheck
from tests.ort_kit import one_node, run_ort

COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")


def _draw(rng: np.random.Generator):
    """A random downscale with a whole ``in * scale`` on the last two axes (the others kept)."""
    rank = int(rng.choice([2, 4]))
    shape = [int(rng.integers(1, 3)) for _ in range(rank - 2)] + [int(rng.integers(3, 12)) for _ in range(2)]
    outs = [int(rng.integers(2, d + 1)) for d in shape[-2:]]
    j = int(rng.integers(0, 2))
    outs[j] = int(rng.integers(2, shape[j - 2]))   # at least one axis shrinks
    mode = str(rng.choice(["linear", "cubic"]))
    attrs = {"mode": mode, "antialias": 1, "coordinate_transformation_mode": str(rng.choice(COORDS)),
             "exclude_outside": int(rng.integers(0, 2))}
    if mode == "cubic":
        attrs["cubic_coeff_a"] = float(rng.choice([-0.75, -0.5, -0.6]))
    X = rng.standard_normal(shape).astype(np.float32)
    if rng.integers(0, 2):
        return X, ("sizes", np.array(shape[:-2] + outs, np.int64)), attrs
    return X, ("scales", np.array([1.0] * (rank - 2) + [o / d for o, d in zip(outs, shape[-2:])], np.float32)), attrs


def _whole(X, value) -> bool:
    name, v = value
    return name == "sizes" or all(float(s) * d == round(float(s) * d) for s, d in zip(v, X.shape))


def _three(X, value, attrs, opset=19):
    """(onnx.reference, onnxruntime, shapecheck) on one case."""
    name, v = value
    inputs = [("X", X), ("roi", None), ("scales", v if name == "scales" else None), ("sizes", v if name == "sizes" else None)]
    dtype = TensorProto.UINT8 if X.dtype == np.uint8 else TensorProto.FLOAT
    feeds = {n: a for n, a in inputs if a is not None}
    model = one_node("Resize", opset, inputs, attrs, [dtype])
    ref = ReferenceEvaluator(model).run(None, feeds)[0]
    ort = run_ort("Resize", opset, inputs, attrs, [dtype])[0]
    ours = shapecheck.execute("Resize", opset, feeds, attrs)["Y"]
    return ref, ort, ours


def _close(a, b) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and np.allclose(a, b, rtol=1e-4, atol=1e-4)


CASES = []
_rng = np.random.default_rng(20261123)
while len(CASES) < 60:
    case = _draw(_rng)
    if _whole(case[0], case[1]):
        CASES.append(case)


def test_the_cases_cover_the_attributes():
    seen = {(a["mode"], a["coordinate_transformation_mode"], a["exclude_outside"]) for _, _, a in CASES}
    assert len(seen) >= 15
    assert {X.ndim for X, _, _ in CASES} == {2, 4} and {v[0] for _, v, _ in CASES} == {"scales", "sizes"}
    assert all(any(o < d for o, d in zip(shapecheck.execute("Resize", 19, {"X": X, v[0]: v[1]}, a)["Y"].shape, X.shape))
               for X, v, a in CASES)
    # the filter matters: on most cases the plain interpolation gives other values
    plain = [shapecheck.execute("Resize", 19, {"X": X, v[0]: v[1]}, dict(a, antialias=0))["Y"] for X, v, a in CASES]
    differ = sum(not np.allclose(p, shapecheck.execute("Resize", 19, {"X": X, v[0]: v[1]}, a)["Y"], atol=1e-3)
                 for p, (X, v, a) in zip(plain, CASES))
    assert differ >= len(CASES) * 3 // 4, differ


@pytest.mark.parametrize("k", range(len(CASES)))
def test_random_downscale_matches_both_runtimes(k):
    X, value, attrs = CASES[k]
    ref, ort, ours = _three(X, value, attrs)
    assert _close(ours, ref), (attrs, value, ours, ref)
    assert _close(ours, ort), (attrs, value, ours, ort)


def test_an_upscale_is_plain_interpolation():
    X = np.arange(12, dtype=np.float32).reshape(3, 4) ** 2
    for mode in ("linear", "cubic"):
        attrs = {"mode": mode, "antialias": 1}
        value = ("scales", np.array([2.0, 1.5], np.float32))
        ref, ort, ours = _three(X, value, attrs)
        assert _close(ours, ref) and _close(ours, ort)
        plain = shapecheck.execute("Resize", 19, {"X": X, "scales": value[1]}, dict(attrs, antialias=0))["Y"]
        np.testing.assert_array_equal(plain, ours)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_uint8_is_rounded_as_both_runtimes_round(mode):
    X = (np.arange(16, dtype=np.float32) ** 2 % 251).astype(np.uint8).reshape(2, 8)
    ref, ort, ours = _three(X, ("scales", np.array([1.0, 0.375], np.float32)), {"mode": mode, "antialias": 1})
    np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(ours, ort)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_pytorch_half_pixel_to_one_sample_follows_onnxruntime(mode):
    """AA1: onnx.reference samples an output length of 1 at -0.5, onnxruntime and the executor at 0."""
    X = np.array([[0, 1, 2, 3, 4, 5]], np.float32)
    ref, ort, ours = _three(X, ("sizes", np.array([1, 1], np.int64)),
                            {"mode": mode, "antialias": 1, "coordinate_transformation_mode": "pytorch_half_pixel"})
    assert _close(ours, ort) and not _close(ours, ref)


def test_antialias_with_nearest_is_a_warning():
    from shapecheck.registry import default_registry
    from shapecheck.solver import solve
    spec = default_registry().resolve("Resize", 18)
    args = {"X": "float[1,1,4,4]", "scales": "float[4] = [1, 1, 0.5, 0.5]"}
    assert [w.constraint for w in solve(spec, args, {"antialias": 1}).warnings] == ["W1"]
    assert solve(spec, args, {"antialias": 1, "mode": "linear"}).warnings == []
