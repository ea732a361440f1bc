"""Unsqueeze, Squeeze, Identity, Flatten, Transpose: shapecheck.execute against onnxruntime on
seeded random cases at every spec version, and shapecheck.infer (dims as symbols, shape tensors
as symbolic values) against the run's shapes and values.  The last tests pin down the cases
where the runtimes disagree with the page or with each other (docs/runtime-findings.md).
"""
from __future__ import annotations

import numpy as np
import pytest

import shapecheck
from shapecheck.errors import ConstraintError
from tests.layout_harness import check_case, values

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


# ---------------------------------------------------------------- value rules on shape tensors

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


# ---------------------------------------------------------------- where runtimes and page disagree

def test_unsqueeze_duplicate_axes_rejected_as_onnxruntime_does():
    with pytest.raises(ConstraintError, match="C3"):
        shapecheck.execute("Unsqueeze", 13, {"data": np.zeros((2, 3), np.float32), "axes": np.array([0, 0])})


def test_squeeze_axis_named_twice_is_squeezed_once_as_onnxruntime_does():
    from tests.layout_harness import run_ort
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
    from tests.layout_harness import run_ort
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


@pytest.mark.parametrize("name", ["shapecheck.functions.layout", "shapecheck.functions.constant", "shapecheck.registry.attributes", "shapecheck.kernels.layout", "shapecheck.kernels.constant"])
def test_doctests_of_the_layout_modules(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------- a whole graph, as exporters write it

def _shape_graph():
    from onnx import TensorProto as T
    from onnx import helper, numpy_helper
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
