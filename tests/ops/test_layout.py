"""The layout ops ((Un)Squeeze, Identity, Flatten, Transpose, Tile, Pad, DepthToSpace, SpaceToDepth,
ReverseSequence): seeded random cases against the runtimes (values, dtypes and shapes from
``shapecheck.execute``, the solver's types on concrete and on symbolic dims) and the rules' edges,
and ONNX's own node tests (``tests/harness/node_cases.py``; the per-op quirks are
``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import shapecheck
from shapecheck.dims import is_unknown
from shapecheck.errors import ConstraintError

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_case, code, compare, compare_one, rng_for, run_ort, values


FILL = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]


def tile_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 13][seed % 2]
    if seed % 5 == 0:   # a shape tensor tiled
        data = np.array(rng.integers(0, 9, size=int(rng.integers(1, 4))), np.int64)
    else:
        data = values(rng, str(rng.choice(FILL + ["string"])), tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 4)))))
    repeats = np.array(rng.integers(0 if seed % 3 == 0 else 1, 4, size=data.ndim), np.int64)
    return "Tile", opset, {"input": data, "repeats": repeats}, {}, {"repeats"}, seed % 5 == 0


TILE_CASES = list(range(28))


@pytest.mark.parametrize("seed", TILE_CASES, ids=[f"Tile-{s}" for s in TILE_CASES])
def test_tile_matches_onnxruntime(seed):
    op, opset, inputs, attrs, valued, keeps = tile_case(seed)
    check_case(op, opset, inputs, attrs, valued, keeps_value=keeps)


def test_tile_multiplies_symbolic_dims_and_tiles_shape_values():
    r = shapecheck.infer("Tile", 13, {"input": "float[1,S,D]", "repeats": "int64[3] = [B, 1, 2]"})
    assert str(r.outputs["output"]) == "float[B,S,2*D]"
    r = shapecheck.infer("Tile", 13, {"input": "int64[2] = [N, 4]", "repeats": "int64[1] = [2]"})
    assert str(r.outputs["output"]) == "int64[4] = [N, 4, N, 4]"
    r = shapecheck.infer("Tile", 13, {"input": "float[N,3]", "repeats": "int64[2]"})
    assert r.outputs["output"].rank == 2


def test_tile_repeats_of_the_wrong_length_are_refused_as_by_onnxruntime():
    # onnx.reference tiles anyway
    with pytest.raises(ConstraintError, match="C3"):
        shapecheck.execute("Tile", 13, {"input": np.zeros((2, 3), np.float32), "repeats": np.array([2])})


DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool", "string"]


def _dtype(rng, opset_floats_only: bool = False) -> str:
    return str(rng.choice(["float32", "float64", "float16"] if opset_floats_only else DTYPES))


def _shape(rng, lo: int = 0, hi: int = 3, ones: float = 0.0) -> tuple:
    r = int(rng.integers(lo, hi + 1))
    return tuple(1 if rng.random() < ones else int(rng.integers(2, 4)) for _ in range(r))


def unsqueeze_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 11, 13, 13][seed % 4]
    dtype = "int64" if seed % 5 == 0 else _dtype(rng)
    data = values(rng, dtype, _shape(rng, 0, 1 if dtype == "int64" else 3))
    k = int(rng.integers(1, 3))
    out_rank = data.ndim + k
    axes = [int(a) for a in rng.choice(out_rank, size=k, replace=False)]
    if opset >= 11:
        axes = [a - out_rank if rng.random() < 0.4 else a for a in axes]
    if opset >= 13:
        return "Unsqueeze", opset, {"data": data, "axes": np.array(axes, np.int64)}, {}, {"axes"}
    return "Unsqueeze", opset, {"data": data}, {"axes": axes}, set()


def squeeze_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 11, 13, 13][seed % 4]
    dtype = "int64" if seed % 5 == 0 else _dtype(rng)
    data = values(rng, dtype, _shape(rng, 1, 2 if dtype == "int64" else 4, ones=0.5))
    ones = [i for i, d in enumerate(data.shape) if d == 1]
    axes = None
    if ones and rng.random() < 0.7:
        axes = [int(a) for a in rng.choice(ones, size=int(rng.integers(1, len(ones) + 1)), replace=False)]
        if opset >= 11:
            axes = [a - data.ndim if rng.random() < 0.4 else a for a in axes]
    if opset >= 13:
        return "Squeeze", opset, {"data": data, "axes": None if axes is None else np.array(axes, np.int64)}, {}, {"axes"}
    return "Squeeze", opset, {"data": data}, ({} if axes is None else {"axes": axes}), set()


def identity_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 13, 16, 19][seed % 4]
    dtype = "int64" if seed % 3 == 0 else _dtype(rng)
    return "Identity", opset, {"input": values(rng, dtype, _shape(rng, 0, 1 if dtype == "int64" else 3))}, {}, set()


def flatten_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 9, 11, 13][seed % 4]
    data = values(rng, _dtype(rng, opset < 9), _shape(rng, 0, 4))
    r = data.ndim
    axis = int(rng.integers(-r if opset >= 11 else 0, r + 1))
    return "Flatten", opset, {"input": data}, {"axis": axis}, set()


def transpose_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 13][seed % 2]
    data = values(rng, _dtype(rng), _shape(rng, 0, 4))
    attrs = {} if rng.random() < 0.3 or data.ndim == 0 else {"perm": [int(p) for p in rng.permutation(data.ndim)]}
    return "Transpose", opset, {"data": data}, attrs, set()


GENERATORS = {"Unsqueeze": unsqueeze_case, "Squeeze": squeeze_case, "Identity": identity_case,
              "Flatten": flatten_case, "Transpose": transpose_case}


CASES = [(op, seed) for op in GENERATORS for seed in range(30)]


KEEPS_VALUE = {"Unsqueeze", "Squeeze", "Identity"}


@pytest.mark.parametrize("op,seed", CASES, ids=[f"{op}-{s}" for op, s in CASES])
def test_matches_onnxruntime(op, seed):
    op, opset, inputs, attrs, valued = GENERATORS[op](seed)
    check_case(op, opset, inputs, attrs, valued, keeps_value=op in KEEPS_VALUE)


def test_cases_cover_every_version():
    seen = {(c[0], c[1]) for c in (GENERATORS[op](s) for op, s in CASES)}
    want = {("Unsqueeze", 7), ("Unsqueeze", 11), ("Unsqueeze", 13), ("Squeeze", 7), ("Squeeze", 11), ("Squeeze", 13),
            ("Identity", 7), ("Identity", 13), ("Flatten", 7), ("Flatten", 9), ("Flatten", 11), ("Flatten", 13),
            ("Transpose", 7), ("Transpose", 13)}
    assert want <= seen


def test_shape_tensor_values_survive_unsqueeze_squeeze_identity():
    r = shapecheck.infer("Unsqueeze", 13, {"data": "int64[] = N", "axes": "int64[1] = [0]"})
    assert str(r.outputs["expanded"]) == "int64[1] = [N]"
    r = shapecheck.infer("Unsqueeze", 11, {"data": "int64[] = N"}, {"axes": [0]})
    assert str(r.outputs["expanded"]) == "int64[1] = [N]"
    r = shapecheck.infer("Squeeze", 13, {"data": "int64[1] = [N]", "axes": "int64[1] = [0]"})
    assert str(r.outputs["squeezed"]) == "int64[] = N"
    r = shapecheck.infer("Squeeze", 13, {"data": "int64[1] = [N]"})
    assert str(r.outputs["squeezed"]) == "int64[] = N"
    r = shapecheck.infer("Identity", 16, {"input": "int64[2] = [N, 12]"})
    assert str(r.outputs["output"]) == "int64[2] = [N, 12]"
    r = shapecheck.infer("Flatten", 13, {"input": "int64[1] = [N]"}, {"axis": 0})
    assert str(r.outputs["output"]) == "int64[1,1]"          # rank 2: no symbolic value, but the type is exact


def test_symbolic_dims_flow_through():
    r = shapecheck.infer("Flatten", 13, {"input": "float[B,S,D]"}, {"axis": -1})
    assert str(r.outputs["output"]) == "float[B*S,D]"
    r = shapecheck.infer("Flatten", 13, {"input": "float"}, {"axis": 1})
    assert r.outputs["output"].rank == 2                       # rank 2 even where the input's is unknown
    r = shapecheck.infer("Transpose", 13, {"data": "float[B,S,H,D]"}, {"perm": [0, 2, 1, 3]})
    assert str(r.outputs["transposed"]) == "float[B,H,S,D]"
    r = shapecheck.infer("Transpose", 13, {"data": "float[B,S]"})
    assert str(r.outputs["transposed"]) == "float[S,B]"
    r = shapecheck.infer("Unsqueeze", 13, {"data": "float[B,S]", "axes": "int64[2] = [1, -1]"})
    assert str(r.outputs["expanded"]) == "float[B,1,S,1]"


def test_squeeze_without_axes_is_sound_on_symbolic_dims():
    # N may be 1 at run time, and then it goes: the rank is not known, and shapecheck says so
    r = shapecheck.infer("Squeeze", 13, {"data": "float[N,1,3]"})
    assert r.outputs["squeezed"].shape is None and r.status == "valid"
    # known dims only: exact
    r = shapecheck.infer("Squeeze", 13, {"data": "float[2,1,3]"})
    assert str(r.outputs["squeezed"]) == "float[2,3]"
    # with axes on a symbolic dim: the condition N == 1, and the output without it
    r = shapecheck.infer("Squeeze", 13, {"data": "float[N,3]", "axes": "int64[1] = [0]"})
    assert r.status == "conditional" and r.conditions == ["N == 1"]
    assert str(r.outputs["squeezed"]) == "float[3]"


def test_unsqueeze_axes_of_unknown_values_give_rank_only():
    r = shapecheck.infer("Unsqueeze", 13, {"data": "float[N,3]", "axes": "int64[2]"})
    assert r.outputs["expanded"].rank == 4
    assert all(c.status != "refuted" for c in r.constraints)


def test_unsqueeze_duplicate_axes_rejected_as_onnxruntime_does():
    with pytest.raises(ConstraintError, match="C3"):
        shapecheck.execute("Unsqueeze", 13, {"data": np.zeros((2, 3), np.float32), "axes": np.array([0, 0])})


def test_squeeze_axis_named_twice_is_squeezed_once_as_onnxruntime_does():
    from tests.harness.runtime import run_ort_named as run_ort
    data = np.zeros((2, 1, 3, 1), np.float32)
    out = shapecheck.execute("Squeeze", 11, {"data": data}, {"axes": [1, -3]})["squeezed"]
    (theirs,) = run_ort("Squeeze", 11, {"data": data}, {"axes": [1, -3]}, ["float"])
    assert out.shape == theirs.shape == (2, 3, 1)
    assert str(shapecheck.infer("Squeeze", 11, {"data": "float[N,1,3]"}, {"axes": [1, 1]}).outputs["squeezed"]) == "float[N,3]"


def test_squeeze_named_dim_not_one_rejected():
    with pytest.raises(ConstraintError, match="C3"):
        shapecheck.execute("Squeeze", 13, {"data": np.zeros((2, 3), np.float32), "axes": np.array([0])})


def test_squeeze_empty_axes_follows_onnxruntime():
    # onnxruntime squeezes every 1 for an empty axes tensor; onnx.reference squeezes nothing (runtime-findings)
    data = np.zeros((2, 1, 3), np.float32)
    out = shapecheck.execute("Squeeze", 13, {"data": data, "axes": np.zeros(0, np.int64)})["squeezed"]
    from tests.harness.runtime import run_ort_named as run_ort
    (theirs,) = run_ort("Squeeze", 13, {"data": data, "axes": np.zeros(0, np.int64)}, {}, ["float"])
    assert out.shape == theirs.shape == (2, 3)


def test_negative_axes_before_version_11_follow_the_page():
    # onnxruntime runs axes=[-1] at opset 10; the page allows only non-negative axes before 11
    r = shapecheck.infer("Unsqueeze", 10, {"data": "float[2,3]"}, {"axes": [-1]})
    assert r.status == "invalid" and r.violations[0].constraint == "C3"
    r = shapecheck.infer("Flatten", 10, {"input": "float[2,3]"}, {"axis": -1})
    assert r.status == "invalid" and r.violations[0].constraint == "C2"


def test_transpose_negative_perm_rejected_as_onnxruntime_does():
    with pytest.raises(ConstraintError, match="C2"):
        shapecheck.execute("Transpose", 13, {"data": np.zeros((2, 3), np.float32)}, {"perm": [-1, 0]})


def _shape_graph():
    from onnx import TensorProto as T
    from onnx import helper
    mk = helper.make_node
    nodes = [mk("Shape", ["x"], ["s"]), mk("Constant", [], ["i0"], value_int=0), mk("Gather", ["s", "i0"], ["n"]),
             mk("Constant", [], ["ax"], value_ints=[0]), mk("Unsqueeze", ["n", "ax"], ["n1"]),
             mk("Constant", [], ["m1"], value=numpy_helper.from_array(np.array([-1], np.int64))),
             mk("Concat", ["n1", "m1"], ["tgt"], axis=0), mk("Cast", ["tgt"], ["t32"], to=T.INT32),
             mk("Cast", ["t32"], ["t64"], to=T.INT64), mk("Reshape", ["x", "t64"], ["y"]),
             mk("ConstantOfShape", ["s"], ["z"], value=numpy_helper.from_array(np.array([1], np.int64))),
             mk("Transpose", ["y"], ["yt"]), mk("Flatten", ["x"], ["f"], axis=2), mk("Squeeze", ["n1"], ["n2"]),
             mk("Concat", ["one", "n1", "one"], ["rep"], axis=0), mk("Tile", ["x", "rep"], ["tl"]),
             mk("CastLike", ["s", "t32"], ["s32"]), mk("Identity", ["s32"], ["s32b"])]
    outs = ["y", "z", "yt", "f", "n2", "tl", "s32b"]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["N", 3, 4])],
                          [helper.make_tensor_value_info(o, t, None) for o, t in zip(outs, [T.FLOAT, T.INT64, T.FLOAT, T.FLOAT,
                                                                                           T.INT64, T.FLOAT, T.INT32])],
                          [numpy_helper.from_array(np.array([1], np.int64), "one")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=8), outs


def test_shape_computations_keep_the_models_dims_through_the_graph():
    import onnxruntime as ort
    m, outs = _shape_graph()
    rep = shapecheck.check_model(m)
    by_op = {n.op_type: n for n in rep.nodes}
    assert all(n.status == "valid" for n in rep.nodes)
    assert by_op["Reshape"].outputs["reshaped"] == "float[N,12]"
    assert by_op["ConstantOfShape"].outputs["output"] == "int64[N,3,4]"
    assert by_op["Transpose"].outputs["transposed"] == "float[12,N]"
    assert by_op["Flatten"].outputs["output"] == "float[3*N,4]"
    assert by_op["Squeeze"].outputs["squeezed"] == "int64[] = N"
    assert by_op["Identity"].outputs["output"] == "int32[3] = [N, 3, 4]"
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (2, 5):   # the run agrees at two sizes
        y, z, yt, f, n2, tl, s32b = sess.run(outs, {"x": np.zeros((n, 3, 4), np.float32)})
        assert (y.shape, z.shape, yt.shape, f.shape, n2.tolist(), tl.shape, s32b.tolist()) == \
            ((n, 12), (n, 3, 4), (12, n), (3 * n, 4), n, (n, 3 * n, 4), [n, 3, 4])
    assert by_op["Tile"].outputs["output"] == "float[N,3*N,4]"


RS_CASES = list(range(8))


@pytest.mark.parametrize("seed", RS_CASES, ids=[f"ReverseSequence-10-{s}" for s in RS_CASES])
def test_reverse_sequence_matches_onnxruntime(seed):
    rng = rng_for("reverse_sequence", seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(2, 4))))
    batch_axis = int(rng.integers(0, 2))
    x = rng.standard_normal(shape).astype([np.float32, np.int64][seed % 2])
    lens = rng.integers(0, shape[1 - batch_axis] + 1, size=shape[batch_axis]).astype(np.int64)
    compare("ReverseSequence", 10, [("input", x), ("sequence_lens", lens)],
            {"batch_axis": batch_axis, "time_axis": 1 - batch_axis}, [code(x.dtype)])


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
    rng = rng_for("pad", opset, seed)
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
    compare_one("Pad", opset, inputs, {"mode": mode}, valued=("pads", "axes"))


@pytest.mark.parametrize("seed", range(4))
def test_pad_attribute_form_matches_onnxruntime(seed):
    rng = rng_for("pad2", seed)
    shape = tuple(int(d) for d in rng.integers(2, 5, size=2))
    mode = ["constant", "reflect", "edge"][seed % 3]
    pads = _pads(rng, shape, [0, 1], mode).tolist()
    x = rng.standard_normal(shape).astype(np.float32)
    compare_one("Pad", 7, [("data", x)], {"mode": mode, "pads": pads, "value": 2.5})


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


D2S_CASES = [(op, v, s) for op, vs in (("DepthToSpace", (7, 11, 13)), ("SpaceToDepth", (7, 13))) for v in vs for s in range(3)]


@pytest.mark.parametrize("op,opset,seed", D2S_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in D2S_CASES])
def test_depth_space_match_onnxruntime(op, opset, seed):
    rng = rng_for(op, opset, seed)
    b = int(rng.integers(1, 4))
    n, c, h, w = (int(d) for d in rng.integers(1, 4, size=4))
    shape = (n, c * b * b, h, w) if op == "DepthToSpace" else (n, c, h * b, w * b)
    x = rng.standard_normal(shape).astype(np.float32 if seed % 2 else np.float64)
    attrs = {"blocksize": b}
    if op == "DepthToSpace" and opset >= 11 and seed != 1:
        attrs["mode"] = "CRD" if seed == 2 else "DCR"
    compare_one(op, opset, [("input", x)], attrs)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("layout")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 40


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "layout")


def _reshape_by_batch():
    """x[batch, n] reshaped to [Shape(x)[0], -1], as a transformer's attention reshapes by its batch."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
             helper.make_node("Unsqueeze", ["b", "axes"], ["b1"]),
             helper.make_node("Concat", ["b1", "minus_one"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")]
    inits = [helper.make_tensor("zero", TensorProto.INT64, [], [0]), helper.make_tensor("axes", TensorProto.INT64, [1], [0]),
             helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "n"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_a_minus_one_beside_a_dim_that_is_0_at_run_time_is_a_condition_with_empty_dims():
    # a new user's trial: with --allow-empty-dims a GPT-2 export was 'valid for batch >= 0', but at
    # batch 0 the -1 is ambiguous and onnxruntime refuses it
    import onnxruntime as ort
    m = _reshape_by_batch()
    rep = shapecheck.check_model(m)   # every input dim >= 1: the Reshape is valid
    assert rep.domain.text() == "batch >= 1, n >= 1" and all(n.status == "valid" for n in rep.nodes)
    empty = shapecheck.check_model(m, assume_nonempty=False)
    assert empty.domain.text() == "batch >= 1, n >= 0"
    assert [(r.text, [s.node for s in r.sources]) for r in empty.domain.relations] == [("batch >= 1", ["reshape"])]
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    assert sess.run(None, {"x": np.zeros((2, 0), np.float32)})[0].shape == (2, 0)   # n = 0 runs
    with pytest.raises(Exception):
        sess.run(None, {"x": np.zeros((0, 3), np.float32)})                          # batch = 0 does not
