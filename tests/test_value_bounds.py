"""Index values known by loose bounds (``functions/bounds.py``, ``solver/loose.py``).

RoBERTa numbers its positions by a running count of the tokens that are not padding:
``cumsum(input_ids != pad) * mask + pad``.  The positions reach ``seq + 1`` only without padding,
so a table of 64 positions is read in range for every input when ``seq <= 62``, and at longer
sizes only for inputs with enough padding.  A new user's trial found it reported as a bare
run-time check; the domain now says at which sizes every input value is in range.  onnxruntime
decides each case here; each bound rule has a brute-force test.
"""
from __future__ import annotations

import itertools

import sympy

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings, strategies as st
from onnx import TensorProto as T, helper

import shapecheck
from shapecheck.dims import symbol
from shapecheck.functions.bounds import INTEGER_TYPES, cast_bounds, running_bounds, value_range, with_bounds
from shapecheck.notation import TensorVal
from shapecheck.types import TensorType

PAD, ROWS = 1, 64
RANGES = {t: value_range(t) for t in ("bool", *INTEGER_TYPES)}


def _positions_model(path) -> str:
    """RoBERTa's position ids (as torch's TorchScript exporter writes them) reading a 64-row table."""
    nodes = [
        helper.make_node("Equal", ["input_ids", "pad"], ["is_pad"]),
        helper.make_node("Not", ["is_pad"], ["keep"]),
        helper.make_node("Cast", ["keep"], ["mask"], to=T.INT32),
        helper.make_node("CumSum", ["mask", "axis"], ["count"]),
        helper.make_node("Mul", ["count", "mask"], ["masked"]),
        helper.make_node("Cast", ["masked"], ["masked64"], to=T.INT64),
        helper.make_node("Add", ["masked64", "pad"], ["positions"]),
        helper.make_node("Gather", ["table", "positions"], ["y"], name="position_embeddings"),
    ]
    inits = [helper.make_tensor("pad", T.INT64, [], [PAD]), helper.make_tensor("axis", T.INT64, [], [1]),
             helper.make_tensor("table", T.FLOAT, [ROWS, 4], np.zeros(ROWS * 4, np.float32).tolist())]
    g = helper.make_graph(nodes, "positions", [helper.make_tensor_value_info("input_ids", T.INT64, ["batch", "seq"])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


def _runs(path: str, ids: np.ndarray) -> bool:
    try:
        ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"input_ids": ids})
        return True
    except Exception:  # noqa: BLE001 - onnxruntime refusing the values is the answer
        return False


def test_the_domain_says_at_which_sizes_every_input_value_is_in_range(tmp_path):
    path = _positions_model(tmp_path / "positions.onnx")
    rep = shapecheck.check_model(path)
    assert not rep.failed and rep.domain.text() == "batch >= 1, seq >= 1"
    assert rep.domain.every_value == [{"condition": "seq <= 62", "nodes": ["position_embeddings"]}]
    gather = next(n for n in rep.nodes if n.name == "position_embeddings")
    assert gather.runtime_checks == ["C5"] and gather.runtime_when == {"C5": "seq <= 62"}
    # onnxruntime: no padding is the largest position; at seq 62 it runs, at 63 it needs padding
    tokens = lambda seq, fill: np.full((2, seq), fill, np.int64)
    assert _runs(path, tokens(62, 5)) and not _runs(path, tokens(63, 5)) and _runs(path, tokens(63, PAD))


def test_at_sizes_where_no_input_value_is_sure_to_be_in_range_the_runtime_checks_them(tmp_path):
    # at seq = 100 the positions reach past the 64 rows unless the tokens are padding: no size of
    # the model makes every value in range (an empty batch would, but every input dim is at least 1)
    path = _positions_model(tmp_path / "positions.onnx")
    rep = shapecheck.check_model(path, dims={"seq": 100})
    gather = next(n for n in rep.nodes if n.name == "position_embeddings")
    assert gather.runtime_checks == ["C5"] and not gather.runtime_when and rep.domain.every_value == []
    tokens = lambda fill: np.full((2, 100), fill, np.int64)
    assert not _runs(path, tokens(5)) and _runs(path, tokens(PAD))   # the values decide, as the runtime finds
    assert shapecheck.check_model(path, dims={"seq": 10}).domain.every_value == []   # proved there: nothing to say


