"""The issue-16 "more ops" specs, part 2 (ReverseSequence, MeanVarianceNormalization, LRN, Det,
the random ops, MatMulInteger, DynamicQuantizeLinear, QuantizeLinear, DequantizeLinear,
NonMaxSuppression, GridSample, RoiAlign) against onnxruntime, or onnx.reference where onnxruntime
has no kernel, on seeded random cases (tests/moreops_kit.py)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.errors import ConstraintError

from .moreops_kit import code as _code, compare, random_shape, rng_for as _rng, type_of as _type
from .ort_kit import one_node, run_ort


# ---------------------------------------------------------------- ReverseSequence, MVN, LRN, Det, random ops

RS_CASES = list(range(8))


@pytest.mark.parametrize("seed", RS_CASES, ids=[f"ReverseSequence-10-{s}" for s in RS_CASES])
def test_reverse_sequence_matches_onnxruntime(seed):
    rng = _rng("reverse_sequence", seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(2, 4))))
    batch_axis = int(rng.integers(0, 2))
    x = rng.standard_normal(shape).astype([np.float32, np.int64][seed % 2])
    lens = rng.integers(0, shape[1 - batch_axis] + 1, size=shape[batch_axis]).astype(np.int64)
    compare("ReverseSequence", 10, [("input", x), ("sequence_lens", lens)],
            {"batch_axis": batch_axis, "time_axis": 1 - batch_axis}, [_code(x.dtype)])


MVN_CASES = [(v, s) for v in (9, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", MVN_CASES, ids=[f"MeanVarianceNormalization-{v}-{s}" for v, s in MVN_CASES])
def test_mvn_matches_onnxruntime(opset, seed):
    rng = _rng("mvn", opset, seed)
    shape = tuple(int(d) for d in rng.integers(2, 4, size=4))
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    attrs = {} if seed % 2 else {"axes": sorted({int(a) for a in rng.integers(0, 4, size=2)})}
    compare("MeanVarianceNormalization", opset, [("X", x)], attrs, [_code(np.float32)], tol=1e-3)


LRN_CASES = [(v, s) for v in (1, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", LRN_CASES, ids=[f"LRN-{v}-{s}" for v, s in LRN_CASES])
def test_lrn_matches_onnxruntime(opset, seed):
    rng = _rng("lrn", opset, seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=4))
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = {"size": int(rng.choice([1, 3, 5])), "alpha": 0.5, "beta": 0.6, "bias": 1.5}
    compare("LRN", opset, [("X", x)], attrs, [_code(np.float32)], tol=1e-4)


DET_CASES = [(v, s) for v in (11, 22) for s in range(5)]


@pytest.mark.parametrize("opset,seed", DET_CASES, ids=[f"Det-{v}-{s}" for v, s in DET_CASES])
def test_det_matches_onnxruntime(opset, seed):
    rng = _rng("det", opset, seed)
    m = int(rng.integers(1, 4))
    batch = tuple(int(d) for d in rng.integers(1, 3, size=int(rng.integers(0, 3))))
    x = rng.standard_normal(batch + (m, m)).astype(np.float32)
    compare("Det", opset, [("X", x)], {}, [_code(np.float32)], tol=1e-3)


RANDOM_CASES = [(op, v, s) for op, versions in (("RandomNormalLike", (1, 22)), ("RandomUniformLike", (1, 22)),
                                                 ("Bernoulli", (15, 22))) for v in versions for s in range(3)]


@pytest.mark.parametrize("op,version,seed", RANDOM_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in RANDOM_CASES])
def test_random_ops_shapes_and_types(op, version, seed):
    """Random values: only shapes and element types are compared, with onnxruntime at the version it
    implements (run at opset 21) and with onnx.reference at version 22, which onnxruntime lacks."""
    rng = _rng(op, version, seed)
    # onnx.reference's RandomNormalLike fails on a scalar input (randn() returns a float, MO12)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0 if version < 22 else 1, 4))))
    x = rng.uniform(0, 1, shape).astype([np.float32, np.float64][seed % 2])
    attrs: dict = {"seed": 2.0}
    out = x.dtype
    if seed == 2:
        out = np.dtype(np.int64 if op == "Bernoulli" else np.float64)
        attrs["dtype"] = _code(out)
    opset = 21 if version < 22 else 22
    inputs = [("input", x)]
    if version < 22:
        want = run_ort(op, opset, inputs, attrs, [_code(out)])
    else:
        want = ReferenceEvaluator(one_node(op, opset, inputs, attrs, [_code(out)])).run(None, {"input": x})
    got = shapecheck.execute(op, opset, {"input": x}, attrs)["output"]
    assert got.dtype == want[0].dtype and got.shape == want[0].shape
    r = shapecheck.infer(op, opset, {"input": _type(x)}, attrs)
    assert r.status == "valid" and r.outputs["output"].shape == want[0].shape
    if op == "Bernoulli":
        assert set(np.unique(got).tolist()) <= {0, 1}


# ---------------------------------------------------------------- MatMulInteger, DynamicQuantizeLinear

MMI_CASES = list(range(10))


@pytest.mark.parametrize("seed", MMI_CASES, ids=[f"MatMulInteger-10-{s}" for s in MMI_CASES])
def test_matmul_integer_matches_onnxruntime(seed):
    rng = _rng("matmulinteger", seed)
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
    compare("MatMulInteger", 10, inputs, {}, [_code(np.int32)], reference=(ta, tb) == (np.uint8, np.int8))


def test_matmul_integer_uint8_int8_saturates_in_onnxruntime():
    A, B = np.array([[255, 255]], np.uint8), np.array([[-128], [-128]], np.int8)
    exact = shapecheck.execute("MatMulInteger", 10, {"A": A, "B": B})["Y"]
    assert exact.tolist() == [[-65280]]
    assert run_ort("MatMulInteger", 10, [("A", A), ("B", B)], {}, [_code(np.int32)])[0].tolist() == [[-32768]]


def test_matmul_integer_per_row_a_zero_point_is_refuted():
    feeds = {"A": np.zeros((3, 2), np.uint8), "B": np.zeros((2, 4), np.int8), "a_zero_point": np.zeros(3, np.uint8)}
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("MatMulInteger", 10, feeds)
    assert exc.value.constraint == "C5"
    with pytest.raises(Exception, match="zero point must be a scalar"):
        run_ort("MatMulInteger", 10, list(feeds.items()), {}, [_code(np.int32)])


DQL_CASES = list(range(8))


@pytest.mark.parametrize("seed", DQL_CASES, ids=[f"DynamicQuantizeLinear-11-{s}" for s in DQL_CASES])
def test_dynamic_quantize_linear_matches_onnxruntime(seed):
    rng = _rng("dql", seed)
    shape = tuple(int(d) for d in rng.integers(0 if seed == 0 else 1, 5, size=int(rng.integers(1, 4))))
    x = (rng.standard_normal(shape) * [0, 1, 10, 0.01][seed % 4] + [0, 0.5, -2, 3][seed % 4]).astype(np.float32)
    compare("DynamicQuantizeLinear", 11, [("x", x)], {}, [_code(np.uint8), _code(np.float32), _code(np.uint8)], tol=1e-6)


# ---------------------------------------------------------------- QuantizeLinear, DequantizeLinear

Q_CASES = [(op, v, s) for op in ("QuantizeLinear", "DequantizeLinear") for v in (10, 13, 19, 21, 23, 24) for s in range(4)]


def quant_case(op: str, opset: int, seed: int) -> tuple[list, dict, np.dtype]:
    """A random per-tensor, per-axis (13+) or blocked (21+) case; returns inputs, attributes, y's dtype."""
    rng = _rng(op, opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 5))
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    mode = seed % 3 if opset >= 21 else (seed % 2 if opset >= 13 else 0)      # 0 tensor, 1 axis, 2 blocked
    attrs: dict = {"axis": axis} if mode else {}
    if mode == 0:
        pshape: tuple = ()
    elif mode == 1:
        pshape = (shape[a],)
    else:
        attrs["block_size"] = block = int(rng.integers(1, 3))
        pshape = shape[:a] + (-(-shape[a] // block),) + shape[a + 1:]
    qtype = np.dtype([np.uint8, np.int8, np.uint16, np.int16][seed % (4 if opset >= 21 else 2)])
    ftype = np.dtype(np.float16 if opset >= 19 and seed % 4 == 3 else np.float32)
    scale = rng.uniform(0.5, 2, pshape).astype(ftype)
    info = np.iinfo(qtype)
    zp = rng.integers(max(info.min, -20), min(info.max, 20) + 1, size=pshape).astype(qtype)
    if op == "QuantizeLinear":
        x = (rng.standard_normal(shape) * 40).astype(ftype)
        return [("x", x), ("y_scale", scale), ("y_zero_point", zp)], attrs, qtype
    x = rng.integers(max(info.min, -100), min(info.max, 100) + 1, size=shape).astype(qtype)
    return [("x", x), ("x_scale", scale), ("x_zero_point", zp if seed % 2 == 0 else None)], attrs, ftype


@pytest.mark.parametrize("op,opset,seed", Q_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in Q_CASES])
def test_quantize_dequantize_match_onnxruntime(op, opset, seed):
    inputs, attrs, out = quant_case(op, opset, seed)
    tol = 1e-2 if out == np.float16 else 1e-5
    compare(op, opset, inputs, attrs, [_code(out)], tol=tol)


def test_blocked_scale_of_the_wrong_shape_is_refuted():
    r = shapecheck.infer("QuantizeLinear", 21, {"x": "float[N,64]", "y_scale": "float[N,3]"}, {"block_size": 32})
    assert r.status == "invalid" and [v.constraint for v in r.violations] == ["C3"]
    r = shapecheck.infer("DequantizeLinear", 23, {"x": "int8[N,K]", "x_scale": "float16[N,2]"}, {"block_size": 32})
    assert r.status == "conditional" and str(r.outputs["y"]) == "float16[N,K]"


# ---------------------------------------------------------------- NonMaxSuppression

NMS_CASES = [(v, s) for v in (10, 11) for s in range(8)]


@pytest.mark.parametrize("opset,seed", NMS_CASES, ids=[f"NonMaxSuppression-{v}-{s}" for v, s in NMS_CASES])
def test_nms_matches_onnxruntime(opset, seed):
    rng = _rng("nms", opset, seed)
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
    want = compare("NonMaxSuppression", opset, inputs, attrs, [_code(np.int64)], fresh=True, symbolic=False)
    valued = {n: _type(a, valued=True) for n, a in inputs}           # constants: the count is exact
    r = shapecheck.infer("NonMaxSuppression", opset, valued, attrs)
    assert r.status == "valid" and r.outputs["selected_indices"].shape == want[0].shape
    r = shapecheck.infer("NonMaxSuppression", opset, {"boxes": "float[B,N,4]", "scores": "float[B,C,N]"}, attrs)
    assert r.status == "valid" and str(r.outputs["selected_indices"]) == "int64[selected,3]"



# ---------------------------------------------------------------- GridSample

GS_CASES = [(v, s) for v in (16, 20, 22) for s in range(9)]


@pytest.mark.parametrize("opset,seed", GS_CASES, ids=[f"GridSample-{v}-{s}" for v, s in GS_CASES])
def test_grid_sample_matches_onnxruntime(opset, seed):
    rng = _rng("gridsample", opset, seed)
    r = 2 if opset == 16 or seed % 3 else 3                  # onnxruntime: cubic on 4-D X only
    modes = ("bilinear", "nearest", "bicubic") if opset == 16 else ("linear", "nearest", "cubic" if r == 2 else "linear")
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    x = rng.standard_normal((n, c) + tuple(int(d) for d in rng.integers(1, 5, size=r))).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (n,) + tuple(int(d) for d in rng.integers(1, 4, size=r)) + (r,)).astype(np.float32)
    attrs = {"mode": modes[seed % 3], "padding_mode": ("zeros", "border", "reflection")[(seed // 3) % 3],
             "align_corners": int(rng.integers(0, 2))}
    compare("GridSample", opset, [("X", x), ("grid", grid)], attrs, [_code(np.float32)], tol=1e-5)



RA_CASES = [(v, s) for v in (10, 16, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", RA_CASES, ids=[f"RoiAlign-{v}-{s}" for v, s in RA_CASES])
def test_roi_align_matches_onnxruntime(opset, seed):
    rng = _rng("roialign", opset, seed)
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
    compare("RoiAlign", opset, inputs, attrs, [_code(np.float32)], tol=1e-5, symbolic=False, reference=opset >= 22)
    r = shapecheck.infer("RoiAlign", opset, {"X": "float[N,C,H,W]", "rois": "float[R,4]", "batch_indices": "int64[R]"}, attrs)
    assert r.status == "valid" and str(r.outputs["Y"]) == f"float[R,C,{attrs['output_height']},{attrs['output_width']}]"


@pytest.mark.parametrize("name", ["shapecheck.functions.selection", "shapecheck.functions.detection", "shapecheck.kernels.recurrent", "shapecheck.kernels.reduction",
                                  "shapecheck.kernels.activation", "shapecheck.kernels.linalg", "shapecheck.kernels.layout",
                                  "shapecheck.kernels.quantize", "shapecheck.kernels.resize", "shapecheck.kernels.detection"])
def test_doctests_of_the_moreops_modules(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
