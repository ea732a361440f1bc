"""Values of shape tensors through the elementwise specs: the patterns exporters write.

torch exports ``Where(Equal(shape, -1), ones, shape)`` before nearly every Expand and Reshape;
with symbolic dims the shape's value must come out unchanged, since a dim is never -1.
"""
from __future__ import annotations

import doctest

import shapecheck
import shapecheck.kernels.elementwise


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


def test_kernel_doctests():
    res = doctest.testmod(shapecheck.kernels.elementwise)
    assert res.attempted > 0 and res.failed == 0


def test_torch_expand_pattern_in_a_model_keeps_the_model_dims():
    # Shape -> Equal(-1) -> Where(ones, shape) -> Expand, as torch exports x.expand_as(...):
    # with value_info stripped the Expand's output is [B, S], and onnxruntime agrees at two sizes
    import sys
    from pathlib import Path

    import numpy as np
    import onnxruntime as ort
    sys.path.insert(0, str(Path(__file__).parent))
    from modelkit import FLOAT, const, model, node, vi

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
    Where the dividend may be negative but not below -divisor, the value is Max(0, floor(...));
    torch's ``size % 2`` (``w - 2*floor(w/2)``) is never negative, so it divides as floor."""
    import sympy
    from shapecheck.dims import symbol
    frames = symbol("frames")
    q = _out("Div", {"A": "int64[] = frames - 1", "B": "int64[] = 4"}, 14)
    (d,) = q.sym
    for f in range(0, 13):
        assert int(d.xreplace({frames: f})) == int((f - 1) / 4), f       # C's truncation, as onnxruntime
    r = _out("Div", {"A": _out("Sub", {"A": "int64[] = w", "B": _out("Mul", {"A": "int64[] = 2", "B": _out(
        "Div", {"A": "int64[] = w", "B": "int64[] = 2"}, 14)}, 14)}, 14), "B": "int64[] = 2"}, 14)
    assert r.value is not None and int(r.value) == 0       # (w % 2) // 2 is 0 whatever w
    # a dividend that may be far below zero stays an unknown, never a guess
    u = _out("Div", {"A": "int64[] = frames - 9", "B": "int64[] = 4"}, 14)
    assert u.sym is None or any(s.is_Dummy for s in sympy.sympify(u.sym[0]).free_symbols)


def test_integer_division_by_a_symbolic_divisor_that_divides():
    """dynamo's ``numel // (9 * batch)``: the quotient when it is a polynomial in the dims (the
    division fails at run time where the divisor is 0); anything else stays unknown."""
    n = _out("Mul", {"A": "int64[] = 27*B", "B": "int64[] = H*W"}, 14)
    q = _out("Div", {"A": n, "B": "int64[] = 9*B"}, 14)
    assert str(q) == "int64[] = 3*H*W"
    r = _out("Div", {"A": "int64[] = B + 1", "B": "int64[] = B"}, 14)
    assert r.sym is None or any(s.is_Dummy for s in r.sym[0].free_symbols)   # (B + 1) / B: not a polynomial
