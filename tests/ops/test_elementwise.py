"""The elementwise ops (arithmetic, logic, bitwise, comparisons, unary math, Where, Min/Max/Sum/Mean,
Clip), and the values of shape tensors they compute: seeded random cases against the runtimes
(values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete and on
symbolic dims) and the rules' edges, and ONNX's own node tests (``tests/harness/node_cases.py``; the
per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import sympy
from onnx import helper

import shapecheck
import shapecheck.kernels.elementwise
from shapecheck.dims import symbol
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import compare_one, rng_for, run_model


CLIP_CASES = [(v, s) for v in (11, 12, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", CLIP_CASES, ids=[f"Clip-{v}-{s}" for v, s in CLIP_CASES])
def test_clip_matches_onnxruntime(opset, seed):
    rng = rng_for("clip", opset, seed)
    # onnxruntime's Clip-11 kernel is float only; 12 adds double and the integer types
    dts = [np.float32] + ([np.float64, np.int32, np.int64, np.uint8, np.int8] if opset >= 12 else [])
    dt = dts[int(rng.integers(len(dts)))]
    x = (rng.standard_normal(tuple(int(d) for d in rng.integers(1, 5, size=2))) * 20).astype(dt)
    lo = np.array(int(rng.integers(0, 5)), dt) if rng.random() < 0.7 else None
    hi = np.array(int(rng.integers(5, 15)), dt) if rng.random() < 0.7 else None
    compare_one("Clip", opset, [("input", x), ("min", lo), ("max", hi)], {})


@pytest.mark.parametrize("seed", range(3))
def test_clip_attribute_form_matches_onnxruntime(seed):
    rng = rng_for("clip6", seed)
    x = (rng.standard_normal((3, 4)) * 5).astype(np.float32)
    attrs = [{"min": -1.0, "max": 2.0}, {"max": 0.5}, {}][seed]
    compare_one("Clip", 7, [("input", x)], attrs)


def test_clip_keeps_the_value_of_an_integer_shape_tensor():
    r = shapecheck.infer("Clip", 13, {"input": "int64[3] = [N, 0, 20]", "min": "int64[] = 1", "max": "int64[] = 8"})
    assert str(r.outputs["output"]) == "int64[3] = [Min(8,Max(1,N)), 1, 8]"
    out = shapecheck.execute("Clip", 13, {"input": np.array([5, 0, 20]), "min": np.array(1), "max": np.array(8)})
    assert out["output"].tolist() == [5, 1, 8]


CLIP_BOUND_SHAPES = [(v, shape, which) for v in (11, 12, 13) for shape in ([], [1], [2], [1, 1], [0], [1, 1, 1])
                     for which in ("min", "max")]


@pytest.mark.parametrize("opset,shape,which", CLIP_BOUND_SHAPES)
def test_clip_bound_shapes_are_refused_where_onnxruntime_refuses_them(opset, shape, which):
    """TO5: onnxruntime runs a min or max of shape [] or [1] (skl2onnx's KNNImputer writes [1]; the page says
    scalar) and refuses [2], [1, 1], [0] ("min should be a scalar"); C3 refused [1] before."""
    bound = np.full(shape, -1.0 if which == "min" else 1.0, np.float32)
    inputs = ["x", "lo" if which == "min" else "", "hi" if which == "max" else ""]
    node = helper.make_node("Clip", [i for i in inputs if i] if which == "min" else inputs, ["y"])
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N"])],
                          [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N"])],
                          [onnx.numpy_helper.from_array(bound, "lo" if which == "min" else "hi")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    outs = run_model(model, {"x": np.array([-2.0, 0.0, 2.0], np.float32)})
    ran = outs is not None
    (rep,) = shapecheck.check_model(model).nodes
    assert (rep.status == "valid") is ran, (rep.status, [v.constraint for v in rep.violations])
    if ran:
        assert outs[0].tolist() == ([-1.0, 0.0, 2.0] if which == "min" else [-2.0, 0.0, 1.0])
    else:
        assert [v.constraint for v in rep.violations] == ["C3"]


REG = default_registry()


CASES_PER_OP = 10


F32, F64, I32, I64, I8, U8, B = np.float32, np.float64, np.int32, np.int64, np.int8, np.uint8, np.bool_


def _shapes(rng, n: int, same: bool = False) -> list[tuple]:
    """n shapes that broadcast together: dims of a common shape, some set to 1, some leading ones dropped."""
    rank = int(rng.integers(0, 4))
    full = tuple(int(d) for d in rng.integers(2, 5, rank))
    if same:
        return [full] * n
    out = []
    for _ in range(n):
        s = [1 if rng.random() < 0.3 else d for d in full]
        out.append(tuple(s[int(rng.integers(0, rank + 1)) if rng.random() < 0.3 else 0:]))
    return out


def _array(rng, shape, dtype, kind: str = "any"):
    if dtype == B:
        return np.asarray(rng.random(shape) < 0.5)
    if kind == "shift":
        return np.asarray(rng.integers(0, 8, shape), dtype=dtype)
    if kind == "inf":
        return np.asarray(rng.choice(np.array([np.inf, -np.inf, 1.0, np.nan]), shape), dtype=dtype)
    if np.dtype(dtype).kind in "iu":
        lo = 1 if kind == "nonzero" else (0 if np.dtype(dtype).kind == "u" or kind == "nonneg" else -9)
        a = rng.integers(lo, 10, shape).astype(dtype)
        if kind == "nonzero" and np.dtype(dtype).kind == "i":
            a = a * rng.choice(np.array([-1, 1], dtype), shape).astype(dtype)
        return np.asarray(a, dtype=dtype)
    a = rng.standard_normal(shape) * 3
    if kind == "positive":
        a = np.abs(a) + 0.1
    elif kind == "unit":
        a = rng.uniform(-0.9, 0.9, shape)
    elif kind == "ge1":
        a = np.abs(a) + 1
    elif kind == "nonzero":
        a = np.where(np.abs(a) < 0.1, 1.0, a)
    return np.asarray(a).astype(dtype)


# op -> (opset, input names, variadic, dtypes, input kinds per position, attribute choices)
BINARY = {op: (14, ["A", "B"], [F32, F64, I32, I64, I8, U8], ("any", "any")) for op in ("Add", "Sub", "Mul")}


BINARY["Div"] = (14, ["A", "B"], [F32, F64, I32, I64, U8], ("any", "nonzero"))


COMPARE = {op: (v, ["A", "B"], [F32, I32, I64], ("any", "any"))
           for op, v in (("Less", 13), ("Greater", 13), ("LessOrEqual", 16), ("GreaterOrEqual", 16))}


COMPARE["Equal"] = (19, ["A", "B"], [F32, I64, B], ("any", "any"))


LOGIC = {op: (7, ["A", "B"], [B], ("any", "any")) for op in ("And", "Or", "Xor")}


UNARY_KIND = {"Sqrt": "positive", "Log": "positive", "Reciprocal": "nonzero", "Asin": "unit", "Acos": "unit",
              "Atanh": "unit", "Acosh": "ge1"}


UNARY_FLOAT = ["Sqrt", "Sigmoid", "Reciprocal", "Floor", "Ceil", "Exp", "Log", "Tanh", "Sin", "Cos", "Tan", "Asin",
               "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "Softsign", "Round", "HardSwish",
               "Mish", "Erf", "Elu", "Selu", "HardSigmoid", "ThresholdedRelu", "LeakyRelu", "Gelu"]


UNARY_ATTRS = {"Elu": {"alpha": [0.5, 1.0]}, "HardSigmoid": {"alpha": [0.2, 0.3], "beta": [0.5, 0.4]},
               "ThresholdedRelu": {"alpha": [0.5, 1.0]}, "LeakyRelu": {"alpha": [0.01, 0.2]},
               "Gelu": {"approximate": ["none", "tanh"]}, "Celu": {"alpha": [1.0, 2.0]}}


UNARY_OPSET = {"Gelu": 20}


def _plan():
    """(op, opset, [(inputs, attrs)]) for every op under test."""
    rng = np.random.default_rng(15)
    plans = []

    def add(op, opset, names, dtypes, kinds, attrs_of=dict, same=False, n_in=None, uni=False):
        cases = []
        for c in range(CASES_PER_OP):
            dt = dtypes[c % len(dtypes)]   # every element type, in turn
            k = n_in() if n_in else len(names)
            shapes = _shapes(rng, k, same)
            if uni:   # the second input broadcasts to the first (PRelu's slope)
                shapes[1] = tuple(1 if rng.random() < 0.4 else d for d in shapes[0][int(rng.integers(0, len(shapes[0]) + 1)):])
            arrs = [_array(rng, s, dt, kinds[min(i, len(kinds) - 1)]) for i, s in enumerate(shapes)]
            cases.append((arrs, attrs_of()))
        plans.append((op, opset, names, cases))

    for table in (BINARY, COMPARE, LOGIC):
        for op, (opset, names, dtypes, kinds) in table.items():
            add(op, opset, names, dtypes, kinds)
    add("Mod", 13, ["A", "B"], [I32, I64], ("any", "nonzero"), lambda: {"fmod": int(rng.integers(0, 2))})
    add("Mod", 13, ["A", "B"], [F32, F64], ("any", "nonzero"), lambda: {"fmod": 1})
    add("Pow", 15, ["X", "Y"], [F32, F64], ("positive", "any"))
    add("Pow", 7, ["X", "Y"], [F32], ("positive", "any"))
    add("Pow", 15, ["X", "Y"], [I64], ("any", "nonneg"))
    for op in ("Max", "Min"):
        add(op, 13, ["data_0"], [F32, I32, I64, U8], ("any",), n_in=lambda: int(rng.integers(1, 4)))
        add(op, 7, ["data_0"], [F32], ("any",), same=True, n_in=lambda: int(rng.integers(1, 4)))
    # onnxruntime has no double Mean; onnx.reference's Mean fails when the first input is the smaller one
    for op, dtypes in (("Sum", [F32, F64]), ("Mean", [F32])):
        add(op, 13, ["data_0"], dtypes, ("any",), n_in=lambda: int(rng.integers(1, 4)))
        add(op, 7, ["data_0"], [F32], ("any",), same=True, n_in=lambda: int(rng.integers(1, 4)))
    add("Not", 1, ["X"], [B], ("any",))
    for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
        add(op, 18, ["A", "B"], [I32, I64, U8], ("any", "any"))
    add("BitwiseNot", 18, ["X"], [I32, U8], ("any",))
    add("BitShift", 11, ["X", "Y"], [U8, np.uint32], ("any", "shift"),
        lambda: {"direction": ["LEFT", "RIGHT"][int(rng.integers(2))]})
    add("PRelu", 16, ["X", "slope"], [F32, I64], ("any", "any"), uni=True)
    add("PRelu", 7, ["X", "slope"], [F32], ("any", "any"), uni=True)
    add("IsInf", 10, ["X"], [F32, F64], ("inf",),
        lambda: {"detect_negative": int(rng.integers(2)), "detect_positive": int(rng.integers(2))})
    add("Shrink", 9, ["input"], [F32], ("any",), lambda: {"lambd": float(rng.uniform(0, 2)), "bias": float(rng.uniform(0, 1))})
    add("Swish", 24, ["X"], [F32], ("any",), lambda: {"alpha": float(rng.uniform(0.5, 2))})
    add("Where", 16, ["condition", "X", "Y"], [F32, I64, B], ("any",))
    for op in UNARY_FLOAT + ["Celu"]:
        choices = UNARY_ATTRS.get(op, {})
        add(op, UNARY_OPSET.get(op, 18), ["X"], [F32] if op in ("Celu",) else [F32, F64], (UNARY_KIND.get(op, "any"),),
            lambda c=choices: {a: v[int(rng.integers(len(v)))] for a, v in c.items()})
    add("Relu", 14, ["X"], [F32, I32, I64, I8], ("any",))
    add("Neg", 13, ["X"], [F32, I32, I64, I8], ("any",))
    add("Abs", 13, ["X"], [F32, I32, I64, U8], ("any",))
    add("Sign", 13, ["input"], [F32, I32, I64], ("any",))
    add("IsNaN", 13, ["X"], [F32], ("any",))
    # Where's condition is bool whatever the case's element type
    for op, _opset, _names, cases in plans:
        if op == "Where":
            for arrs, _ in cases:
                arrs[0] = np.asarray(arrs[0] > 0 if arrs[0].dtype != bool else arrs[0])
        if op == "IsNaN":
            for arrs, _ in cases:
                arrs[0].reshape(-1)[::3] = np.nan
    return plans


PLANS = _plan()


def _run_ort(op: str, opset: int, cases) -> list[np.ndarray]:
    """One model, one node per case; every output returned in case order.

    Where onnxruntime has no kernel for an element type (Tan, Asin, Erf on double...),
    onnx.reference runs the model instead.
    """
    nodes, inputs, outputs, feeds = [], [], [], {}
    for c, (arrs, attrs) in enumerate(cases):
        names = [f"c{c}_i{k}" for k in range(len(arrs))]
        for n, a in zip(names, arrs):
            inputs.append(helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape))
            feeds[n] = a
        nodes.append(helper.make_node(op, names, [f"c{c}_out"], **attrs))
        outputs.append(onnx.ValueInfoProto(name=f"c{c}_out"))
    m = helper.make_model(helper.make_graph(nodes, op, inputs, outputs), opset_imports=[helper.make_opsetid("", opset)])
    try:
        return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    except NotImplemented_:
        from onnx.reference import ReferenceEvaluator
        return [np.asarray(x) for x in ReferenceEvaluator(m).run(None, feeds)]


NotImplemented_ = ort.capi.onnxruntime_pybind11_state.NotImplemented


def _feed(names, arrs, variadic: bool):
    return {names[0]: list(arrs)} if variadic else dict(zip(names, arrs))


def _type_text(a: np.ndarray, symbolic: bool = False) -> str:
    dims = [f"D{d}" if symbolic and d > 1 else str(d) for d in a.shape]
    return f"{dtype_of_array(a)}[{','.join(dims)}]"


def _types(feed: dict, symbolic: bool = False) -> dict:
    return {k: [_type_text(a, symbolic) for a in v] if isinstance(v, list) else _type_text(v, symbolic) for k, v in feed.items()}


@pytest.mark.parametrize("op,opset,names,cases", PLANS, ids=[f"{p[0]}-{p[1]}-{i}" for i, p in enumerate(PLANS)])
def test_spec_agrees_with_onnxruntime(op, opset, names, cases):
    names = [i.name for i in REG.resolve(op, opset).inputs]
    expected = _run_ort(op, opset, cases)
    variadic = names == ["data_0"]
    for (arrs, attrs), want in zip(cases, expected):
        feed = _feed(names, arrs, variadic)
        (name, got), = shapecheck.execute(op, opset, feed, attrs).items()
        where = f"{op}-{opset} {[a.dtype.name + str(list(a.shape)) for a in arrs]} {attrs}"
        assert got.dtype == want.dtype and got.shape == want.shape, (where, got.dtype, got.shape, want.dtype, want.shape)
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
        res = shapecheck.infer(op, opset, _types(feed), attrs)
        assert res.status == "valid" and str(res.outputs[name]) == _type_text(want), (where, res.status, res.outputs)
        sym = shapecheck.infer(op, opset, _types(feed, symbolic=True), attrs)
        assert sym.status == "valid" and str(sym.outputs[name]) == _type_text(want, symbolic=True), (where, sym.outputs)


def _valued(a: np.ndarray) -> str:
    text = str(a.tolist()).replace("True", "true").replace("False", "false")
    return f"{_type_text(a)} = {text}"


# the ops whose specs carry a value rule for integer (and bool) tensors of rank <= 1
VALUED = {"Add", "Sub", "Mul", "Div", "Mod", "Pow", "Max", "Min", "Equal", "Less", "Greater", "LessOrEqual",
          "GreaterOrEqual", "And", "Or", "Xor", "Not", "Where", "Neg", "Abs", "Sign", "Relu", "BitwiseAnd",
          "BitwiseOr", "BitwiseXor"}


WRAPS = {"Add", "Sub", "Mul", "Div", "Neg"}   # values tracked for int32/int64 only


@pytest.mark.parametrize("op,opset,names,cases", [p for p in PLANS if p[0] in VALUED],
                         ids=[f"{p[0]}-{p[1]}" for p in PLANS if p[0] in VALUED])
def test_values_of_small_integer_tensors_propagate(op, opset, names, cases):
    names = [i.name for i in REG.resolve(op, opset).inputs]
    # integer and bool inputs of rank <= 1 as constants: the value infer propagates is the run's output
    variadic = names == ["data_0"]
    small = [(arrs, attrs) for arrs, attrs in cases
             if all(a.ndim <= 1 and a.dtype.kind in "iub" for a in arrs)]
    if not small:
        return
    for (arrs, attrs), want in zip(small, _run_ort(op, opset, small)):
        feed = _feed(names, arrs, variadic)
        texts = {k: [_valued(a) for a in v] if isinstance(v, list) else _valued(v) for k, v in feed.items()}
        res = shapecheck.infer(op, opset, texts, attrs)
        out = next(iter(res.outputs.values()))
        if want.dtype.kind == "b" or want.dtype in (np.int32, np.int64) or op not in WRAPS:
            assert str(out) == _valued(want), (op, texts, str(out))
        else:   # a narrow type where a symbolic value could wrap: no value is kept
            assert str(out) == _type_text(want), (op, texts, str(out))


def test_value_rules_are_exercised():
    # the random plan must reach the value rule for the ops whose values propagate
    ops = {op for op, _, names, cases in PLANS
           for arrs, _ in cases if all(a.ndim <= 1 and a.dtype.kind in "iub" for a in arrs)}
    assert {"Add", "Sub", "Mul", "Div", "Mod", "Equal", "Less", "And", "Where", "Neg", "Abs"} <= ops


def _out(op: str, inputs: dict, opset: int = 17, attrs: dict | None = None):
    res = shapecheck.infer(op, opset, inputs, attrs or {})
    assert res.status == "valid", res.violations
    (t,) = res.outputs.values()
    return t


def test_where_equal_minus_one_keeps_a_symbolic_shape():
    s = _out("Shape", {"data": "float[B,S]"})
    eq = _out("Equal", {"A": s, "B": "int64[] = -1"})
    assert str(eq) == "bool[2] = [false, false]"
    w = _out("Where", {"condition": eq, "X": "int64[2] = [1, 1]", "Y": s})
    assert str(w) == "int64[2] = [B, S]"
    # and the Expand it feeds gets the model's dims
    assert str(_out("Expand", {"input": "float[1,S]", "shape": w})) == "float[B,S]"


def test_where_with_an_undecided_condition_keeps_only_agreeing_elements():
    w = _out("Where", {"condition": "bool[2]", "X": "int64[2] = [N, 1]", "Y": "int64[2] = [N, 4]"})
    text = str(w)
    assert text.startswith("int64[2] = [N, ") and "1" not in text.split(",")[-1] and "4" not in text.split(",")[-1]


def test_arithmetic_on_shape_values():
    s = _out("Shape", {"data": "float[B,S,64]"})
    assert str(_out("Mul", {"A": s, "B": "int64[] = 2"})) == "int64[3] = [2*B, 2*S, 128]"
    assert str(_out("Div", {"A": s, "B": "int64[] = 2"})) == "int64[3] = [floor(B/2), floor(S/2), 32]"
    assert str(_out("Sub", {"A": s, "B": "int64[3] = [0, 1, 0]"})) == "int64[3] = [B, S-1, 64]"
    assert str(_out("Neg", {"X": s})) == "int64[3] = [-B, -S, -64]"
    assert str(_out("Max", {"data_0": [s, "int64[] = 1"]})) == "int64[3] = [Max(1,B), Max(1,S), 64]"
    assert str(_out("Relu", {"X": "int64[2] = [N, -3]"})) == "int64[2] = [N, 0]"
    # comparisons decided by the dims' signs; N < M is not decided
    assert str(_out("Less", {"A": s, "B": "int64[] = 0"})) == "bool[3] = [false, false, false]"
    assert str(_out("GreaterOrEqual", {"A": s, "B": "int64[] = 0"})) == "bool[3] = [true, true, true]"
    undecided = str(_out("Less", {"A": "int64[1] = [N]", "B": "int64[1] = [M]"}))
    assert undecided.startswith("bool[1] = [") and "true" not in undecided and "false" not in undecided


def test_values_that_overflow_their_type_are_not_kept():
    # int32 2**30 * 4 wraps in onnxruntime; shapecheck keeps no value rather than a wrong one
    t = _out("Mul", {"A": "int32[1] = [1073741824]", "B": "int32[] = 4"})
    assert str(t) == "int32[1]"


def test_torch_expand_pattern_in_a_model_keeps_the_model_dims():
    # Shape -> Equal(-1) -> Where(ones, shape) -> Expand, as torch exports x.expand_as(...):
    # with value_info stripped the Expand's output is [B, S], and onnxruntime agrees at two sizes
    import onnxruntime as ort
    from tests.harness.models import FLOAT, const, model, node, vi

    from shapecheck.model.check import check_model
    nodes = [node("Shape", ["x"], ["s"]), node("Equal", ["s", "m1"], ["eq"]), node("Where", ["eq", "ones", "s"], ["w"]),
             node("Expand", ["y", "w"], ["out"]), node("Div", ["s", "two"], ["half"]), node("Mul", ["half", "two"], ["even"])]
    m = model(nodes, [vi("x", FLOAT, ["B", "S"]), vi("y", FLOAT, [1, "S"])], [vi("out", FLOAT, None), vi("even", 7, None)],
              initializers=[const("m1", -1), const("ones", [1, 1]), const("two", 2)], opset=17)
    report = check_model(m)
    types = {k: str(v) for k, v in report.types.items()}
    assert types["w"] == "int64[2] = [B, S]" and types["out"] == "float[B,S]"
    assert types["even"] == "int64[2] = [2*floor(B/2), 2*floor(S/2)]"
    assert report.to_dict()["summary"]["invalid"] == 0
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for b, s in ((2, 3), (5, 1)):
        out, even = sess.run(None, {"x": np.zeros((b, s), np.float32), "y": np.ones((1, s), np.float32)})
        assert out.shape == (b, s) and even.tolist() == [2 * (b // 2), 2 * (s // 2)]


def test_integer_division_of_a_symbolic_length_truncates_toward_zero():
    """ONNX Div on integers truncates: ``(frames - 1) / 4`` is 0 at frames = 0, where floor gives -1.
    Where the dividend may be negative but not below -divisor, the value is Max(0, floor(...)), further
    below Max(floor(...), Min(0, ceiling(...)));
    torch's ``size % 2`` (``w - 2*floor(w/2)``) is never negative, so it divides as floor."""
    frames = symbol("frames")
    q = _out("Div", {"A": "int64[] = frames - 1", "B": "int64[] = 4"}, 14)
    (d,) = q.sym
    for f in range(0, 13):
        assert int(d.xreplace({frames: f})) == int((f - 1) / 4), f       # C's truncation, as onnxruntime
    r = _out("Div", {"A": _out("Sub", {"A": "int64[] = w", "B": _out("Mul", {"A": "int64[] = 2", "B": _out(
        "Div", {"A": "int64[] = w", "B": "int64[] = 2"}, 14)}, 14)}, 14), "B": "int64[] = 2"}, 14)
    assert r.value is not None and int(r.value) == 0       # (w % 2) // 2 is 0 whatever w
    # a dividend that may be far below zero truncates exactly too (floor above 0, ceiling below)
    u = _out("Div", {"A": "int64[] = frames - 9", "B": "int64[] = 4"}, 14)
    (e,) = u.sym
    for f in range(0, 30):
        assert int(sympy.sympify(e).xreplace({frames: f})) == int((f - 9) / 4), f


