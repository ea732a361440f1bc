"""The detection ops (NonMaxSuppression, RoiAlign, MaxRoiPool): seeded random cases against the
runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete and
on symbolic dims) and the rules' edges, and ONNX's own node tests (``tests/harness/node_cases.py``;
the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto

import shapecheck
from shapecheck.errors import ConstraintError

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import code, compare, rng_for, run_ort, type_of


BF16 = np.dtype(ml_dtypes.bfloat16)


def _case(seed: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """X [n, c, h, w] and rois [k, 5] of float32, and the attributes."""
    rng = rng_for("maxroipool", seed)
    n, c, k = (int(v) for v in rng.integers(1, 4, size=3))
    h, w = (int(v) for v in rng.integers(2, 8, size=2))
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    if seed % 3 == 0:
        x -= 10                                                  # all negative: the maximum is negative
    if seed % 5 == 0:
        x[rng.random(x.shape) < 0.15] = -np.inf
    if seed % 7 == 0:
        x[rng.random(x.shape) < 0.1] = np.nan
    scale = float(rng.choice([1.0, 0.5, 0.25, 0.3, 2.0]))
    size = np.array([w, h])
    lo = rng.integers(-2, 2 * size - 2, size=(k, 2)) / 2                 # halves: rounding ties
    hi = lo + rng.integers(-2, size + 4, size=(k, 2)) / 2        # some inverted, some past the edge
    if seed % 4 == 1:
        lo[0] = hi[0] = size + 2                                      # wholly outside: empty bins give 0
    lo, hi = lo / scale, hi / scale
    batch = rng.integers(0, n, size=k) + rng.choice([0.0, 0.25, 0.75, -0.5], size=k) * (rng.integers(0, n, size=k) > 0)
    batch = np.where(batch < 0, -0.5 * (rng.random(k) < 0.5), batch)   # -0.5 truncates to image 0
    rois = np.column_stack([batch, lo, hi]).astype(np.float32)
    attrs = {"pooled_shape": [int(v) for v in rng.integers(1, 6, size=2)]}
    if scale != 1.0 or seed % 2:
        attrs["spatial_scale"] = scale
    return x, rois, attrs


def _ort(x: np.ndarray, rois: np.ndarray, attrs: dict, opset: int = 21) -> np.ndarray:
    return run_ort("MaxRoiPool", opset, [("X", x), ("rois", rois)], attrs, [TensorProto.FLOAT if x.dtype == np.float32
                                                                          else TensorProto.FLOAT16])[0]


def _check(opset: int, x: np.ndarray, rois: np.ndarray, attrs: dict, want: np.ndarray) -> None:
    got = shapecheck.execute("MaxRoiPool", opset, {"X": x, "rois": rois}, attrs)["Y"]
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    name = {np.dtype(np.float32): "float", np.dtype(np.float16): "float16", np.dtype(np.float64): "double", BF16: "bfloat16"}[x.dtype]
    ph, pw = attrs["pooled_shape"]
    concrete = shapecheck.infer("MaxRoiPool", opset, {"X": f"{name}[{','.join(map(str, x.shape))}]",
                                                      "rois": f"{name}[{rois.shape[0]},5]"}, attrs)
    assert concrete.status == "valid" and str(concrete.outputs["Y"]) == f"{name}[{','.join(map(str, want.shape))}]"
    symbolic = shapecheck.infer("MaxRoiPool", opset, {"X": f"{name}[N,C,H,W]", "rois": f"{name}[R,5]"}, attrs)
    assert symbolic.status == "valid" and str(symbolic.outputs["Y"]) == f"{name}[R,C,{ph},{pw}]"


SEEDS = list(range(30))


@pytest.mark.parametrize("seed", SEEDS, ids=[f"MaxRoiPool-1-{s}" for s in SEEDS])
def test_max_roi_pool_matches_onnxruntime(seed):
    x, rois, attrs = _case(seed)
    _check(1 if seed % 2 else 21, x, rois, attrs, _ort(x, rois, attrs))


F16_SEEDS = list(range(6))


@pytest.mark.parametrize("seed", F16_SEEDS, ids=[f"MaxRoiPool-1-float16-{s}" for s in F16_SEEDS])
def test_max_roi_pool_float16_matches_onnxruntime(seed):
    """onnxruntime runs float16 through its float kernel (a cast each way): -inf for float32's lowest."""
    x, rois, attrs = _case(100 + seed)
    x16, rois16 = x.astype(np.float16), rois.astype(np.float16)
    _check(13, x16, rois16, attrs, _ort(x16, rois16, attrs))


