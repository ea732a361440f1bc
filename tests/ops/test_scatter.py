"""The ONNX scatter ops (Scatter, ScatterElements, ScatterND, TensorScatter): seeded random cases
against the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on
concrete and on symbolic dims) and the rules' edges, and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, TensorProto, TensorProto as T
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.errors import ConstraintError
from shapecheck.executor import run_spec
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array, numpy_dtype

from tests.harness.findings_classes import report_classes
from tests.harness.models import execute_expecting_warnings
from tests.harness.node_cases import check_node_case, family_cases


REG = default_registry()


def ours(name: str, inputs: dict, attrs: dict | None = None) -> np.ndarray:
    return run_spec(REG.get(name), inputs, attrs)[0]["output"]


def _shape(rng, max_dim: int = 4, ranks=(1, 3)) -> tuple[int, tuple[int, ...]]:
    """A random rank in ``ranks`` (inclusive) and a shape of dims in [1, max_dim]."""
    r = int(rng.integers(ranks[0], ranks[1] + 1))
    return r, tuple(int(d) for d in rng.integers(1, max_dim + 1, size=r))


def _values_of(rng, dtype, shape):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    return rng.integers(-9 if np.dtype(dtype).kind != "u" else 0, 10, size=shape).astype(dtype)


def _onnx_run(op: str, opset: int, arrays: dict, attrs: dict) -> tuple[np.ndarray, np.ndarray]:
    import onnxruntime as ort
    from onnx import helper
    from onnx.reference import ReferenceEvaluator
    names = list(arrays)
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
           for n, a in arrays.items()]
    out_t = helper.np_dtype_to_tensor_dtype(arrays[names[0]].dtype)
    g = helper.make_graph([helper.make_node(op, names, ["y"], **attrs)], "g", ins,
                          [helper.make_tensor_value_info("y", out_t, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, arrays)[0], ReferenceEvaluator(m).run(None, arrays)[0]


@pytest.mark.parametrize("seed", range(24))
def test_tensor_scatter_matches_onnxruntime_and_reference(seed):
    rng = np.random.default_rng(500 + seed)
    r, shape = _shape(rng, 4, (2, 4))
    axis = int(rng.integers(1, r)) - (r if seed % 2 else 0)
    a = axis % r
    m = shape[a]
    s = int(rng.integers(1, m + 1))
    mode = "circular" if seed % 3 == 0 else "linear"
    hi = m - s + 1 if mode == "linear" else 3 * m
    arrays = {"past_cache": _values_of(rng, np.float32, shape),
              "update": _values_of(rng, np.float32, shape[:a] + (s,) + shape[a + 1:])}
    if seed % 4:
        arrays["write_indices"] = rng.integers(0, hi, size=shape[0]).astype(np.int64)
    attrs = {"axis": axis, "mode": mode}
    got = ours("TensorScatter-24", arrays, attrs)
    o, ref = _onnx_run("TensorScatter", 24, arrays, attrs)
    np.testing.assert_array_equal(got, o)
    np.testing.assert_array_equal(got, ref)


def test_tensor_scatter_axis_0_is_refused_as_onnxruntime_refuses_it():
    q = {"past_cache": "float[B,H,M,D]", "update": "float[1,H,M,D]"}
    r = shapecheck.infer("TensorScatter", 24, q, {"axis": 0})
    assert r.status == "invalid" and r.violations[0].constraint == "C1"
    arrays = {"past_cache": np.zeros((2, 2, 4, 2), np.float32), "update": np.ones((2, 2, 1, 2), np.float32)}
    with pytest.raises(Exception, match="axis 0 is out of range|axis must be in"):   # at load with shapes, else at run
        _onnx_run("TensorScatter", 24, arrays, {"axis": 0})


def _kv_cache_model(past_len="M", update_len="S", w_shape=("B",)):
    g = helper.make_graph([
        helper.make_node("TensorScatter", ["k", "u", ""], ["k2"], mode="circular"),
        helper.make_node("TensorScatter", ["k2", "u", "w"], ["k3"]),
        helper.make_node("GatherND", ["k3", "i"], ["g"], batch_dims=1),
        helper.make_node("GatherElements", ["d", "j"], ["h"], axis=1)], "g",
        [helper.make_tensor_value_info("k", T.FLOAT, ["B", 8, past_len, 64]),
         helper.make_tensor_value_info("u", T.FLOAT, ["B", 8, update_len, 64]),
         helper.make_tensor_value_info("w", T.INT64, list(w_shape)),
         helper.make_tensor_value_info("i", T.INT64, ["B", 3, 2]),
         helper.make_tensor_value_info("d", T.FLOAT, [3, 7]), helper.make_tensor_value_info("j", T.INT64, [3, 9])],
        [helper.make_tensor_value_info("g", T.FLOAT, None), helper.make_tensor_value_info("h", T.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 24)])


def test_kv_cache_model_is_checked_with_its_conditions():
    rep = shapecheck.check_model(_kv_cache_model())
    got = [(n.op_type, n.spec, n.status, n.outputs["output"], n.conditions) for n in rep.nodes]
    assert got == [("TensorScatter", "TensorScatter-24", "conditional", "float[B,8,M,64]", ["S <= M"]),
                   ("TensorScatter", "TensorScatter-24", "conditional", "float[B,8,M,64]", ["S <= M"]),
                   ("GatherND", "GatherND-13", "valid", "float[B,3,64]", []),
                   ("GatherElements", "GatherElements-13", "valid", "float[3,9]", [])]
    assert [a["condition"] for a in rep.assumptions] == ["S <= M"]


def test_kv_cache_model_broken():
    rep = shapecheck.check_model(_kv_cache_model(past_len=4, update_len=6, w_shape=(2,)))
    ts = [n for n in rep.nodes if n.op_type == "TensorScatter"]
    assert [sorted(v.constraint for v in n.violations) for n in ts] == [["C4"], ["C4"]]
    assert ts[1].conditions == ["B == 2"]      # write_indices has 2 entries: valid only for batch 2


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
    nd = numpy_dtype(dtype)
    if nd.kind == "c":
        return (rng.integers(-3, 4, size=shape) + 1j * rng.integers(-3, 4, size=shape)).astype(nd)
    if dtype in ("string", "bool"):
        return _values(rng, dtype, shape)
    return rng.integers(0, 5, size=shape).astype(nd)


def _explore_model(op, opset, inputs, attrs):
    from shapecheck.types import ONNX_CODE_OF
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


def _opset(model) -> int:
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def test_scatter_at_opset_10_resolves_to_scatter_9():
    scatter = [c for c in NODE_CASES if c.model.graph.node[0].op_type == "Scatter"]
    assert scatter and all(_opset(c.model) == 10 for c in scatter)
    result = shapecheck.infer("Scatter", 10, {"data": "float[3,3]", "indices": "int64[2,3]", "updates": "float[2,3]"})
    assert result.spec == "Scatter-9" and result.status == "valid"


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("scatter")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 15


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "scatter")
