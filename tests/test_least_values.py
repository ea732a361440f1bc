"""``model.least``: a node whose outputs a first solve leaves unknown is solved again from its input
dims' least values.  Two graphs that torch exports write, each checked against onnxruntime at every
size of a grid: every tensor's shape and small integer value, and the stated domain against where
onnxruntime runs.  Before ``least`` both kept an unknown dim (and the first an open domain).  And the
constant a bound's fix names is the table behind the bound: not a kernel that needs only its bottom,
nor a table as wide as the bound."""
from __future__ import annotations

import numpy as np
import onnx
import sympy
from onnx import TensorProto, helper, numpy_helper

from shapecheck import check_model
from shapecheck.dims import has_unknown, is_symbolic, symbol
from tests.fixtures.export_truth import exposed
from tests.harness.runtime import run_model

INT64_MAX = (1 << 63) - 1


def _model(nodes, inputs, outputs, inits) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def slice_from_the_end() -> onnx.ModelProto:
    """``pos[:, -L:] + conv(x)``, ``L`` the convolution's length read by Shape (TorchScript's form)."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], strides=[2]),
             helper.make_node("Shape", ["y"], ["sy"]),
             helper.make_node("Gather", ["sy", "two"], ["L"], axis=0),
             helper.make_node("Neg", ["L"], ["nl"]),
             helper.make_node("Unsqueeze", ["nl", "zero"], ["start"]),
             helper.make_node("Slice", ["pos", "start", "end", "one"], ["p"]),
             helper.make_node("Add", ["y", "p"], ["out"])]
    inits = {"w": np.zeros((8, 8, 3), np.float32), "pos": np.zeros((8, 40), np.float32),
             "two": np.array(2, np.int64), "zero": np.array([0], np.int64), "one": np.array([1], np.int64),
             "end": np.array([INT64_MAX], np.int64)}
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 8, "T"])],
                  [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)], inits)


def roll_on_a_padded_axis() -> onnx.ModelProto:
    """dynamo's ``torch.roll(x, 3)`` on an axis padded to a multiple of 7: the shift is ``3 % Hp``."""
    nodes = [helper.make_node("Shape", ["x"], ["sx"], start=1, end=2),
             helper.make_node("Add", ["sx", "six"], ["s6"]),
             helper.make_node("Div", ["s6", "seven"], ["q"]),
             helper.make_node("Mul", ["q", "seven"], ["hp"]),
             helper.make_node("Sub", ["hp", "sx"], ["extra"]),
             helper.make_node("Concat", ["zeros3", "extra"], ["pads"], axis=0),
             helper.make_node("Pad", ["x", "pads"], ["xp"]),
             helper.make_node("Shape", ["xp"], ["sp"], start=1, end=2),
             helper.make_node("Mod", ["three", "sp"], ["shift"]),
             helper.make_node("Neg", ["shift"], ["ns"]),
             helper.make_node("Slice", ["xp", "ns", "end", "one"], ["tail"]),
             helper.make_node("Slice", ["xp", "zero", "ns", "one"], ["head"]),
             helper.make_node("Concat", ["tail", "head"], ["out"], axis=1)]
    inits = {"six": np.array([6], np.int64), "seven": np.array([7], np.int64), "three": np.array([3], np.int64),
             "zeros3": np.zeros(3, np.int64), "zero": np.array([0], np.int64), "one": np.array([1], np.int64),
             "end": np.array([INT64_MAX], np.int64)}
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "H"])],
                  [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)], inits)


def _at(d, env: dict) -> int:
    return int(sympy.sympify(d).subs(env)) if is_symbolic(d) else int(d)


def _agrees(model, report, feeds: dict, env: dict) -> bool:
    """Whether onnxruntime runs there exactly where the domain admits, and every tensor is as inferred."""
    every = exposed(model)   # each node's outputs as the graph's
    outs = run_model(every, feeds)
    got = None if outs is None else dict(zip([o.name for o in every.graph.output], outs))
    assert report.domain.admits({str(k): v for k, v in env.items()}) is (got is not None), env
    for name, value in (got or {}).items():
        t = report.types[name]
        assert tuple(_at(d, env) for d in t.shape) == value.shape, (name, t, env)
        elems = t.elements()
        if elems is not None and value.dtype.kind == "i":
            assert [_at(e, env) for e in elems] == value.reshape(-1).tolist(), (name, t, env)
    return got is not None


def test_a_slice_from_the_end_by_a_computed_length_is_exact_and_bounded():
    model = slice_from_the_end()
    report = check_model(model)
    p = report.types["p"].shape[1]
    assert not has_unknown(p)   # Min(40, floor(T/2 - 3/2) + 1): the start is from the end where T >= 3
    ran = [T for T in range(1, 96) if _agrees(model, report, {"x": np.zeros((2, 8, T), np.float32)},
                                                 {symbol("B"): 2, symbol("T"): T})]
    assert ran == list(range(3, 83))   # the stated domain: 3 <= T <= 82 (the 40 rows of pos)


def test_a_remainder_by_a_padded_size_is_the_shift():
    model = roll_on_a_padded_axis()
    report = check_model(model)
    assert report.types["shift"].elements() == (3,)   # Hp >= 7 wherever H >= 1
    assert all(_agrees(model, report, {"x": np.zeros((2, H), np.float32)}, {symbol("B"): 2, symbol("H"): H})
               for H in range(1, 30))


def test_without_the_nonempty_assumption_the_remainder_stays_unknown():
    # at H = 0 the padded size is 0, and Mod by 0 fails: no one value holds at every size
    report = check_model(roll_on_a_padded_axis(), assume_nonempty=False)
    assert has_unknown(report.types["shift"].elements()[0])


def test_the_top_is_blamed_on_the_table_not_on_the_kernel_that_needs_the_bottom():
    # the convolution needs T >= 3 (its kernel); only the Add needs the top, from pos's 40 rows
    report = check_model(slice_from_the_end())
    (rel,) = [r for r in report.domain.relations if r.dims == ("T",)]
    named = [c for src in rel.sources for c in src.constants]
    assert rel.caps and any("'pos'" in c for c in named) and not any("'w'" in c for c in named), named


def test_a_table_as_wide_as_the_bound_is_not_blamed_for_it():
    # a new user's trial: a BERT of hidden size 32 with 32 positions was told to enlarge its word table
    # float[100,32] too; its 32 is the width every embedding and the Add's output [B, S, 32] share
    rows = np.arange(32, dtype=np.int64).reshape(1, 32)
    nodes = [helper.make_node("Gather", ["word", "ids"], ["emb"]),
             helper.make_node("Shape", ["ids"], ["s"], start=1, end=2),
             helper.make_node("Slice", ["rows", "zero", "s", "one"], ["pid"]),
             helper.make_node("Gather", ["pos", "pid"], ["pemb"]),
             helper.make_node("Add", ["emb", "pemb"], ["out"])]
    inits = {"word": np.zeros((100, 32), np.float32), "pos": np.zeros((32, 32), np.float32), "rows": rows,
             "zero": np.array([0], np.int64), "one": np.array([1], np.int64)}
    model = _model(nodes, [helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", "S"])],
                   [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)], inits)
    report = check_model(model)
    assert report.domain.text() == "B >= 1, 1 <= S <= 32"
    for s in (32, 33):
        assert (run_model(model, {"ids": np.zeros((1, s), np.int64)}) is not None) is (s == 32)
    (rel,) = [r for r in report.domain.relations if r.dims == ("S",)]
    named = [c for src in rel.sources for c in src.constants]
    assert any("'pos'" in c for c in named) and not any("'word'" in c for c in named), named