def test_at_a_size_within_it_the_index_values_are_proved(tmp_path):
    path = _positions_model(tmp_path / "positions.onnx")
    inside = shapecheck.check_model(path, dims="batch=2,seq=62")
    outside = shapecheck.check_model(path, dims="batch=2,seq=63")
    assert [n.runtime_checks for n in inside.nodes if n.name == "position_embeddings"] == [[]]
    assert [n.runtime_checks for n in outside.nodes if n.name == "position_embeddings"] == [["C5"]]


def test_the_cli_shows_it_under_the_domain(tmp_path, capsys):
    from shapecheck.cli import main
    path = _positions_model(tmp_path / "positions.onnx")
    assert main(["check", path]) == 0
    got = capsys.readouterr()
    assert "  for every input value: seq <= 62    (the index values 'position_embeddings' read are in range there;" in got.out
    assert "  = C5 holds for every input value when seq <= 62; at other sizes the runtime checks it" in got.err


# -- each bound rule against brute force

@settings(max_examples=200, deadline=None)
@given(st.integers(-3, 3), st.integers(0, 3), st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_running_bounds_hold_every_running_sum(lo, width, shape, data):
    hi = lo + width
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    exclusive = data.draw(st.sampled_from([0, 1]))
    x = np.array(data.draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
                 np.int64).reshape(shape)
    got = running_bounds(TensorVal("x", TensorType("int64", tuple(shape), bounds=(lo, hi, False))), axis, exclusive)
    sums = np.cumsum(x, axis=axis) - (x if exclusive else 0)
    assert got[0] <= sums.min() and sums.max() <= got[1]
    # exact (both attained) only where every element is the same c >= 0: the sums are then 0 or c, ..., n*c
    assert got[2] == (lo == hi and lo >= 0)
    if got[2]:
        assert (sums.min(), sums.max()) == (got[0], got[1])


def test_running_bounds_of_a_symbolic_axis_name_the_dim():
    s = symbol("seq")
    mask = TensorVal("m", TensorType("int32", (2, s), bounds=(0, 1, False)))
    assert running_bounds(mask, np.array(1), 0) == (0, s, False)


def test_cast_bounds_as_wide_as_their_type_pass_only_where_the_target_holds_the_type():
    for src, dst in itertools.product(RANGES, RANGES):
        lo, hi = RANGES[src]
        got = cast_bounds(TensorVal("x", TensorType(src, (3,), bounds=(lo, hi, False))), dst)
        fits = RANGES[dst][0] <= lo and hi <= RANGES[dst][1]
        assert isinstance(got, tuple) == fits, (src, dst)
    # a float is not tracked; a bool is 0 or 1 without bounds of its own
    assert not isinstance(cast_bounds(TensorVal("f", TensorType("float", (3,))), "int64"), tuple)
    assert cast_bounds(TensorVal("b", TensorType("bool", (3,))), "int64") == (0, 1, False)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4), st.integers(0, 4), st.sampled_from(["+", "*"]), st.data())
def test_two_bounded_operands_not_negative(lo_a, wa, lo_b, wb, op, data):
    a = np.array(data.draw(st.lists(st.integers(lo_a, lo_a + wa), min_size=4, max_size=4)))
    b = np.array(data.draw(st.lists(st.integers(lo_b, lo_b + wb), min_size=4, max_size=4)))
    got = with_bounds(TensorVal("a", TensorType("int64", (4,), bounds=(lo_a, lo_a + wa, False))),
                      TensorVal("b", TensorType("int64", (4,), bounds=(lo_b, lo_b + wb, False))), op)
    out = a + b if op == "+" else a * b
    assert got[0] <= out.min() and out.max() <= got[1] and got[2] is False


