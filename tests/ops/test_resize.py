"""The resampling ops (Resize, Upsample, GridSample): seeded random cases against the runtimes (values,
dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete and on symbolic dims)
and the rules' edges, and ONNX's own node tests (``tests/harness/node_cases.py``; the per-op quirks
are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper, TensorProto
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.registry import default_registry
from shapecheck.solver import solve

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import code, compare, compare_one, one_node, rng_for, run_model, run_ort


GS_CASES = [(v, s) for v in (16, 20, 22) for s in range(9)]


@pytest.mark.parametrize("opset,seed", GS_CASES, ids=[f"GridSample-{v}-{s}" for v, s in GS_CASES])
def test_grid_sample_matches_onnxruntime(opset, seed):
    rng = rng_for("gridsample", opset, seed)
    r = 2 if opset == 16 or seed % 3 else 3                  # onnxruntime: cubic on 4-D X only
    modes = ("bilinear", "nearest", "bicubic") if opset == 16 else ("linear", "nearest", "cubic" if r == 2 else "linear")
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    x = rng.standard_normal((n, c) + tuple(int(d) for d in rng.integers(1, 5, size=r))).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (n,) + tuple(int(d) for d in rng.integers(1, 4, size=r)) + (r,)).astype(np.float32)
    attrs = {"mode": modes[seed % 3], "padding_mode": ("zeros", "border", "reflection")[(seed // 3) % 3],
             "align_corners": int(rng.integers(0, 2))}
    compare("GridSample", opset, [("X", x), ("grid", grid)], attrs, [code(np.float32)], tol=1e-5)


COORDS = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"]


NEAREST = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]


RESIZE_CASES = [(v, s) for v in (11, 13, 18, 19) for s in range(6)]


@pytest.mark.parametrize("opset,seed", RESIZE_CASES, ids=[f"Resize-{v}-{s}" for v, s in RESIZE_CASES])
def test_resize_matches_onnxruntime(opset, seed):
    rng = rng_for("resize", opset, seed)
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
    compare_one("Resize", opset, inputs, attrs, valued=("roi", "scales", "sizes"), tol=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_resize_axes_and_aspect_ratio_match_onnxruntime(seed):
    rng = rng_for("resize18", seed)
    h, w = (int(d) for d in rng.integers(2, 7, size=2))
    x = rng.random((1, 1, h, w)).astype(np.float32)
    policy = ["stretch", "not_larger", "not_smaller", "not_larger"][seed]
    sizes = np.array([int(d) for d in rng.integers(1, 10, size=2)], np.int64)
    attrs = {"mode": "nearest", "axes": [2, 3], "keep_aspect_ratio_policy": policy}
    compare_one("Resize", 18, [("X", x), ("roi", None), ("scales", None), ("sizes", sizes)], attrs, valued=("sizes",))


@pytest.mark.parametrize("seed", range(4))
def test_resize_10_and_upsample_match_onnxruntime(seed):
    rng = rng_for("upsample", seed)
    x = rng.random((1, 1, 3, 4)).astype(np.float32)
    mode = "linear" if seed % 2 else "nearest"
    scales = np.array([1, 1, float(rng.choice([1.0, 1.5, 2.0])), float(rng.choice([1.7, 2.0, 3.0]))], np.float32)
    compare_one("Resize", 10, [("X", x), ("scales", scales)], {"mode": mode}, valued=("scales",), tol=1e-4)
    compare_one("Upsample", 9, [("X", x), ("scales", scales)], {"mode": mode}, valued=("scales",), tol=1e-4)
    compare_one("Upsample", 7, [("X", x)], {"mode": mode, "scales": scales.tolist()}, tol=1e-4)


def test_resize_output_is_floor_of_scale_on_symbols():
    r = shapecheck.infer("Resize", 13, {"X": "float[N,C,H,W]", "scales": np.array([1, 1, 2, 0.5], np.float32)})
    assert str(r.outputs["Y"]) == "float[N,C,2*H,floor(W/2)]"
    r = shapecheck.infer("Resize", 19, {"X": "float[N,C,H,W]", "sizes": "int64[4] = [N, C, 2*H, 64]"})
    assert str(r.outputs["Y"]) == "float[N,C,2*H,64]"
    r = shapecheck.infer("Resize", 13, {"X": "float[N,C,H,W]", "scales": "float[4]", "sizes": "int64[4]"})
    assert r.status == "invalid" and r.violations[0].constraint == "C2"


@pytest.mark.parametrize("scale", [2.0, 0.5, 0.25, 4.0, 0.7, 1.3, 1.5, 0.3, 3.0])
def test_a_symbolic_scaled_dim_is_what_onnxruntime_runs_at_every_size(scale):
    # found on exports with scale_factor=0.7: floor(H * 0.699999988) is 6 at H = 10, where onnxruntime
    # (and torch) compute 7 in float32; a scale that is not a power of two gives a fresh dim instead
    import onnxruntime as ort
    from shapecheck.dims import is_unknown
    r = shapecheck.infer("Resize", 13, {"X": "float[1,1,H,2]", "scales": np.array([1, 1, scale, 1], np.float32)},
                         {"mode": "nearest"})
    d = r.outputs["Y"].shape[2]
    assert is_unknown(d) != (scale in (2.0, 0.5, 0.25, 4.0)), d
    m = helper.make_model(helper.make_graph(
        [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="nearest")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, "H", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("s", TensorProto.FLOAT, [4], [1, 1, scale, 1])]), opset_imports=[helper.make_opsetid("", 13)])
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for h in range(1, 300):
        ran = session.run(None, {"x": np.zeros((1, 1, h, 2), np.float32)})[0].shape[2]
        at = shapecheck.infer("Resize", 13, {"X": f"float[1,1,{h},2]", "scales": np.array([1, 1, scale, 1], np.float32)},
                              {"mode": "nearest"}).outputs["Y"].shape[2] if h % 37 == 0 else None
        assert at in (None, ran), (h, at, ran)
        if not is_unknown(d):
            assert d.subs(next(iter(d.free_symbols)), h) == ran, (h, d, ran)


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
    # reflect needs 2*H >= 2, H >= 1: what every input dim >= 1 (the default assumption) gives, so the
    # node is valid; with empty dims allowed it is a condition of the node and of the domain
    assert rep.nodes[8].status == "valid" and rep.nodes[8].conditions == []
    empty = shapecheck.check_model(m, assume_nonempty=False)
    assert empty.nodes[8].status == "conditional" and any("H" in str(c) for c in empty.nodes[8].conditions)
    x = np.random.default_rng(0).random((1, 2, 3, 4)).astype(np.float32)
    got = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert got.shape == (1, 2, 2 * 4 + 2, 2 * 4 + 2)


ANTIALIAS_COORDS = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric")


def _draw(rng: np.random.Generator):
    """A random downscale with a whole ``in * scale`` on the last two axes (the others kept)."""
    rank = int(rng.choice([2, 4]))
    shape = [int(rng.integers(1, 3)) for _ in range(rank - 2)] + [int(rng.integers(3, 12)) for _ in range(2)]
    outs = [int(rng.integers(2, d + 1)) for d in shape[-2:]]
    j = int(rng.integers(0, 2))
    outs[j] = int(rng.integers(2, shape[j - 2]))   # at least one axis shrinks
    mode = str(rng.choice(["linear", "cubic"]))
    attrs = {"mode": mode, "antialias": 1, "coordinate_transformation_mode": str(rng.choice(ANTIALIAS_COORDS)),
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


ANTIALIAS_CASES = []


_draw_rng = np.random.default_rng(20261123)


while len(ANTIALIAS_CASES) < 60:
    case = _draw(_draw_rng)
    if _whole(case[0], case[1]):
        ANTIALIAS_CASES.append(case)


def test_the_cases_cover_the_attributes():
    seen = {(a["mode"], a["coordinate_transformation_mode"], a["exclude_outside"]) for _, _, a in ANTIALIAS_CASES}
    assert len(seen) >= 15
    assert {X.ndim for X, _, _ in ANTIALIAS_CASES} == {2, 4} and {v[0] for _, v, _ in ANTIALIAS_CASES} == {"scales", "sizes"}
    assert all(any(o < d for o, d in zip(shapecheck.execute("Resize", 19, {"X": X, v[0]: v[1]}, a)["Y"].shape, X.shape))
               for X, v, a in ANTIALIAS_CASES)
    # the filter matters: on most cases the plain interpolation gives other values
    plain = [shapecheck.execute("Resize", 19, {"X": X, v[0]: v[1]}, dict(a, antialias=0))["Y"] for X, v, a in ANTIALIAS_CASES]
    differ = sum(not np.allclose(p, shapecheck.execute("Resize", 19, {"X": X, v[0]: v[1]}, a)["Y"], atol=1e-3)
                 for p, (X, v, a) in zip(plain, ANTIALIAS_CASES))
    assert differ >= len(ANTIALIAS_CASES) * 3 // 4, differ


@pytest.mark.parametrize("k", range(len(ANTIALIAS_CASES)))
def test_random_downscale_matches_both_runtimes(k):
    X, value, attrs = ANTIALIAS_CASES[k]
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
    spec = default_registry().resolve("Resize", 18)
    args = {"X": "float[1,1,4,4]", "scales": "float[4] = [1, 1, 0.5, 0.5]"}
    assert [w.constraint for w in solve(spec, args, {"antialias": 1}).warnings] == ["W1"]
    assert solve(spec, args, {"antialias": 1, "mode": "linear"}).warnings == []


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("resize")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 55


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "resize")


def test_the_antialias_node_cases_run():
    """Resize's antialias cases, once checked by the solver alone, run through both."""
    names = {c.name for c in NODE_CASES}
    assert {f"test_resize_downsample_{g}_{m}_antialias" for g in ("scales", "sizes") for m in ("linear", "cubic")} <= names


