"""The tensor-op specs (Pad, Resize, Upsample, DepthToSpace, SpaceToDepth, Einsum, OneHot, Clip)
against onnxruntime on seeded random cases: output values (within a float tolerance for
interpolation and sums), dtypes and shapes from shapecheck.execute, and the solver's inferred
output type, on concrete dims and again with the first input's dims as symbols (every inferred
dim, with the run's sizes put in, is the run's dim).  The inputs that give sizes (pads, scales,
sizes, depth) are given to the solver with their values, as a constant in a graph would be."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
import sympy
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array
from shapecheck.dims import is_unknown, symbol

from .ort_kit import run_ort

REG = default_registry()


def _type(a: np.ndarray) -> str:
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def compare(op: str, opset: int, inputs: list, attrs: dict, *, valued: tuple = (), tol: float = 0.0,
            out_dtype=None) -> np.ndarray:
    """Run one node in onnxruntime, through execute and through the solver; all must agree."""
    variadic = op == "Einsum"
    dt = np.dtype(out_dtype or inputs[0][1].dtype)
    want = run_ort(op, opset, inputs, attrs, [helper.np_dtype_to_tensor_dtype(dt)])[0]
    given = [(n, a) for n, a in inputs if a is not None]
    feeds = {"Inputs": [a for _, a in given]} if variadic else dict(given)
    got = list(shapecheck.execute(op, opset, feeds, attrs).values())[0]
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if tol and want.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)
    spec = REG.resolve(op, opset)
    if variadic:
        types = {"Inputs": [_type(a) for a in feeds["Inputs"]]}
    else:
        types = {n: (a if n in valued else _type(a)) for n, a in feeds.items()}
    res = solve(spec, types, attrs)
    assert res.status == "valid", (res.violations, res.conditions)
    t = list(res.outputs.values())[0]
    assert t.dtype == dtype_of_array(want) and t.shape == want.shape, (str(t), _type(want))
    arr = given[0][1]
    if arr.ndim:                                       # again with the first input's dims as symbols
        sym = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
        if variadic:
            types["Inputs"][0] = sym
        else:
            types[given[0][0]] = sym
        res = solve(spec, types, attrs)
        assert res.status in ("valid", "conditional"), res.violations
        t = list(res.outputs.values())[0]
        assert t.shape is not None and len(t.shape) == want.ndim, (str(t), want.shape)
        sub = {symbol(f"D{i}"): n for i, n in enumerate(arr.shape)}
        for d, n in zip(t.shape, want.shape):
            if isinstance(d, sympy.Basic) and any(is_unknown(s) for s in d.free_symbols):
                continue
            assert sympy.sympify(d).xreplace(sub) == n, (str(t), want.shape, sub)
    return want


# ---- Pad -------------------------------------------------------------------------------------

PAD_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8]


def _pads(rng, shape, axes, mode):
    """Random pads that every runtime accepts in ``mode`` (reflect at most d - 1, no dim below 0)."""
    begin, end = [], []
    for a in axes:
        d = shape[a]
        for side in (begin, end):
            hi = d - 1 if mode == "reflect" else 3
            lo = -1 if d >= 3 and mode == "constant" else 0   # crops before a reflect: see test_pad_reflect_after_a_crop
            side.append(int(rng.integers(lo, max(hi, 0) + 1)) if mode == "constant" or d else 0)
    return np.array(begin + end, np.int64)


PAD_CASES = [(v, s) for v in (11, 13, 18, 19) for s in range(6)]


@pytest.mark.parametrize("opset,seed", PAD_CASES, ids=[f"Pad-{v}-{s}" for v, s in PAD_CASES])
def test_pad_matches_onnxruntime(opset, seed):
    rng = _rng("pad", opset, seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    modes = ["constant", "reflect", "edge"] + (["wrap"] if opset >= 19 else [])
    mode = str(rng.choice(modes))
    dt = PAD_DTYPES[int(rng.integers(len(PAD_DTYPES)))]
    x = (rng.standard_normal(shape) * 10).astype(dt)
    axes = list(range(len(shape)))
    inputs = [("data", x)]
    if opset >= 18 and rng.random() < 0.6:
        k = int(rng.integers(1, len(shape) + 1))
        axes = sorted(rng.choice(len(shape), size=k, replace=False).tolist())
        pads = _pads(rng, shape, axes, mode)
        cv = np.array(7, dt) if mode == "constant" and rng.random() < 0.5 else None
        ax = np.array([a - len(shape) if rng.random() < 0.5 else a for a in axes], np.int64)
        inputs += [("pads", pads), ("constant_value", cv), ("axes", ax)]
    else:
        pads = _pads(rng, shape, axes, mode)
        cv = np.array(7, dt) if mode == "constant" and rng.random() < 0.5 else None
        inputs += [("pads", pads), ("constant_value", cv)]
    compare("Pad", opset, inputs, {"mode": mode}, valued=("pads", "axes"))


@pytest.mark.parametrize("seed", range(4))
def test_pad_attribute_form_matches_onnxruntime(seed):
    rng = _rng("pad2", seed)
    shape = tuple(int(d) for d in rng.integers(2, 5, size=2))
    mode = ["constant", "reflect", "edge"][seed % 3]
    pads = _pads(rng, shape, [0, 1], mode).tolist()
    x = rng.standard_normal(shape).astype(np.float32)
    compare("Pad", 7, [("data", x)], {"mode": mode, "pads": pads, "value": 2.5})


def test_pad_output_is_symbolic_in_pads_value():
    r = shapecheck.infer("Pad", 18, {"data": "float[N,S,D]", "pads": "int64[2] = [0, P]", "axes": "int64[1] = [1]"})
    assert str(r.outputs["output"]) == "float[N,P+S,D]" and r.status == "valid"
    r = shapecheck.infer("Pad", 11, {"data": "float[N,S]", "pads": "int64[4]"})
    assert r.outputs["output"].shape is not None and all(is_unknown(d) for d in r.outputs["output"].shape)
    r = shapecheck.infer("Pad", 19, {"data": "float[N,3]", "pads": "int64[4] = [0, 4, 0, 0]"}, {"mode": "reflect"})
    assert r.status == "invalid" and r.violations[0].constraint == "C6"


def test_pad_of_strings_fills_empty_strings():
    """The page's default for strings (onnxruntime has no string kernel, onnx.reference pads 0: TO12)."""
    out = shapecheck.execute("Pad", 13, {"data": np.array(["a", "b"], dtype=object), "pads": np.array([1, 0])})
    assert out["output"].tolist() == ["", "a", "b"]