V22_SEEDS = list(range(6))


@pytest.mark.parametrize("seed", V22_SEEDS, ids=[f"MaxRoiPool-22-{s}" for s in V22_SEEDS])
def test_max_roi_pool_22_and_double_match_the_float_run(seed):
    """No onnxruntime kernel for version 22 or double: float, bfloat16 (22) and double (21) values
    exactly representable in each are compared with onnxruntime's float run of the same values."""
    x, rois, attrs = _case(200 + seed)
    xb, rb = x.astype(BF16), rois.astype(BF16)
    want = _ort(xb.astype(np.float32), rb.astype(np.float32), attrs)
    _check(22, xb, rb, attrs, want.astype(BF16))
    _check(22, x, rois, attrs, _ort(x, rois, attrs))
    _check(21, x.astype(np.float64), rois.astype(np.float64), attrs, _ort(x, rois, attrs).astype(np.float64))


def test_ties_round_half_away_from_zero():
    """x1 = 0.5, y1 = 1.5, x2 = y2 = 2.5 cover cells [2, 3] x [1, 3] (half to even would give row 2 only)."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0.5, 1.5, 2.5, 2.5]], np.float32)
    want = _ort(x, rois, {"pooled_shape": [1, 1]})
    assert want.item() == 15.0
    _check(21, x, rois, {"pooled_shape": [1, 1]}, want)


def test_nan_restarts_the_running_maximum():
    """[1, NaN, -2, -3] in one bin gives -2 in onnxruntime, not NaN nor 1; an all -inf bin float32's lowest."""
    x = np.array([[[[1, np.nan], [-2, -3]]], [[[-np.inf, -np.inf], [-np.inf, -np.inf]]]], np.float32)
    rois = np.array([[0, 0, 0, 1, 1], [1, 0, 0, 1, 1]], np.float32)
    want = _ort(x, rois, {"pooled_shape": [1, 1]})
    assert want[0].item() == -2.0 and want[1].item() == np.finfo(np.float32).min
    _check(21, x, rois, {"pooled_shape": [1, 1]}, want)


REFUSED = [
    ("batch index 2 of 2 images", np.array([[2, 0, 0, 1, 1]], np.float32), {"pooled_shape": [1, 1]}, "C6"),
    ("batch index -1", np.array([[-1, 0, 0, 1, 1]], np.float32), {"pooled_shape": [1, 1]}, "C6"),
    ("spatial_scale 0", np.array([[0, 0, 0, 1, 1]], np.float32), {"pooled_shape": [1, 1], "spatial_scale": 0.0}, "C5"),
    ("rois [1, 4]", np.array([[0, 0, 1, 1]], np.float32), {"pooled_shape": [1, 1]}, "C3"),
    ("pooled_shape 0", np.array([[0, 0, 0, 1, 1]], np.float32), {"pooled_shape": [0, 1]}, "C4"),
]


@pytest.mark.parametrize("what,rois,attrs,cid", REFUSED, ids=[r[0] for r in REFUSED])
def test_what_onnxruntime_refuses_is_refused(what, rois, attrs, cid):
    x = np.ones((2, 1, 3, 3), np.float32)
    with pytest.raises(Exception):
        _ort(x, rois, attrs)
    with pytest.raises(ConstraintError) as err:
        shapecheck.execute("MaxRoiPool", 21, {"X": x, "rois": rois}, attrs)
    assert cid in str(err.value)
    res = shapecheck.infer("MaxRoiPool", 21, {"X": "float[2,1,3,3]", "rois": f"float[1,{rois.shape[1]}] = {rois.tolist()}"}, attrs)
    assert res.status == "invalid" and cid in [v.constraint for v in res.violations]


def test_onnxruntime_has_no_version_22_or_double_kernel():
    """The reason version 22 and double are compared with the float run (MR3); fails when that changes."""
    x, rois = np.ones((1, 1, 2, 2), np.float32), np.array([[0, 0, 0, 1, 1]], np.float32)
    for args in ((x, rois, 22, TensorProto.FLOAT), (x.astype(np.float64), rois.astype(np.float64), 21, TensorProto.DOUBLE)):
        with pytest.raises(Exception, match="Could not find an implementation"):
            run_ort("MaxRoiPool", args[2], [("X", args[0]), ("rois", args[1])], {"pooled_shape": [1, 1]}, [args[3]])