def test_integer_division_by_a_symbolic_divisor_that_divides():
    """dynamo's ``numel // (9 * batch)``: the quotient when it is a polynomial in the dims (the
    division fails at run time where the divisor is 0); anything else stays unknown."""
    n = _out("Mul", {"A": "int64[] = 27*B", "B": "int64[] = H*W"}, 14)
    q = _out("Div", {"A": n, "B": "int64[] = 9*B"}, 14)
    assert str(q) == "int64[] = 3*H*W"
    r = _out("Div", {"A": "int64[] = B + 1", "B": "int64[] = B"}, 14)
    assert r.sym is None or any(s.is_Dummy for s in r.sym[0].free_symbols)   # (B + 1) / B: not a polynomial


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("elementwise")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 280


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "elementwise")


def test_the_node_cases_cover_the_elementwise_kinds():
    ops = {c.model.graph.node[0].op_type for c in NODE_CASES}
    assert {"Add", "Sub", "Mul", "Div", "Mod", "Pow", "Max", "Min", "Sum", "Mean", "Equal", "Less", "Greater",
            "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not", "Where", "Neg", "Abs", "Relu", "Sqrt",
            "Gelu", "LeakyRelu", "Erf", "Clip"} <= ops


def test_integer_div_of_a_length_that_may_be_negative_truncates_at_every_size():
    """Div of W - k by a positive constant (a frame count before its check): ONNX truncates toward zero; the
    symbolic quotient equals numpy's truncated one at every W, negative numerators included (brute force)."""
    from shapecheck.dims import symbol
    from shapecheck.functions.elementwise import div
    from shapecheck.domain.evaluate import compile_dim   # exact integer evaluation (no float rounding)
    W = symbol("W")
    for k in (0, 1, 5, 17, 400):
        for b in (1, 2, 3, 7, 160):
            q = div(W - k, b)
            f = compile_dim(q, (W,))
            for w in range(0, 2 * k + 3 * b + 2):
                want = -((k - w) // b) if w < k else (w - k) // b     # truncation toward zero, in integers
                assert f((w,)) == want, (k, b, w, q)


def test_integer_mod_of_symbolic_values_holds_at_every_size():
    """Mod (fmod = 0) of a length by a positive constant, and of a constant by a length (dynamo writes
    torch.roll(x, 1) as Mod(-1, seq)): the symbolic remainder equals Python's at every size where the
    node runs (a divisor of 0 fails it); where no one formula holds, it is unknown (brute force)."""
    from shapecheck.dims import is_symbolic, is_unknown, symbol
    from shapecheck.functions.elementwise import mod
    from shapecheck.domain.evaluate import compile_dim
    S = symbol("S")
    for k in (-7, -3, 0, 2, 5):
        for b in (1, 2, 3, 8):
            f = compile_dim(mod(S + k, b), (S,))
            assert all(f((s,)) == (s + k) % b for s in range(0, 40)), (k, b)
    for a in (-5, -1, 0, 3):
        for divisor in (S, S + 4, 2 * S + 6):
            r = mod(a, divisor)
            if is_symbolic(r) and any(is_unknown(x) for x in r.free_symbols):
                continue
            f, g = compile_dim(r, (S,)), compile_dim(divisor, (S,))
            assert all(f((s,)) == a % g((s,)) for s in range(0, 40) if g((s,)) != 0), (a, divisor, r)
    assert mod(-1, S) == S - 1 and is_unknown(mod(-2, S)) and mod(-2, S + 4) == S + 2