def test_a_size_of_zero_is_refused_as_onnxruntime_refuses_it():
    # a torch export of interpolate(scale_factor=0.7, recompute_scale_factor=True) resizes to
    # floor(0.7 * H), 0 at H = 1: onnxruntime fails ("Scale value should be greater than 0"), and the
    # domain admitted it; sizes H - 1 (a Shape minus one) make the condition H >= 2
    import onnxruntime as ort
    from onnx import numpy_helper
    nodes = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Sub", ["s", "delta"], ["sizes"]),
             helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, "H", 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([0, 0, 1, 0]), "delta")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    rep = shapecheck.check_model(m)
    assert rep.domain.text() == "H >= 2"
    options = ort.SessionOptions()
    options.log_severity_level = 4
    session = ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
    for h in range(1, 6):
        try:
            session.run(None, {"x": np.zeros((1, 1, h, 2), np.float32)})
            ran = True
        except Exception:
            ran = False
        assert rep.domain.admits({"H": h}) is ran, h
    bad = shapecheck.infer("Resize", 13, {"X": "float[1,1,2,2]", "sizes": np.array([1, 1, 0, 2])}, {"mode": "nearest"})
    assert bad.status == "invalid" and bad.violations[0].constraint == "C7"


RESIZE_EMPTY_AXIS_CASES = [
    # (X shape, sizes or None, scales or None, attrs): each axis in 0/out 0, in 0/out n, in n/out 0, in n/out n
    ([0, 3, 2, 2], [0, 3, 3, 3], None, {}),            # a user's trial: batch 0, onnxruntime gives Y [0, 3, 3, 3]
    ([1, 3, 0, 2], [1, 3, 0, 3], None, {}),
    ([0, 3, 2, 2], [1, 3, 3, 3], None, {}),            # "Input dim is zero but required output dim is non-zero"
    ([1, 3, 0, 2], [1, 3, 2, 3], None, {}),
    ([1, 1, 2, 2], [1, 1, 0, 2], None, {}),            # Q30 1b: "Scale value should be greater than 0"
    ([1, 1, 2, 2], [0, 1, 2, 2], None, {}),
    ([1, 1, 2, 2], [1, 1, 3, 3], None, {}),
    ([0, 3, 2, 2], None, [1, 1, 1.5, 1.5], {}),        # scales: an empty axis stays empty
    ([1, 3, 0, 2], None, [1, 1, 1.5, 1.5], {}),
    ([1, 1, 1, 2], None, [1, 1, 0.5, 1], {}),          # floor(1 * 0.5) = 0 from a non-empty axis runs
    ([1, 3, 0, 2], [0, 3], None, {"axes": [2, 3]}),
    ([1, 3, 0, 2], [2, 3], None, {"axes": [2, 3]}),
    ([1, 3, 2, 2], [0, 3], None, {"axes": [2, 3]}),
    ([0, 3, 2, 2], [3, 3], None, {"axes": [2, 3]}),
    ([0, 3, 2, 2], [1, 3, 4, 4], None, {"keep_aspect_ratio_policy": "not_larger"}),
    ([1, 3, 2, 2], [1, 3, 0, 4], None, {"keep_aspect_ratio_policy": "not_larger"}),
]