def test_pad_reflect_after_a_crop_is_refused_as_by_onnxruntime():
    """onnxruntime crops first: reflect may pad at most d - 1 of what the crop leaves."""
    x = np.zeros((4, 2), np.float32)
    pads = np.array([3, 0, -1, 0], np.int64)
    with pytest.raises(Exception, match="exceeds maximum allowed"):
        run_ort("Pad", 13, [("data", x), ("pads", pads)], {"mode": "reflect"}, [helper.np_dtype_to_tensor_dtype(x.dtype)])
    r = shapecheck.infer("Pad", 13, {"data": "float[4,2]", "pads": pads}, {"mode": "reflect"})
    assert r.status == "invalid" and r.violations[0].constraint == "C6"


# ---- Resize and Upsample ---------------------------------------------------------------------

COORDS = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"]
NEAREST = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
RESIZE_CASES = [(v, s) for v in (11, 13, 18, 19) for s in range(6)]


@pytest.mark.parametrize("opset,seed", RESIZE_CASES, ids=[f"Resize-{v}-{s}" for v, s in RESIZE_CASES])
def test_resize_matches_onnxruntime(opset, seed):
    rng = _rng("resize", opset, seed)
    # dims and scales whose product is whole: where in * scale has a fraction, onnxruntime and
    # onnx.reference read length_resized differently (runtime-findings TO11)
    h, w = (int(d) for d in rng.choice([2, 4], size=2))
    mode = ["nearest", "linear", "cubic"][seed % 3]
    dt = np.float32 if mode != "nearest" or rng.random() < 0.5 else np.uint8
    x = (rng.random((1, 2, h, w)) * 100).astype(dt)
    coords = COORDS + (["half_pixel_symmetric"] if opset >= 19 else [])
    attrs = {"mode": mode, "coordinate_transformation_mode": str(rng.choice(coords))}
    if mode == "nearest":
        attrs["nearest_mode"] = str(rng.choice(NEAREST))
    roi = np.array([0, 0, 0.2, 0.1, 1, 1, 0.9, 0.8], np.float32) if attrs["coordinate_transformation_mode"] == "tf_crop_and_resize" else None
    if roi is not None:
        attrs["extrapolation_value"] = 5.0
    if mode == "cubic":
        attrs["exclude_outside"] = int(rng.integers(0, 2))
    empty = np.zeros(0, np.float32)
    if roi is not None or rng.random() < 0.5:   # tf_crop_and_resize with sizes: the runtimes differ (TO11)
        scales = np.array([1, 1] + [float(rng.choice([0.5, 1.5, 2.0, 2.5])) for _ in range(2)], np.float32)
        inputs = [("X", x), ("roi", roi if roi is not None else (empty if opset == 11 else None)), ("scales", scales)]
    else:
        sizes = np.array([1, 2] + [int(d) for d in rng.integers(1, 9, size=2)], np.int64)
        inputs = [("X", x), ("roi", roi if roi is not None else (empty if opset == 11 else None)),
                  ("scales", empty if opset == 11 else None), ("sizes", sizes)]
    compare("Resize", opset, inputs, attrs, valued=("roi", "scales", "sizes"), tol=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_resize_axes_and_aspect_ratio_match_onnxruntime(seed):
    rng = _rng("resize18", seed)
    h, w = (int(d) for d in rng.integers(2, 7, size=2))
    x = rng.random((1, 1, h, w)).astype(np.float32)
    policy = ["stretch", "not_larger", "not_smaller", "not_larger"][seed]
    sizes = np.array([int(d) for d in rng.integers(1, 10, size=2)], np.int64)
    attrs = {"mode": "nearest", "axes": [2, 3], "keep_aspect_ratio_policy": policy}
    compare("Resize", 18, [("X", x), ("roi", None), ("scales", None), ("sizes", sizes)], attrs, valued=("sizes",))


@pytest.mark.parametrize("seed", range(4))
def test_resize_10_and_upsample_match_onnxruntime(seed):
    rng = _rng("upsample", seed)
    x = rng.random((1, 1, 3, 4)).astype(np.float32)
    mode = "linear" if seed % 2 else "nearest"
    scales = np.array([1, 1, float(rng.choice([1.0, 1.5, 2.0])), float(rng.choice([1.7, 2.0, 3.0]))], np.float32)
    compare("Resize", 10, [("X", x), ("scales", scales)], {"mode": mode}, valued=("scales",), tol=1e-4)
    compare("Upsample", 9, [("X", x), ("scales", scales)], {"mode": mode}, valued=("scales",), tol=1e-4)
    compare("Upsample", 7, [("X", x)], {"mode": mode, "scales": scales.tolist()}, tol=1e-4)


def test_resize_output_is_floor_of_scale_on_symbols():
    r = shapecheck.infer("Resize", 13, {"X": "float[N,C,H,W]", "scales": np.array([1, 1, 2, 0.5], np.float32)})
    assert str(r.outputs["Y"]) == "float[N,C,2*H,floor(W/2)]"
    r = shapecheck.infer("Resize", 19, {"X": "float[N,C,H,W]", "sizes": "int64[4] = [N, C, 2*H, 64]"})
    assert str(r.outputs["Y"]) == "float[N,C,2*H,64]"
    r = shapecheck.infer("Resize", 13, {"X": "float[N,C,H,W]", "scales": "float[4]", "sizes": "int64[4]"})
    assert r.status == "invalid" and r.violations[0].constraint == "C2"


# ---- DepthToSpace and SpaceToDepth -----------------------------------------------------------

D2S_CASES = [(op, v, s) for op, vs in (("DepthToSpace", (7, 11, 13)), ("SpaceToDepth", (7, 13))) for v in vs for s in range(3)]


@pytest.mark.parametrize("op,opset,seed", D2S_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in D2S_CASES])
def test_depth_space_match_onnxruntime(op, opset, seed):
    rng = _rng(op, opset, seed)
    b = int(rng.integers(1, 4))
    n, c, h, w = (int(d) for d in rng.integers(1, 4, size=4))
    shape = (n, c * b * b, h, w) if op == "DepthToSpace" else (n, c, h * b, w * b)
    x = rng.standard_normal(shape).astype(np.float32 if seed % 2 else np.float64)
    attrs = {"blocksize": b}
    if op == "DepthToSpace" and opset >= 11 and seed != 1:
        attrs["mode"] = "CRD" if seed == 2 else "DCR"
    compare(op, opset, [("input", x)], attrs)


