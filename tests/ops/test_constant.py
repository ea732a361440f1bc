"""The constant ops (Cast, CastLike, Constant, ConstantOfShape, EyeLike): seeded random cases against
the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete
and on symbolic dims) and the rules' edges, and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper, numpy_helper

import shapecheck
from shapecheck.errors import ConstraintError
from shapecheck.types import ONNX_CODE_OF

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_case, code, compare, rng_for, values


NUMERIC = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64",
           "bool"]


INTEGER = {"int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64"}


ONNX_NAME = {"float32": "float", "float64": "double"}


def _source(rng, src: str, dst: str, shape) -> np.ndarray:
    if src == "string":   # text that every numeric target parses
        nums = rng.integers(0 if dst.startswith("u") else -5, 9, size=shape)
        text = [str(n) if dst in INTEGER else f"{n / 4}" for n in nums.reshape(-1)]
        return np.array(text, dtype=object).reshape(shape)
    a = values(rng, src, shape)
    if dst.startswith("u") and a.dtype.kind == "f":
        a = np.asarray(np.abs(a))      # a negative float cast to an unsigned type is undefined in C++
    return a


def cast_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 9, 13, 19, 21, 24][seed % 6]
    kinds = NUMERIC + (["string"] if opset >= 9 else [])
    src, dst = str(rng.choice(kinds)), str(rng.choice(kinds))
    if src == "string" and dst in ("string", "bool"):
        dst = "int64"      # onnxruntime parses "1"/"0" text as numbers only
    if seed % 5 == 0:
        src, dst = "int64", str(rng.choice(["int32", "int64", "float32", "bool"]))   # shape tensors
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0, 2 if src == "int64" else 4))))
    data = _source(rng, src, dst, shape)
    return "Cast", opset, {"input": data}, {"to": ONNX_CODE_OF[ONNX_NAME.get(dst, dst)]}, set(), dst in INTEGER


def castlike_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [15, 19, 24][seed % 3]
    src, dst = str(rng.choice(NUMERIC + ["string"])), str(rng.choice(NUMERIC + ["string"]))
    if src == "string" and dst in ("string", "bool"):
        dst = "float32"
    if seed % 4 == 0:
        src, dst = "int64", "int32"
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0, 2 if src == "int64" else 4))))
    target = values(rng, dst, (1,))
    return "CastLike", opset, {"input": _source(rng, src, dst, shape), "target_type": target}, {}, {"target_type"}, \
        dst in INTEGER


CAST_GENERATORS = {"Cast": cast_case, "CastLike": castlike_case}


CAST_CASES = [(op, seed) for op in CAST_GENERATORS for seed in range(48 if op == "Cast" else 24)]


@pytest.mark.parametrize("op,seed", CAST_CASES, ids=[f"{op}-{s}" for op, s in CAST_CASES])
def test_casts_match_onnxruntime(op, seed):
    op, opset, inputs, attrs, valued, keeps = CAST_GENERATORS[op](seed)
    check_case(op, opset, inputs, attrs, valued, keeps_value=keeps)


def test_cases_cover_versions_and_types():
    cases = [CAST_GENERATORS[op](s) for op, s in CAST_CASES]
    assert {c[1] for c in cases if c[0] == "Cast"} == {7, 9, 13, 19, 21, 24}
    pairs = {(str(c[2]["input"].dtype), c[3]["to"]) for c in cases if c[0] == "Cast"}
    assert ("object", ONNX_CODE_OF["float"]) in pairs or ("object", ONNX_CODE_OF["int64"]) in pairs
    assert any(c[3]["to"] == ONNX_CODE_OF["string"] for c in cases if c[0] == "Cast")


def test_integer_and_wide_float_casts_keep_symbolic_values_narrow_floats_do_not():
    """A size cast to float or double keeps its value (exact below 2**24 and 2**53, which the model's
    domain states as an assumption); float16 holds sizes exactly only to 2048, so it keeps none."""
    r = shapecheck.infer("Cast", 13, {"input": "int64[2] = [N, 3]"}, {"to": ONNX_CODE_OF["int32"]})
    assert str(r.outputs["output"]) == "int32[2] = [N, 3]"
    r = shapecheck.infer("Cast", 13, {"input": "int64[2] = [N, 3]"}, {"to": ONNX_CODE_OF["float"]})
    assert str(r.outputs["output"]) == "float[2] = [N, 3]"
    r = shapecheck.infer("Cast", 13, {"input": "int64[2] = [N, 3]"}, {"to": ONNX_CODE_OF["float16"]})
    assert str(r.outputs["output"]) == "float16[2]" and r.outputs["output"].sym is None
    r = shapecheck.infer("Cast", 13, {"input": "int64[2] = [4, 3]"}, {"to": ONNX_CODE_OF["float"]})
    assert r.outputs["output"].value.tolist() == [4.0, 3.0]          # concrete values are cast exactly
    r = shapecheck.infer("CastLike", 15, {"input": "int64[] = N", "target_type": "int32[1]"})
    assert str(r.outputs["output"]) == "int32[] = N"


def test_the_narrow_targets_are_element_types_of_their_own():
    r = shapecheck.infer("Cast", 19, {"input": "float[N,3]"}, {"to": 17})     # float8e4m3fn
    assert r.status == "valid" and str(r.outputs["output"]) == "float8e4m3fn[N,3]"
    r = shapecheck.infer("Cast", 25, {"input": "int4[N,3]"}, {"to": 26})      # int4 -> int2
    assert r.status == "valid" and str(r.outputs["output"]) == "int2[N,3]"
    r = shapecheck.infer("Cast", 13, {"input": "float[N,3]"}, {"to": 17})     # no float8 before 19
    assert r.status == "invalid" and r.violations[0].constraint == "C2"


def test_string_before_opset_9_and_complex_follow_the_page():
    with pytest.raises(ConstraintError, match="C2"):
        shapecheck.execute("Cast", 8, {"input": np.array([1], np.int64)}, {"to": ONNX_CODE_OF["string"]})
    with pytest.raises(ConstraintError, match="C1"):
        shapecheck.execute("Cast", 13, {"input": np.array([1], np.complex64)}, {"to": ONNX_CODE_OF["float"]})


def test_numbers_to_text_as_onnxruntime_writes_them():
    from tests.harness.runtime import run_ort_named as run_ort
    x = np.array([1.0, 1.5, -0.25, 1e10, np.nan, np.inf], np.float32)
    ours = shapecheck.execute("Cast", 13, {"input": x}, {"to": ONNX_CODE_OF["string"]})["output"]
    (theirs,) = run_ort("Cast", 13, {"input": x}, {"to": ONNX_CODE_OF["string"]}, ["string"])
    assert ours.tolist() == theirs.tolist() == ["1", "1.5", "-0.25", "1e+10", "NaN", "INF"]
    b = np.array([True, False])
    assert shapecheck.execute("Cast", 13, {"input": b}, {"to": ONNX_CODE_OF["string"]})["output"].tolist() == ["1", "0"]


FILL = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]


def constant_of_shape_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [9, 20][seed % 2]
    shape = np.array(rng.integers(0, 4, size=int(rng.integers(0, 4))), np.int64)
    attrs = {}
    if seed % 4:
        attrs["value"] = numpy_helper.from_array(values(rng, str(rng.choice(FILL)), (1,)), "value")
    return "ConstantOfShape", opset, {"input": shape}, attrs, set(), False


def _sparse(rng, dense_shape):
    n = int(np.prod(dense_shape))
    idx = np.sort(rng.choice(n, size=min(n, 2), replace=False)).astype(np.int64)
    vals = values(rng, "float32", (len(idx),))
    return helper.make_sparse_tensor(numpy_helper.from_array(vals, "v"), numpy_helper.from_array(idx, "i"), list(dense_shape))


def constant_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 9, 11, 12, 13, 19, 21][seed % 7]
    forms = ["value"] + (["sparse_value"] if opset >= 11 else []) + \
        (["value_float", "value_floats", "value_int", "value_ints", "value_string", "value_strings"] if opset >= 12 else [])
    form = forms[(seed // 7) % len(forms)]
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    dtype = "float32" if opset < 9 else str(rng.choice(FILL + (["string"] if opset >= 9 else [])))
    if form == "value":
        attr = numpy_helper.from_array(values(rng, dtype, shape), "value")
    elif form == "sparse_value":
        attr = _sparse(rng, shape or (3,))
    elif form == "value_float":
        attr = float(values(rng, "float32", ()))
    elif form == "value_floats":
        attr = [float(x) for x in values(rng, "float32", (3,))]
    elif form == "value_int":
        attr = int(rng.integers(-5, 9))
    elif form == "value_ints":
        attr = [int(x) for x in rng.integers(-5, 9, size=3)]
    elif form == "value_string":
        attr = "ab"
    else:
        attr = ["x", "yz"]
    return "Constant", opset, {}, {form: attr}, set(), False


GENERATORS = {"ConstantOfShape": constant_of_shape_case, "Constant": constant_case}


CASES = [(op, seed) for op in GENERATORS for seed in range(56 if op == "Constant" else 28)]


@pytest.mark.parametrize("op,seed", CASES, ids=[f"{op}-{s}" for op, s in CASES])
def test_constants_match_onnxruntime(op, seed):
    op, opset, inputs, attrs, valued, keeps = GENERATORS[op](seed)
    if "sparse_value" in attrs:
        _check_sparse_against_reference(opset, attrs)
        return
    check_case(op, opset, inputs, attrs, valued, keeps_value=keeps)


def _check_sparse_against_reference(opset: int, attrs: dict) -> None:
    """onnxruntime hands a sparse Constant graph output back as a sparse tensor: an Identity after it is dense."""
    import onnxruntime as ort
    nodes = [helper.make_node("Constant", [], ["c"], **attrs), helper.make_node("Identity", ["c"], ["y"])]
    g = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info("y", 1, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    (theirs,) = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {})
    ours = shapecheck.execute("Constant", opset, {}, attrs)["output"]
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)
    t = shapecheck.infer("Constant", opset, {}, attrs).outputs["output"]
    assert t.dtype == "float" and t.shape == theirs.shape


def test_cases_cover_every_form_and_version():
    cases = [GENERATORS[op](s) for op, s in CASES]
    forms = {next(iter(c[3])) for c in cases if c[0] == "Constant"}
    assert forms == {"value", "sparse_value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                     "value_strings"}
    assert {c[1] for c in cases if c[0] == "Constant"} == {7, 9, 11, 12, 13, 19, 21}
    assert {c[1] for c in cases if c[0] == "ConstantOfShape"} == {9, 20}


def test_constant_of_shape_takes_the_symbolic_shape():
    r = shapecheck.infer("ConstantOfShape", 20, {"input": "int64[3] = [B, S, 4]"})
    assert str(r.outputs["output"]) == "float[B,S,4]"
    r = shapecheck.infer("ConstantOfShape", 9, {"input": "int64[2]"}, {"value": np.array([1], np.int64)})
    assert r.outputs["output"].dtype == "int64" and r.outputs["output"].rank == 2
    r = shapecheck.infer("ConstantOfShape", 9, {"input": "int64[1] = [3]"}, {"value": np.array([7], np.int64)})
    assert str(r.outputs["output"]) == "int64[3] = [7, 7, 7]"


def test_constant_values_feed_downstream_rules():
    r = shapecheck.infer("Constant", 13, {}, {"value_ints": [0, -1]})
    assert str(r.outputs["output"]) == "int64[2] = [0, -1]"
    r = shapecheck.infer("Constant", 13, {}, {"value_int": 4})
    assert str(r.outputs["output"]) == "int64[] = 4"
    r = shapecheck.infer("Constant", 13, {}, {"value_int": 4, "value_ints": [1]})
    assert r.status == "invalid" and r.violations[0].constraint == "C1"


def test_constant_of_shape_of_a_scalar_value_is_refused_as_by_onnxruntime():
    with pytest.raises(ConstraintError, match="C3"):
        shapecheck.execute("ConstantOfShape", 20, {"input": np.array([2])}, {"value": np.array(1.0, np.float32)})


EYE_CASES = [(v, s) for v in (9, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", EYE_CASES, ids=[f"EyeLike-{v}-{s}" for v, s in EYE_CASES])
def test_eyelike_matches_onnxruntime(opset, seed):
    rng = rng_for("eyelike", opset, seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=2))
    x = np.zeros(shape, [np.float32, np.int32, np.float64][seed % 3])
    attrs: dict = {"k": int(rng.integers(-3, 4))}
    out = x.dtype
    if rng.random() < 0.5:
        out = np.dtype([np.int64, np.float32, np.uint64][seed % 3])     # onnxruntime: float, double, int32, int64, uint64
        attrs["dtype"] = code(out)
    compare("EyeLike", opset, [("input", x)], attrs, [code(out)])


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("constant")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 30


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "constant")


def test_constant_of_shape_of_a_large_size_is_typed_without_building_it():
    """ConstantOfShape to [4096, 25088] (a VGG classifier's) is float[4096,25088], and the check never builds
    its 400 MB: values are for shape-sized tensors only (the fold is skipped when the solver's type is
    larger than a fold may be)."""
    import tracemalloc
    from onnx import TensorProto
    g = helper.make_graph([helper.make_node("ConstantOfShape", ["s"], ["y"])], "g", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([4096, 25088], np.int64), "s")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    tracemalloc.start()
    try:
        rep = shapecheck.check_model(m)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(rep.types["y"]) == "float[4096,25088]" and rep.nodes[0].status == "valid"
    assert peak < 50e6, f"{peak / 1e6:.0f} MB"