@pytest.mark.parametrize("opset", [11, 13, 18, 19])
@pytest.mark.parametrize("xs,sizes,scales,attrs", RESIZE_EMPTY_AXIS_CASES)
def test_an_empty_axis_resizes_exactly_where_onnxruntime_runs_it(opset, xs, sizes, scales, attrs):
    """Q30 1c: with sizes, an output axis is 0 exactly where the input axis is 0 (C7, per axis); C7 refused
    every size of 0 before, the batch-0 resize onnxruntime runs included."""
    from onnx import numpy_helper
    if attrs and opset < 18:
        pytest.skip("axes and keep_aspect_ratio_policy come at 18")
    inits = [numpy_helper.from_array(np.array([], np.float32), "roi"),
             numpy_helper.from_array(np.array(scales if scales else [], np.float32), "scales")]
    names = ["x", "roi", "scales"]
    if sizes is not None:
        inits.append(numpy_helper.from_array(np.array(sizes, np.int64), "sizes"))
        names.append("sizes")
    node = helper.make_node("Resize", names, ["y"], mode="nearest", **attrs)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, xs)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    outs = run_model(m, {"x": np.zeros(xs, np.float32)})
    ran = outs is not None
    (rep,) = shapecheck.check_model(m).nodes
    assert (rep.status == "valid") is ran, (rep.status, [v.constraint for v in rep.violations])
    if ran:
        assert rep.outputs["Y"] == f"float[{','.join(str(d) for d in outs[0].shape)}]"
    else:
        assert "C7" in [v.constraint for v in rep.violations]


def test_the_executor_resizes_an_empty_batch_as_onnxruntime_does():
    """onnxruntime runs X [0, 3, 2, 2] with sizes [0, 3, 3, 3] and returns Y [0, 3, 3, 3] (Q30 1c); the solver
    proves C7 and gives that shape, the executor should return an empty Y of it."""
    out = shapecheck.execute("Resize", 13, {"X": np.zeros((0, 3, 2, 2), np.float32),
                                            "sizes": np.array([0, 3, 3, 3], np.int64)}, {"mode": "nearest"})
    assert out["Y"].shape == (0, 3, 3, 3)