# ---- Einsum ----------------------------------------------------------------------------------

EQUATIONS = [("ij,jk->ik", ["ab", "bc"]), ("bij,bjk->bik", ["xab", "xbc"]), ("ii->i", ["aa"]), ("ii", ["aa"]),
             ("ij->", ["ab"]), ("i,j->ij", ["a", "b"]), ("...ij,...jk->...ik", ["xab", "xbc"]),
             ("bhsd,bhtd->bhst", ["xyab", "xycb"]), ("ij", ["ab"]), ("ji", ["ab"]), ("i,i", ["a", "a"]),
             ("bij , bjk", ["xab", "xbc"])]


@pytest.mark.parametrize("k", range(len(EQUATIONS)), ids=[e for e, _ in EQUATIONS])
def test_einsum_matches_onnxruntime(k):
    eq, dims = EQUATIONS[k]
    rng = _rng("einsum", k)
    size = {c: int(rng.integers(1, 5)) for c in "abcxy"}
    dt = [np.float32, np.float64, np.int32, np.int64][k % 4]
    ops = [(f"x{i}", (rng.standard_normal(tuple(size[c] for c in d)) * 5).astype(dt)) for i, d in enumerate(dims)]
    compare("Einsum", 12, ops, {"equation": eq}, tol=1e-4)


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


