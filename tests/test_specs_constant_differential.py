"""ConstantOfShape, Constant and Tile: shapecheck.execute against onnxruntime on seeded random
cases at every spec version, and shapecheck.infer against the run: ConstantOfShape's output
shape is its input's (symbolic) value, Constant's output is its attribute (every value_* form
and sparse_value), Tile multiplies dims by the repeat counts and tiles a shape tensor's value.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper, numpy_helper

import shapecheck
from shapecheck.errors import ConstraintError
from tests.layout_harness import check_case, values

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


def tile_case(seed: int):
    rng = np.random.default_rng(seed)
    opset = [7, 13][seed % 2]
    if seed % 5 == 0:   # a shape tensor tiled
        data = np.array(rng.integers(0, 9, size=int(rng.integers(1, 4))), np.int64)
    else:
        data = values(rng, str(rng.choice(FILL + ["string"])), tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 4)))))
    repeats = np.array(rng.integers(0 if seed % 3 == 0 else 1, 4, size=data.ndim), np.int64)
    return "Tile", opset, {"input": data, "repeats": repeats}, {}, {"repeats"}, seed % 5 == 0


GENERATORS = {"ConstantOfShape": constant_of_shape_case, "Constant": constant_case, "Tile": tile_case}
CASES = [(op, seed) for op in GENERATORS for seed in range(56 if op == "Constant" else 28)]


@pytest.mark.parametrize("op,seed", CASES, ids=[f"{op}-{s}" for op, s in CASES])
def test_matches_onnxruntime(op, seed):
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


# ---------------------------------------------------------------- value and shape rules

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


def test_tile_multiplies_symbolic_dims_and_tiles_shape_values():
    r = shapecheck.infer("Tile", 13, {"input": "float[1,S,D]", "repeats": "int64[3] = [B, 1, 2]"})
    assert str(r.outputs["output"]) == "float[B,S,2*D]"
    r = shapecheck.infer("Tile", 13, {"input": "int64[2] = [N, 4]", "repeats": "int64[1] = [2]"})
    assert str(r.outputs["output"]) == "int64[4] = [N, 4, N, 4]"
    r = shapecheck.infer("Tile", 13, {"input": "float[N,3]", "repeats": "int64[2]"})
    assert r.outputs["output"].rank == 2


def test_runtime_disagreements():
    # onnxruntime rejects repeats of the wrong length (onnx.reference tiles anyway), and a scalar value tensor
    with pytest.raises(ConstraintError, match="C3"):
        shapecheck.execute("Tile", 13, {"input": np.zeros((2, 3), np.float32), "repeats": np.array([2])})
    with pytest.raises(ConstraintError, match="C3"):
        shapecheck.execute("ConstantOfShape", 20, {"input": np.array([2])}, {"value": np.array(1.0, np.float32)})