@settings(max_examples=200, deadline=None)
@given(st.integers(-3, 3), st.integers(0, 3), st.integers(-2, 3), st.sampled_from("+-*"),
       st.sampled_from(["int64", "float"]), st.data())
def test_a_side_of_one_number_moves_the_other_sides_bounds_and_keeps_them_exact(lo, width, c, op, dtype, data):
    # brute force: b is c everywhere (bounds that meet, no value: a ConstantOfShape of ones), a attains
    # both its bounds; a op b lies in the bounds given, and attains them where they are said exact
    hi = lo + width
    a = np.array([lo, hi] + data.draw(st.lists(st.integers(lo, hi), min_size=2, max_size=2)), np.float64)
    b = np.full(4, c, np.float64)
    got = with_bounds(TensorVal("a", TensorType(dtype, (4,), bounds=(lo, hi, True))),
                      TensorVal("b", TensorType(dtype, (4,), bounds=(c, c, False))), op)
    if op == "*" and c < 0:
        assert not isinstance(got, tuple)
        return
    out = {"+": a + b, "-": a - b, "*": a * b}[op]
    assert got[2] is True and (out.min(), out.max()) == (got[0], got[1])


def test_a_float_holding_integers_has_bounds_and_a_fraction_has_none():
    from shapecheck.functions.bounds import bounds
    whole = TensorVal("v", TensorType("float", (3,), np.array([1.0, 4.0, 2.0], np.float32)))
    part = TensorVal("v", TensorType("float", (2,), np.array([1.0, 0.5], np.float32)))
    assert bounds(whole) == (1, 4, True) and not isinstance(bounds(part), tuple)
    fill = lambda v: bounds(TensorVal("value", TensorType("float", (1,), np.array([v]))))   # ConstantOfShape's value
    assert fill(3.0) == (3, 3, True) and not isinstance(fill(np.inf), tuple)
    count = TensorVal("c", TensorType("float", (2, symbol("seq")), bounds=(0, symbol("seq") - 1, True)))
    assert cast_bounds(count, "int64") == (0, symbol("seq") - 1, True)
    # concrete float bounds pass a narrowing cast only where they fit the target, as integers' do
    wide = TensorVal("w", TensorType("float", (2,), bounds=(0, 70000, True)))
    assert cast_bounds(wide, "int32") == (0, 70000, True) and not isinstance(cast_bounds(wide, "int16"), tuple)
    assert not isinstance(cast_bounds(count, "int16"), tuple)