def test_onnx_has_no_maxroipool_node_test():
    """ONNX 1.23 ships no backend node test for MaxRoiPool (no generator mentions it), so there is none to
    run through ``tests/node_cases.check_case``; when one appears this fails, and it should be run here
    as tests/ops/test_conv.py runs the pooling ops'."""
    import os

    import onnx.backend.test.case.node as node_cases
    root = node_cases.__path__[0]
    found = []
    for name in os.listdir(root):
        if name.endswith(".py"):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                if "MaxRoiPool" in f.read():
                    found.append(name)
    assert found == [], found


NMS_CASES = [(v, s) for v in (10, 11) for s in range(8)]


@pytest.mark.parametrize("opset,seed", NMS_CASES, ids=[f"NonMaxSuppression-{v}-{s}" for v, s in NMS_CASES])
def test_nms_matches_onnxruntime(opset, seed):
    rng = rng_for("nms", opset, seed)
    b, c, n = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 7))
    corner = rng.uniform(0, 4, (b, n, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(0.5, 3, (b, n, 2))], axis=2).astype(np.float32)
    center = int(seed % 3 == 0)
    scores = rng.permutation(np.linspace(0.05, 0.95, b * c * n)).reshape(b, c, n).astype(np.float32)  # no ties
    inputs = [("boxes", boxes), ("scores", scores)]
    if seed % 4:
        inputs += [("max_output_boxes_per_class", np.array([int(rng.integers(0, 5))], np.int64)),
                   ("iou_threshold", np.array([rng.uniform(0.1, 0.7)], np.float32))]
        if seed % 2:
            inputs.append(("score_threshold", np.array([0.3], np.float32)))
    attrs = {"center_point_box": center} if center else {}
    want = compare("NonMaxSuppression", opset, inputs, attrs, [code(np.int64)], fresh=True, symbolic=False)
    valued = {n: type_of(a, valued=True) for n, a in inputs}           # constants: the count is exact
    r = shapecheck.infer("NonMaxSuppression", opset, valued, attrs)
    assert r.status == "valid" and r.outputs["selected_indices"].shape == want[0].shape
    r = shapecheck.infer("NonMaxSuppression", opset, {"boxes": "float[B,N,4]", "scores": "float[B,C,N]"}, attrs)
    assert r.status == "valid" and str(r.outputs["selected_indices"]) == "int64[selected,3]"


RA_CASES = [(v, s) for v in (10, 16, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", RA_CASES, ids=[f"RoiAlign-{v}-{s}" for v, s in RA_CASES])
def test_roi_align_matches_onnxruntime(opset, seed):
    rng = rng_for("roialign", opset, seed)
    n, c, h, w, k = (int(d) for d in rng.integers(1, 4, size=5))
    x = rng.standard_normal((n, c, h + 2, w + 2)).astype(np.float32)
    xy = rng.uniform(-0.5, w + 1, (k, 2))
    rois = np.concatenate([xy, xy + rng.uniform(0.2, 3, (k, 2))], axis=1).astype(np.float32)
    inputs = [("X", x), ("rois", rois), ("batch_indices", rng.integers(0, n, size=k).astype(np.int64))]
    attrs = {"mode": ("avg", "max")[seed % 2], "output_height": int(rng.integers(1, 4)), "output_width": int(rng.integers(1, 4)),
             "sampling_ratio": int(rng.integers(0, 3)), "spatial_scale": float(rng.choice([0.5, 1.0]))}
    if opset >= 16 and seed % 3 == 0:
        attrs["coordinate_transformation_mode"] = "output_half_pixel"
    # onnxruntime has no RoiAlign-22 kernel: version 22 is compared with onnx.reference
    compare("RoiAlign", opset, inputs, attrs, [code(np.float32)], tol=1e-5, symbolic=False, reference=opset >= 22)
    r = shapecheck.infer("RoiAlign", opset, {"X": "float[N,C,H,W]", "rois": "float[R,4]", "batch_indices": "int64[R]"}, attrs)
    assert r.status == "valid" and str(r.outputs["Y"]) == f"float[R,C,{attrs['output_height']},{attrs['output_width']}]"


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("detection")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 10


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "detection")