# ---- OneHot ----------------------------------------------------------------------------------

ONEHOT_CASES = [(v, s) for v in (9, 11) for s in range(5)]


@pytest.mark.parametrize("opset,seed", ONEHOT_CASES, ids=[f"OneHot-{v}-{s}" for v, s in ONEHOT_CASES])
def test_onehot_matches_onnxruntime(opset, seed):
    rng = _rng("onehot", opset, seed)
    depth = int(rng.integers(1, 6))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    idx = rng.integers(-depth - 1, depth + 2, size=shape).astype(np.int64)
    kind = seed % 3
    dv = np.array(depth, np.int64) if kind != 1 else np.array([depth + 0.6], np.float32)
    values = np.array([2, 9], np.float32 if kind != 2 else np.int64)
    axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
    compare("OneHot", opset, [("indices", idx), ("depth", dv), ("values", values)], {"axis": axis},
            valued=("depth",), out_dtype=values.dtype)


def test_onehot_depth_is_the_symbolic_value():
    r = shapecheck.infer("OneHot", 11, {"indices": "int64[N,S]", "depth": "int64[] = V", "values": "float[2]"})
    assert str(r.outputs["output"]) == "float[N,S,V]"
    r = shapecheck.infer("OneHot", 11, {"indices": "int64[N]", "depth": "int64[]", "values": "float[2]"}, {"axis": 0})
    d = r.outputs["output"].shape[0]
    assert is_unknown(d) and r.outputs["output"].shape[1:] == (symbol("N"),)


# ---- Clip ------------------------------------------------------------------------------------

