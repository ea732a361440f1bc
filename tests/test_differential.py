"""shapecheck.execute against onnxruntime and onnx.reference on random valid cases.

~100 seeded cases over ScatterElements (11/13/16/18), ScatterND (11/13/16/18) and Scatter-9,
every reduction each version has, and the element types the runtimes run.  Duplicate targets
only with add/mul/max/min, or with none where every runtime keeps the last (runtime-findings Q7).
The last tests pin down where a runtime is lenient or wrong, asserting shapecheck's behaviour.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.errors import ConstraintError
from tests.modelkit import execute_expecting_warnings

from .findings_classes import report_classes

BF16 = np.dtype(ml_dtypes.bfloat16)
NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64, "bool": np.bool_,
      "float16": np.float16, "bfloat16": BF16, "string": object}
CODE = {"float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "int32": TensorProto.INT32,
        "int64": TensorProto.INT64, "bool": TensorProto.BOOL, "float16": TensorProto.FLOAT16,
        "bfloat16": TensorProto.BFLOAT16, "string": TensorProto.STRING}
REDUCTIONS = {16: ["none", "add", "mul"], 18: ["none", "add", "mul", "max", "min"]}


def _model(op: str, opset: int, data, indices, updates, attrs: dict, dtype: str) -> onnx.ModelProto:
    node = helper.make_node(op, ["data", "indices", "updates"], ["y"], **attrs)
    vi = lambda n, a, c: helper.make_tensor_value_info(n, c, list(a.shape))  # noqa: E731
    nodes, out = [node], vi("y", data, CODE[dtype])
    if dtype == "bfloat16":  # onnxruntime cannot hand bfloat16 back to numpy: cast the result (exactly) to float
        nodes.append(helper.make_node("Cast", ["y"], ["y32"], to=TensorProto.FLOAT))
        out = vi("y32", data, TensorProto.FLOAT)
    graph = helper.make_graph(nodes, "g", [vi("data", data, CODE[dtype]), vi("indices", indices, TensorProto.INT64),
                                           vi("updates", updates, CODE[dtype])], [out])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def run_ort(model: onnx.ModelProto, feeds: dict) -> np.ndarray:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    if any(a.dtype == BF16 for a in feeds.values()):
        # numpy bfloat16 cannot be fed directly (runtime-findings Q3): OrtValues typed as onnx bfloat16
        feeds = {k: ort.OrtValue.ortvalue_from_numpy_with_onnx_type(a.view(np.uint16), TensorProto.BFLOAT16)
                 if a.dtype == BF16 else a for k, a in feeds.items()}
        out = sess.run_with_ort_values(None, {k: v if isinstance(v, ort.OrtValue) else ort.OrtValue.ortvalue_from_numpy(v)
                                               for k, v in feeds.items()})[0]
        return out.numpy()
    return sess.run(None, feeds)[0]


def run_ref(model: onnx.ModelProto, feeds: dict) -> np.ndarray:
    return ReferenceEvaluator(model).run(None, feeds)[0]


def _values(rng, dtype: str, shape) -> np.ndarray:
    if dtype == "string":
        return np.array(rng.choice(list("abcdefgh"), size=shape), dtype=object).reshape(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-5, 6, size=shape).astype(NP[dtype])
    # multiples of 1/4 in [-4, 4]: sums and products are exact in float16/bfloat16 too
    return (rng.integers(-16, 17, size=shape) / 4).astype(NP[dtype])


def _distinct_rows(rng, n_slices: int, rows: int) -> np.ndarray:
    return rng.choice(n_slices, size=rows, replace=False)


def _case(seed: int):
    """One random valid case: (op, opset, inputs, attrs, dtype)."""
    rng = np.random.default_rng(seed)
    op = ["ScatterElements", "ScatterND", "Scatter"][seed % 3]
    opset = 9 if op == "Scatter" else int(rng.choice([11, 13, 16, 18, 18]))
    dtype = str(rng.choice([d for d in NP if not (op == "Scatter" and d == "bfloat16")]))  # Scatter-9 has no bf16
    if dtype == "bfloat16" and opset < 13:
        opset = 13
    reductions = REDUCTIONS.get(16 if opset < 18 else 18, ["none"]) if opset >= 16 else ["none"]
    reduction = reductions[(seed // 3) % len(reductions)]   # cycle, so every reduction is covered
    if dtype == "string" and reduction not in ("none", "add"):
        reduction = "add"        # C10/C11: no product or order on strings
    if dtype == "bool" and reduction in ("max", "min"):
        reduction = "add"        # onnxruntime has no bool max/min (tested below)
    if dtype in ("bfloat16", "float16") and reduction != "none":
        reduction = "none"       # onnxruntime runs 16-bit float scatter only without a reduction
    dup = reduction != "none" or rng.random() < 0.3
    r = int(rng.integers(1, 4))
    shape = tuple(int(d) for d in rng.integers(1, 5, size=r))
    data = _values(rng, dtype, shape)
    attrs = {} if reduction == "none" else {"reduction": reduction}
    if op == "ScatterND":
        k = int(rng.integers(1, r + 1))
        n_slices = int(np.prod(shape[:k]))
        rows = int(rng.integers(1, n_slices + 1)) if not dup else int(rng.integers(1, 2 * n_slices + 2))
        lin = rng.integers(0, n_slices, size=rows) if dup else _distinct_rows(rng, n_slices, rows)
        idx = np.stack(np.unravel_index(lin, shape[:k]), axis=-1).astype(np.int64)
        idx = np.where(rng.random(idx.shape) < 0.3, idx - np.array(shape[:k]), idx)   # negatives mean s + v
        upd = _values(rng, dtype, (rows,) + shape[k:])
    else:
        axis = int(rng.integers(-r, r))
        a = axis % r
        ishape = tuple(int(rng.integers(1, d + 1)) for d in shape)
        if dup:
            ishape = ishape[:a] + (int(rng.integers(1, 2 * shape[a] + 1)),) + ishape[a + 1:]
            idx = rng.integers(0, shape[a], size=ishape)
        else:  # distinct positions along the axis for every other coordinate
            idx = np.argsort(rng.random(ishape[:a] + (shape[a],) + ishape[a + 1:]), axis=a)
            idx = np.take(idx, np.arange(ishape[a]), axis=a)
        idx = np.where(rng.random(idx.shape) < 0.3, idx - shape[a], idx).astype(np.int64)
        upd = _values(rng, dtype, ishape)
        attrs["axis"] = axis
    return op, opset, {"data": data, "indices": idx, "updates": upd}, attrs, dtype


CASES = [_case(s) for s in range(102)]


def _assert_same(ours: np.ndarray, theirs: np.ndarray, dtype: str) -> None:
    assert ours.dtype == np.dtype(NP[dtype]) and ours.shape == theirs.shape
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        np.testing.assert_allclose(ours.astype(np.float64), np.asarray(theirs).astype(np.float64), rtol=1e-6, atol=0)
    else:
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-{c[4]}-{c[3].get('reduction', 'none')}-{i}"
                                             for i, c in enumerate(CASES)])
def test_matches_onnxruntime_and_reference(case):
    op, opset, inputs, attrs, dtype = case
    ours = execute_expecting_warnings(op, opset, inputs, attrs)["output"]
    model = _model(op, opset, *inputs.values(), attrs, dtype)
    _assert_same(ours, run_ort(model, inputs), dtype)
    if op != "Scatter":  # onnx.reference has no Scatter kernel (runtime-findings Q5)
        _assert_same(ours, run_ref(model, inputs), dtype)


def test_cases_cover_ops_reductions_and_dtypes():
    seen = {(c[0], c[1]) for c in CASES}
    assert {("Scatter", 9), ("ScatterND", 18), ("ScatterElements", 16), ("ScatterElements", 11)} <= seen
    assert {c[3].get("reduction", "none") for c in CASES} == {"none", "add", "mul", "max", "min"}
    assert {c[4] for c in CASES} == set(NP)


# ---------------------------------------------------------------- where the runtimes are lenient or wrong

def test_reference_accepts_wrong_updates_shape_we_reject():
    data = np.arange(64, dtype=np.float32).reshape(4, 4, 4)
    idx = np.array([[0], [2]], np.int64)
    upd = np.ones((2, 4), np.float32)      # should be [2,4,4] (runtime-findings Q1)
    with pytest.raises(ConstraintError) as err:
        shapecheck.execute("ScatterND", 13, {"data": data, "indices": idx, "updates": upd})
    assert err.value.constraint == "C7"
    model = _model("ScatterND", 13, data, idx, upd, {}, "float32")
    theirs = run_ref(model, {"data": data, "indices": idx, "updates": upd})   # silently broadcasts
    assert theirs.shape == (4, 4, 4) and np.all(theirs[0] == 1)
    with pytest.raises(Exception, match="updates tensor should have shape"):
        run_ort(model, {"data": data, "indices": idx, "updates": upd})


@pytest.mark.parametrize("op,cid", [("ScatterND", "C9"), ("ScatterElements", "C10")])
def test_everyone_accepts_max_at_opset_16_we_do_not(op, cid):
    data = np.zeros((4, 2), np.float32)
    idx = np.array([[1], [1]], np.int64) if op == "ScatterND" else np.array([[1, 1]], np.int64)
    upd = np.array([[3, 5], [4, 2]], np.float32) if op == "ScatterND" else np.array([[3, 5]], np.float32)
    attrs = {"reduction": "max"}
    result = shapecheck.infer(op, 16, {"data": data, "indices": idx, "updates": upd}, attrs)
    assert result.status == "invalid" and [v.constraint for v in result.violations] == [cid]
    with pytest.raises(ConstraintError) as err:
        shapecheck.execute(op, 16, {"data": data, "indices": idx, "updates": upd}, attrs)
    assert err.value.constraint == cid
    model = _model(op, 16, data, idx, upd, attrs, "float32")
    feeds = {"data": data, "indices": idx, "updates": upd}
    want = shapecheck.execute(op, 18, feeds, attrs)["output"]   # what max means, from the version that has it
    np.testing.assert_array_equal(run_ort(model, feeds), want)
    np.testing.assert_array_equal(run_ref(model, feeds), want)


@pytest.mark.parametrize("op", ["ScatterND", "ScatterElements"])
def test_onnxruntime_rejects_bool_max_we_run_it(op):
    data = np.array([True, False, True, False])
    idx = np.array([[0], [1], [1]], np.int64) if op == "ScatterND" else np.array([0, 1, 1], np.int64)
    upd = np.array([False, True, False])
    feeds = {"data": data, "indices": idx, "updates": upd}
    ours = shapecheck.execute(op, 18, feeds, {"reduction": "max"})["output"]
    np.testing.assert_array_equal(ours, [True, True, True, False])     # max on bool is logical or
    model = _model(op, 18, data, idx, upd, {"reduction": "max"}, "bool")
    np.testing.assert_array_equal(run_ref(model, feeds), ours)
    with pytest.raises(Exception, match="bool data type is not supported"):
        run_ort(model, feeds)


# ---------------------------------------------------------------- random exploration: every disagreement class

# A wider random draw than the cases above: every element type (complex too), every reduction at
# every opset that has the attribute, empty indices, indices and updates of other types, and
# out-of-range axes.  Each disagreement with onnxruntime or onnx.reference is sorted into a class;
# every class found is printed, and each must be written up in docs/runtime-findings.md under its
# id.  A disagreement that fits no class gets a descriptive id that the docs do not have, so the
# test fails and names it.
ALL_TYPES = ["bool", "complex128", "complex64", "double", "float", "float16", "bfloat16", "int16", "int32", "int64",
             "int8", "string", "uint16", "uint32", "uint64", "uint8"]
VARIANTS = ["valid", "valid", "empty indices", "int32 indices", "updates of another type", "axis out of range"]


def _classify(runtime: str, ours: str, theirs: str, op: str, dtype: str, reduction: str, variant: str) -> str:
    """A disagreement's class id (the docs' ``class:`` entries), or a descriptive id no doc has."""
    if ours == "ok" and theirs == "refuses" and runtime == "onnxruntime":
        if dtype in ("complex64", "complex128"):
            return "ort-no-complex-scatter"
        if dtype in ("float16", "bfloat16") and reduction != "none":
            return "ort-16bit-float-reduction"
        if dtype == "bool" and reduction in ("max", "min"):
            return "ort-no-bool-max-min"
    if ours != "ok" and theirs == "ok" and runtime == "onnx.reference":
        if variant in ("int32 indices", "updates of another type"):
            return "ref-types-outside-constraints"
        if variant == "axis out of range":
            return "ref-out-of-range-axis"
    if ours != "ok" and theirs == "ok":
        if dtype == "string" and reduction in ("mul", "max", "min"):
            return "strict-string-reduction"
        if reduction in ("max", "min") and variant != "axis out of range":
            return "strict-max-min-before-18"
    return f"unclassified: {runtime} {theirs}, shapecheck {ours}: {op} {dtype} reduction={reduction} ({variant})"


def _explore_case(seed: int):
    rng = np.random.default_rng(10_000 + seed)
    op = ["ScatterND", "ScatterElements"][seed % 2]
    opset = int(rng.choice([11, 13, 16, 18]))
    dtype = ALL_TYPES[(seed // 2) % len(ALL_TYPES)]
    if dtype == "bfloat16" and opset < 13:
        opset = 13
    variant = VARIANTS[int(rng.integers(len(VARIANTS)))]
    if op == "ScatterND" and variant == "axis out of range":   # ScatterND has no axis
        variant = "valid"
    reduction = str(rng.choice(["none", "add", "mul", "max", "min"])) if opset >= 16 else "none"
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    attrs = {} if reduction == "none" else {"reduction": reduction}
    n = 0 if variant == "empty indices" else 1
    if op == "ScatterND":
        idx = np.zeros((n, 1), np.int64)
        upd_shape = (n,) + shape[1:]
    else:
        idx = np.zeros((n,) + shape[1:], np.int64)
        upd_shape = idx.shape
        attrs["axis"] = len(shape) + int(rng.integers(0, 2)) if variant == "axis out of range" else 0
        if variant == "axis out of range" and rng.random() < .5:
            attrs["axis"] = -len(shape) - 1 - int(rng.integers(0, len(shape)))
    if variant == "int32 indices":
        idx = idx.astype(np.int32)
    udt = {"float": "double"}.get(dtype, "float") if variant == "updates of another type" else dtype
    inputs = {"data": _explore_values(rng, dtype, shape), "indices": idx, "updates": _explore_values(rng, udt, upd_shape)}
    return op, opset, inputs, attrs, dtype, reduction, variant


def _explore_values(rng, dtype: str, shape) -> np.ndarray:
    from shapecheck.types import numpy_dtype
    nd = numpy_dtype(dtype)
    if nd.kind == "c":
        return (rng.integers(-3, 4, size=shape) + 1j * rng.integers(-3, 4, size=shape)).astype(nd)
    if dtype in ("string", "bool"):
        return _values(rng, dtype, shape)
    return rng.integers(0, 5, size=shape).astype(nd)


def _explore_model(op, opset, inputs, attrs):
    from shapecheck.types import ONNX_CODE_OF, dtype_of_array
    code = {n: (TensorProto.BFLOAT16 if a.dtype == BF16 else ONNX_CODE_OF[dtype_of_array(a)]) for n, a in inputs.items()}
    def vi(n, c, a):
        return helper.make_tensor_value_info(n, c, list(a.shape))
    nodes, out = [helper.make_node(op, list(inputs), ["y"], **attrs)], vi("y", code["data"], inputs["data"])
    if code["data"] == TensorProto.BFLOAT16:   # onnxruntime hands no bfloat16 back to numpy: cast (exactly)
        nodes.append(helper.make_node("Cast", ["y"], ["y32"], to=TensorProto.FLOAT))
        out = vi("y32", TensorProto.FLOAT, inputs["data"])
    g = helper.make_graph(nodes, "g", [vi(n, code[n], a) for n, a in inputs.items()], [out])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _verdict(run, model, inputs) -> tuple[str, object]:
    try:
        return "ok", run(model, inputs)
    except Exception:  # noqa: BLE001 -- a runtime's refusal (load, type check or run); the case says which class
        return "refuses", None


EXPLORE = [_explore_case(s) for s in range(240)]
ort.set_default_logger_severity(3)   # refusals are expected here; their messages would flood the output


def test_random_disagreements_are_documented(capsys):
    import warnings
    classes: dict[str, str] = {}
    for op, opset, inputs, attrs, dtype, reduction, variant in EXPLORE:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours_out = shapecheck.execute(op, opset, inputs, attrs)["output"]
            ours = "ok"
        except ConstraintError as exc:
            ours, ours_out = f"refutes {exc.constraint}", None
        model = _explore_model(op, opset, inputs, attrs)
        for runtime, run in (("onnxruntime", run_ort), ("onnx.reference", run_ref)):
            theirs, out = _verdict(run, model, inputs)
            if theirs == "ok" and ours == "ok":
                want = ours_out.astype(np.float32) if ours_out.dtype == BF16 else ours_out
                if not np.array_equal(np.asarray(out), want):
                    theirs = "differs"
            if theirs != ours and not (theirs == "refuses" and ours.startswith("refutes")):
                cid = _classify(runtime, ours, theirs, op, dtype, reduction, variant)
                classes.setdefault(cid, f"{op}-{opset} {dtype} {attrs} ({variant}): shapecheck {ours}, {runtime} {theirs}")
    missing = report_classes("onnxruntime / onnx.reference", classes, capsys)
    assert missing == [], f"disagreement classes not in docs/runtime-findings.md: {missing}"
    # the draw is wide enough to meet the classes the issue names
    assert {"ort-no-complex-scatter", "ort-16bit-float-reduction", "ref-types-outside-constraints",
            "ref-out-of-range-axis", "strict-string-reduction"} <= set(classes)
