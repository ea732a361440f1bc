"""Cast and CastLike: shapecheck.execute against onnxruntime on seeded random cases at every spec
version and between every pair of element types onnxruntime runs (bfloat16 is covered by the ONNX
node tests), and shapecheck.infer against the run: integer casts keep a shape tensor's symbolic
value, float casts keep only concrete values.
"""
from __future__ import annotations

import numpy as np
import pytest

import shapecheck
from shapecheck.errors import ConstraintError
from shapecheck.types import ONNX_CODE_OF
from tests.layout_harness import check_case, values

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


GENERATORS = {"Cast": cast_case, "CastLike": castlike_case}
CASES = [(op, seed) for op in GENERATORS for seed in range(48 if op == "Cast" else 24)]


@pytest.mark.parametrize("op,seed", CASES, ids=[f"{op}-{s}" for op, s in CASES])
def test_matches_onnxruntime(op, seed):
    op, opset, inputs, attrs, valued, keeps = GENERATORS[op](seed)
    check_case(op, opset, inputs, attrs, valued, keeps_value=keeps)


def test_cases_cover_versions_and_types():
    cases = [GENERATORS[op](s) for op, s in CASES]
    assert {c[1] for c in cases if c[0] == "Cast"} == {7, 9, 13, 19, 21, 24}
    pairs = {(str(c[2]["input"].dtype), c[3]["to"]) for c in cases if c[0] == "Cast"}
    assert ("object", ONNX_CODE_OF["float"]) in pairs or ("object", ONNX_CODE_OF["int64"]) in pairs
    assert any(c[3]["to"] == ONNX_CODE_OF["string"] for c in cases if c[0] == "Cast")


# ---------------------------------------------------------------- value rules

def test_integer_casts_keep_symbolic_values_float_casts_do_not():
    r = shapecheck.infer("Cast", 13, {"input": "int64[2] = [N, 3]"}, {"to": ONNX_CODE_OF["int32"]})
    assert str(r.outputs["output"]) == "int32[2] = [N, 3]"
    r = shapecheck.infer("Cast", 13, {"input": "int64[2] = [N, 3]"}, {"to": ONNX_CODE_OF["float"]})
    assert str(r.outputs["output"]) == "float[2]" and r.outputs["output"].sym is None
    r = shapecheck.infer("Cast", 13, {"input": "int64[2] = [4, 3]"}, {"to": ONNX_CODE_OF["float"]})
    assert r.outputs["output"].value.tolist() == [4.0, 3.0]          # concrete values are cast exactly
    r = shapecheck.infer("CastLike", 15, {"input": "int64[] = N", "target_type": "int32[1]"})
    assert str(r.outputs["output"]) == "int32[] = N"


def test_unmodelled_targets_leave_the_element_type_unknown_not_invalid():
    r = shapecheck.infer("Cast", 19, {"input": "float[N,3]"}, {"to": 17})     # float8e4m3fn
    assert r.status != "invalid" and r.outputs["output"].dtype is None and str(r.outputs["output"]) == "?[N,3]"
    r = shapecheck.infer("Cast", 13, {"input": "float[N,3]"}, {"to": 17})     # no float8 before 19
    assert r.status == "invalid" and r.violations[0].constraint == "C2"


def test_string_before_opset_9_and_complex_follow_the_page():
    with pytest.raises(ConstraintError, match="C2"):
        shapecheck.execute("Cast", 8, {"input": np.array([1], np.int64)}, {"to": ONNX_CODE_OF["string"]})
    with pytest.raises(ConstraintError, match="C1"):
        shapecheck.execute("Cast", 13, {"input": np.array([1], np.complex64)}, {"to": ONNX_CODE_OF["float"]})


def test_numbers_to_text_as_onnxruntime_writes_them():
    from tests.layout_harness import run_ort
    x = np.array([1.0, 1.5, -0.25, 1e10, np.nan, np.inf], np.float32)
    ours = shapecheck.execute("Cast", 13, {"input": x}, {"to": ONNX_CODE_OF["string"]})["output"]
    (theirs,) = run_ort("Cast", 13, {"input": x}, {"to": ONNX_CODE_OF["string"]}, ["string"])
    assert ours.tolist() == theirs.tolist() == ["1", "1.5", "-0.25", "1e+10", "NaN", "INF"]
    b = np.array([True, False])
    assert shapecheck.execute("Cast", 13, {"input": b}, {"to": ONNX_CODE_OF["string"]})["output"].tolist() == ["1", "0"]