CLIP_CASES = [(v, s) for v in (11, 12, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", CLIP_CASES, ids=[f"Clip-{v}-{s}" for v, s in CLIP_CASES])
def test_clip_matches_onnxruntime(opset, seed):
    rng = _rng("clip", opset, seed)
    # onnxruntime's Clip-11 kernel is float only; 12 adds double and the integer types
    dts = [np.float32] + ([np.float64, np.int32, np.int64, np.uint8, np.int8] if opset >= 12 else [])
    dt = dts[int(rng.integers(len(dts)))]
    x = (rng.standard_normal(tuple(int(d) for d in rng.integers(1, 5, size=2))) * 20).astype(dt)
    lo = np.array(int(rng.integers(0, 5)), dt) if rng.random() < 0.7 else None
    hi = np.array(int(rng.integers(5, 15)), dt) if rng.random() < 0.7 else None
    compare("Clip", opset, [("input", x), ("min", lo), ("max", hi)], {})


@pytest.mark.parametrize("seed", range(3))
def test_clip_attribute_form_matches_onnxruntime(seed):
    rng = _rng("clip6", seed)
    x = (rng.standard_normal((3, 4)) * 5).astype(np.float32)
    attrs = [{"min": -1.0, "max": 2.0}, {"max": 0.5}, {}][seed]
    compare("Clip", 7, [("input", x)], attrs)


def test_clip_keeps_the_value_of_an_integer_shape_tensor():
    r = shapecheck.infer("Clip", 13, {"input": "int64[3] = [N, 0, 20]", "min": "int64[] = 1", "max": "int64[] = 8"})
    assert str(r.outputs["output"]) == "int64[3] = [Min(8,Max(1,N)), 1, 8]"
    out = shapecheck.execute("Clip", 13, {"input": np.array([5, 0, 20]), "min": np.array(1), "max": np.array(8)})
    assert out["output"].tolist() == [5, 1, 8]


# ---- a graph ------------------------------------------------------------------------------------

def test_graph_of_tensor_ops_stays_exact_over_symbols():
    """Resize to sizes computed from Shape, a reflect Pad, an Einsum and a Clip: every output is exact
    over the input's dims, and onnxruntime's run of the model at one size agrees."""
    import onnxruntime as ort
    from onnx import TensorProto as T
    from onnx import numpy_helper as nh
    mk = helper.make_node
    nodes = [mk("Shape", ["x"], ["s"]), mk("Gather", ["s", "i2"], ["hh"]), mk("Mul", ["hh", "two"], ["h2"]),
             mk("Gather", ["s", "i3"], ["ww"]), mk("Mul", ["ww", "two"], ["w2"]), mk("Slice", ["s", "z", "two"], ["nc"]),
             mk("Concat", ["nc", "h2", "w2"], ["sz"], axis=0), mk("Resize", ["x", "", "", "sz"], ["y"], mode="nearest"),
             mk("Pad", ["y", "pads"], ["p"], mode="reflect"), mk("Einsum", ["p", "p"], ["e"], equation="nchw,nchv->ncwv"),
             mk("Clip", ["e", "lo"], ["c"])]
    inits = [nh.from_array(np.array([2]), "i2"), nh.from_array(np.array([3]), "i3"), nh.from_array(np.array([2]), "two"),
             nh.from_array(np.array([0]), "z"), nh.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1]), "pads"),
             nh.from_array(np.array(0, np.float32), "lo")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N", "C", "H", "W"])],
                          [helper.make_tensor_value_info("c", T.FLOAT, None)], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)], ir_version=8)
    rep = shapecheck.check_model(m)
    outs = [list(n.outputs.values())[0] for n in rep.nodes]
    assert outs[7:] == ["float[N,C,2*H,2*W]", "float[N,C,2*H+2,2*W+2]", "float[N,C,2*W+2,2*W+2]", "float[N,C,2*W+2,2*W+2]"]
    assert [n.status for n in rep.nodes].count("invalid") == 0
    assert any("H" in str(c) for c in rep.nodes[8].conditions)       # reflect needs 2*H >= 2: H >= 1
    x = np.random.default_rng(0).random((1, 2, 3, 4)).astype(np.float32)
    got = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert got.shape == (1, 2, 2 * 4 + 2, 2 * 4 + 2)