def _opt_positions_model(path, ones: str) -> str:
    """OPT's position ids, as torch's exporters write them: a float mask of ones (``ConstantOfShape``
    from TorchScript, ``Expand`` of 1.0 from dynamo), counted, less 1, cast, plus 2, read from a
    table of 50 rows (``max_position_embeddings`` 48)."""
    make = (helper.make_node("ConstantOfShape", ["shape"], ["ones"], value=helper.make_tensor("v", T.FLOAT, [1], [1.0]))
            if ones == "constant_of_shape" else helper.make_node("Expand", ["one", "shape"], ["ones"]))
    nodes = [helper.make_node("Shape", ["input_ids"], ["shape"]), make,
             helper.make_node("CumSum", ["ones", "axis"], ["count"]),
             helper.make_node("Mul", ["count", "ones"], ["masked"]),
             helper.make_node("Sub", ["masked", "one"], ["from0"]),
             helper.make_node("Cast", ["from0"], ["from0_64"], to=T.INT64),
             helper.make_node("Add", ["from0_64", "offset"], ["positions"]),
             helper.make_node("Gather", ["table", "positions"], ["y"], name="embed_positions")]
    inits = [helper.make_tensor("one", T.FLOAT, [], [1.0]), helper.make_tensor("axis", T.INT64, [], [1]),
             helper.make_tensor("offset", T.INT64, [], [2]),
             helper.make_tensor("table", T.FLOAT, [50, 4], np.zeros(200, np.float32).tolist())]
    g = helper.make_graph(nodes, "opt", [helper.make_tensor_value_info("input_ids", T.INT64, ["batch", "seq"])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


@pytest.mark.parametrize("ones", ["constant_of_shape", "expand"])
def test_positions_counted_in_float_from_a_mask_of_ones_bound_the_sequence(tmp_path, ones):
    # the positions are 2..seq+1 whatever the input: seq <= 48 is the model's domain, not a runtime check
    path = _opt_positions_model(tmp_path / f"opt_{ones}.onnx", ones)
    rep = shapecheck.check_model(path)
    assert rep.domain.text() == "batch >= 1, 1 <= seq <= 48"
    assert "every size held in float below 2**24" in rep.domain.assumption
    gather = next(n for n in rep.nodes if n.name == "embed_positions")
    assert gather.status == "conditional" and not gather.runtime_checks
    assert shapecheck.check_model(path, dims={"seq": 49}).failed
    assert _runs(path, np.ones((2, 48), np.int64)) and not _runs(path, np.ones((2, 49), np.int64))


def test_a_negative_operand_gives_no_bounds():
    got = with_bounds(TensorVal("a", TensorType("int64", (4,), bounds=(-1, 2, False))),
                      TensorVal("b", TensorType("int64", (4,), bounds=(0, 2, False))), "*")
    assert not isinstance(got, tuple)


@pytest.mark.parametrize("dtype, kept", [("int64", True), ("int32", True), ("uint32", True), ("int16", False),
                                         ("uint8", False)])
def test_a_narrowing_cast_keeps_bounds_that_fit(dtype, kept):
    # RoBERTa's dynamo export casts its int64 running count to int32: a count of elements is a size,
    # which fits a 32-bit integer (as Cast's value rule takes sizes); concrete bounds are checked
    s = symbol("seq")
    count = TensorVal("c", TensorType("int64", (2, s), bounds=(0, s, False)))
    assert isinstance(cast_bounds(count, dtype), tuple) == kept
    assert isinstance(cast_bounds(TensorVal("c", TensorType("int64", (2,), bounds=(0, 70000, False))), "int16"), tuple) is False


def test_cast_bounds_never_let_a_value_outside_the_target_through():
    # brute force: concrete bounds kept by a narrowing cast lie in the target's range
    for src, dst in itertools.product(RANGES, RANGES):
        for lo, hi in ((0, 1), (-5, 5), (0, 300), (-40000, 40000), (0, 1 << 40)):
            got = cast_bounds(TensorVal("x", TensorType(src, (3,), bounds=(lo, hi, False))), dst)
            if isinstance(got, tuple):
                fits_type = RANGES[dst][0] <= RANGES[src][0] and RANGES[src][1] <= RANGES[dst][1]
                assert fits_type or RANGES[dst][0] <= lo and hi <= RANGES[dst][1], (src, dst, lo, hi)


def test_a_row_stride_keeps_the_bounds_of_flattened_indices():
    # GPT-2's mask lookup: Range(0, batch) * total + Range(0, past + seq) into a flattened [batch * total]
    # mask is in range for every input when past + seq <= total (a new user's trial found it a bare run-time check)
    b, t, n = symbol("batch"), symbol("total"), symbol("n")
    rows = TensorVal("r", TensorType("int64", (b, 1), bounds=(0, b - 1, True)))
    stride = TensorVal("t", TensorType("int64", (), sym=(t,)))
    scaled = with_bounds(rows, stride, "*")
    assert scaled == (0, (b - 1) * t, True)
    cols = TensorVal("c", TensorType("int64", (n,), bounds=(0, n - 1, True)))
    flat = with_bounds(TensorVal("s", TensorType("int64", (b, 1), bounds=scaled)), cols, "+")
    assert flat[0] == 0 and sympy.expand(flat[1] - (b * t - t + n - 1)) == 0 and flat[2] is False
