"""openvino:ScatterElementsUpdate-3 against the openvino package's own opset3 op on the CPU plugin.

Index values are drawn in [0, s-1]: the spec (following OpenVINO's page) forbids negative
indices, which the CPU plugin nevertheless accepts -- the documented disagreement, asserted last.
"""
from __future__ import annotations

import numpy as np
import pytest

import shapecheck
from shapecheck.errors import ConstraintError

from tests.harness.findings_classes import report_classes

ov = pytest.importorskip("openvino")      # only a guard for platforms without the wheel
o3 = pytest.importorskip("openvino.opset3")

_CORE = ov.Core()


def run_openvino(data, indices, updates, axis) -> np.ndarray:
    params = [o3.parameter(list(a.shape), ov.Type(a.dtype), name=n)
              for n, a in (("data", data), ("indices", indices), ("updates", updates))]
    node = o3.scatter_elements_update(*params, o3.constant(np.asarray(axis)))
    compiled = _CORE.compile_model(ov.Model([node.output(0)], params, "m"), "CPU")
    return np.asarray(compiled([data, indices, updates])[compiled.outputs[0]])


def _case(seed: int):
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 4))
    shape = tuple(int(d) for d in rng.integers(1, 5, size=r))
    axis = int(rng.integers(-r, r))
    a = axis % r
    dtype = [np.float32, np.float64, np.int32, np.int64, np.float16, np.int8][seed % 6]
    # distinct targets along the axis: the page leaves the order of duplicate writes undefined
    ishape = tuple(int(rng.integers(1, d + 1)) for d in shape)
    idx = np.argsort(rng.random(ishape[:a] + (shape[a],) + ishape[a + 1:]), axis=a)
    idx = np.take(idx, np.arange(ishape[a]), axis=a).astype([np.int64, np.int32][seed % 2])
    data = (rng.integers(-20, 21, size=shape)).astype(dtype)
    updates = (rng.integers(-20, 21, size=ishape)).astype(dtype)
    axis_arr = np.array(axis if seed % 3 else [axis], dtype=np.int64)   # a scalar or a 1-element 1-D axis
    return data, idx, updates, axis_arr


CASES = [_case(s) for s in range(30)]


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_matches_openvino_cpu(case):
    data, idx, updates, axis = case
    ours = shapecheck.execute("openvino:ScatterElementsUpdate", 3,
                              {"data": data, "indices": idx, "updates": updates, "axis": axis})["output"]
    theirs = run_openvino(data, idx, updates, axis)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def test_negative_indices_rejected_by_us_accepted_by_openvino():
    data = np.zeros((3, 3), np.float32)
    idx = np.array([[-1, 0, 1]], np.int64)
    upd = np.array([[7, 8, 9]], np.float32)
    axis = np.array(0, np.int64)
    with pytest.raises(ConstraintError) as err:
        shapecheck.execute("openvino:ScatterElementsUpdate", 3, {"data": data, "indices": idx, "updates": upd, "axis": axis})
    assert err.value.constraint == "C10"
    theirs = run_openvino(data, idx, upd, axis)      # the CPU plugin treats -1 as s-1 (runtime-findings Q10)
    np.testing.assert_array_equal(theirs, [[0, 8, 0], [0, 0, 9], [7, 0, 0]])
    # the ONNX version of the same scatter accepts -1 and agrees with OpenVINO's result
    onnx_out = shapecheck.execute("ScatterElements", 18, {"data": data, "indices": idx, "updates": upd}, {"axis": 0})
    np.testing.assert_array_equal(onnx_out["output"], theirs)


# ---------------------------------------------------------------- random exploration: every disagreement class

# Wider than the cases above: more element types (bool too), index types, negative index values and a
# 1-D axis with two elements.  Every disagreement with the CPU plugin is sorted into a class, printed,
# and must be written up in docs/runtime-findings.md (Q13) as `class: ID`.
OV_TYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
            np.uint64, np.bool_]
OV_VARIANTS = ["valid", "valid", "negative indices", "two-element axis", "uint8 indices"]


def _ov_classify(ours: str, theirs: str, dtype, variant: str) -> str:
    if ours != "ok" and theirs == "ok":
        if variant == "negative indices":
            return "ov-negative-indices"
        if variant == "two-element axis":
            return "ov-axis-several-elements"
        if dtype == np.bool_:
            return "ov-bool-data"
    return f"unclassified: OpenVINO {theirs}, shapecheck {ours}: {np.dtype(dtype).name} ({variant})"


def _ov_case(seed: int):
    rng = np.random.default_rng(20_000 + seed)
    dtype = OV_TYPES[seed % len(OV_TYPES)]
    variant = OV_VARIANTS[int(rng.integers(len(OV_VARIANTS)))]
    r = int(rng.integers(1, 3))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=r))
    axis = int(rng.integers(0, r))
    ishape = shape[:axis] + (1,) + shape[axis + 1:]
    idx = rng.integers(0, shape[axis], size=ishape)
    if variant == "negative indices":
        idx = idx - shape[axis]
    idx = idx.astype(np.uint8 if variant == "uint8 indices" else np.int64)
    data = (rng.integers(0, 2, size=shape) if dtype == np.bool_ else rng.integers(0, 9, size=shape)).astype(dtype)
    updates = (rng.integers(0, 2, size=ishape) if dtype == np.bool_ else rng.integers(0, 9, size=ishape)).astype(dtype)
    axis_arr = np.array([axis, axis] if variant == "two-element axis" else axis, dtype=np.int64)
    return data, idx, updates, axis_arr, variant


def test_random_disagreements_are_documented(capsys):
    classes: dict[str, str] = {}
    for seed in range(60):
        data, idx, updates, axis, variant = _ov_case(seed)
        try:
            ours_out = shapecheck.execute("openvino:ScatterElementsUpdate", 3, {"data": data, "indices": idx,
                                                                                 "updates": updates, "axis": axis})["output"]
            ours = "ok"
        except ConstraintError as exc:
            ours, ours_out = f"refutes {exc.constraint}", None
        try:
            out = run_openvino(data, idx, updates, axis)
            theirs = "ok" if ours_out is None or np.array_equal(out, ours_out) else "differs"
        except Exception:  # noqa: BLE001 -- the plugin's refusal (build, compile or infer)
            theirs = "refuses"
        if theirs != ours and not (theirs == "refuses" and ours.startswith("refutes")):
            cid = _ov_classify(ours, theirs, data.dtype.type, variant)
            classes.setdefault(cid, f"{data.dtype.name}{list(data.shape)} indices {idx.dtype.name} {idx.tolist()} "
                                    f"axis {axis.tolist()} ({variant}): shapecheck {ours}, OpenVINO {theirs}")
    missing = report_classes("OpenVINO", classes, capsys)
    assert missing == [], f"disagreement classes not in docs/runtime-findings.md: {missing}"
    assert "ov-negative-indices" in classes
