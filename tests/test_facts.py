"""Floors of floors, floor bounds, and the model's conditions as facts, checked by brute force.

``floor_div`` takes a floor inside the dividend in, ``floor_bounds`` brackets a sum of floors,
and ``model.facts.Facts`` settles ``Max``/``Min`` and drops implied conditions under the lower
bounds the model's own conditions state.  Each is checked against the dims' values on a range,
so a wrong rewrite or a wrong decision fails here.
"""
from __future__ import annotations

from pathlib import Path

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.model.check import check_model
from shapecheck.dims.rounding import floor_bounds, floor_div, provably_nonnegative
from shapecheck.model.facts import Facts
from shapecheck.notation import compare_dims, Rel
from shapecheck.dims import symbol

F = symbol("frames")
VALUES = range(0, 60)
ZOO = Path(__file__).resolve().parent / "fixtures" / "zoo"


def _at(e, v: int) -> int:
    return int(sympy.sympify(e).subs(F, v))


inner = st.tuples(st.integers(1, 3), st.integers(-4, 4), st.integers(1, 4), st.integers(-3, 3))


@settings(max_examples=60, deadline=None)
@given(inner, st.integers(1, 4))
def test_floor_div_takes_an_inner_floor_in(parts, s):
    c1, c0, m, c = parts
    a = sympy.floor((c1 * F + c0) / sympy.Integer(m)) + c
    q = floor_div(a, s)
    assert all(_at(q, v) == _at(a, v) // s for v in VALUES), (a, s, q)


@settings(max_examples=60, deadline=None)
@given(inner, inner, st.integers(-2, 2))
def test_floor_bounds_bracket_the_value(p1, p2, k):
    d = sum(c * sympy.floor((c1 * F + c0) / sympy.Integer(m)) for c1, c0, m, c in (p1, p2)) + k * F
    bounds = floor_bounds(d)
    assert bounds is not None
    lo, hi = bounds
    for v in VALUES:
        x = _at(d, v)
        assert sympy.sympify(lo).subs(F, v) <= x <= sympy.sympify(hi).subs(F, v), (d, v)


@settings(max_examples=80, deadline=None)
@given(inner, inner, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
def test_comparisons_of_floors_hold_at_every_value(p1, p2, op):
    a = sum(c * sympy.floor((c1 * F + c0) / sympy.Integer(m)) for c1, c0, m, c in (p1,))
    b = sum(c * sympy.floor((c1 * F + c0) / sympy.Integer(m)) for c1, c0, m, c in (p2,)) + p2[3]
    got = compare_dims(a, op, b)
    if got is True or got is False:
        ops = {"==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}
        assert all(ops[op](_at(a, v), _at(b, v)) == got for v in VALUES), (a, op, b, got)
    if provably_nonnegative(a - b):
        assert all(_at(a, v) >= _at(b, v) for v in VALUES), (a, b)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 3), st.integers(-6, 2), st.sampled_from([">=", ">", "=="]), inner, st.integers(-2, 2),
       st.sampled_from(["max", "min"]))
def test_facts_settle_max_and_min_only_where_the_bounds_decide(c, k, op, parts, k2, which):
    facts = Facts()
    rel = Rel(op, c * F + k, 0)
    facts.learn(rel)
    ok = [v for v in VALUES if {">=": c * v + k >= 0, ">": c * v + k > 0, "==": c * v + k == 0}[op]]
    c1, c0, m, cc = parts
    f = sympy.floor((c1 * F + c0) / sympy.Integer(m)) + cc
    d = (sympy.Max if which == "max" else sympy.Min)(k2, f) + 1
    settled = facts.settle(d)
    assert all(_at(settled, v) == _at(d, v) for v in ok), (rel, d, settled)
    for probe in (Rel(">=", f, k2), Rel("!=", f, k2), Rel("<", f, k2)):
        if facts.implies(probe):
            want = {">=": int.__ge__, "!=": int.__ne__, "<": int.__lt__}[probe.op]
            assert all(want(_at(f, v), k2) for v in ok), (rel, probe)


def test_a_lower_bound_settles_torchs_truncating_division():
    """``(frames - 1) // 4`` truncates: ``Max(0, floor((frames - 1)/4))``, which ``frames >= 1``
    (a convolution's condition) settles to the floor a convolution computes."""
    facts = Facts()
    d = sympy.Max(0, sympy.floor((F - 1) / 4)) + 1
    assert facts.settle(d) == d               # no bound yet: frames = 0 gives 1, the floor 0
    assert facts.learn(Rel(">=", F, 1))
    assert facts.settle(d) == sympy.floor((F - 1) / 4) + 1
    assert not facts.learn(Rel(">=", F, 0))  # weaker than what is known
    assert facts.implies(Rel(">=", sympy.floor((F - 1) / 2) + 1, 1))
    assert not facts.implies(Rel(">=", F, 2))


def test_unknown_dims_give_no_facts():
    facts = Facts()
    assert not facts.learn(Rel(">=", sympy.Dummy("u", integer=True, nonnegative=True), 1))
    assert not facts.learn(Rel(">=", F * symbol("batch"), 1))     # two dims: a relation, not a set of one
    assert not facts.active
    assert facts.learn(Rel(">=", F * F, 4)) and facts.set_of(F).text("frames") == "frames >= 2"


def test_speech_front_end_is_exact_and_states_one_condition():
    """A dynamo export whose sequence length is computed twice, by two strided convolutions
    and by torch's ``//``: both agree under the convolution's ``frames >= 1``, which is then
    the only condition the model needs."""
    report = check_model(str(ZOO / "speech_dynamo18.onnx"), assume_nonempty=False)
    # torch recorded frames in [8, 4096] (range_constraints): the convolution's frames >= 1 adds nothing
    assert report.assumptions == [] and report.domain.text() == "1 <= batch <= 1024, 8 <= frames <= 4096"
    assert str(report.types["hidden"]) == "float[batch,floor(frames/4-1/4)+1,32]"
    assert report.summary["invalid"] == 0
    # the node table shows the settled dims too, not the Max form the solve gave
    assert not [n.name for n in report.nodes if any("Max" in t for t in n.outputs.values())]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(-4, 4), st.integers(1, 4), st.integers(-5, 5),
       st.sampled_from([">=", ">"]))
def test_a_floor_condition_gives_the_lower_bound_it_states(c, a, b, q, k, op):
    """``c*floor((a*N + b)/q) + k op 0`` holds exactly from the bound on: checked on every value."""
    d = c * sympy.floor((a * F + b) / sympy.Integer(q)) + k
    facts = Facts()
    learned = facts.learn(Rel(op, d, 0))
    holds = [v for v in range(0, 80) if (_at(d, v) >= 0 if op == ">=" else _at(d, v) > 0)]
    if learned:
        bound = facts.set_of(F).lo
        assert holds == [v for v in range(0, 80) if v >= bound], (d, op, bound)
    else:   # nothing new: it holds everywhere (bound <= 0) or never on the range
        assert holds in ([], list(range(0, 80))), (d, op)


def test_a_unet_lists_the_strongest_bound_once():
    """Each pool halves the size: the convolutions need height >= 1, then floor(height/2) >= 1,
    then floor(height/4) >= 1; the last implies the others, which are not listed again."""
    report = check_model(str(ZOO / "unet_ts14.onnx"), assume_nonempty=False)
    # the domain states each dim's set once: the pools' floor(height/4) >= 1 is height >= 4
    assert [r.text for r in report.domain.relations] == ["height >= 4", "width >= 4"]
    assert report.domain.text() == "batch >= 0, height >= 4, width >= 4"


def test_the_end_of_a_pass_settles_each_distinct_type_once_and_keeps_the_rest():
    """``finish.settled_env``: the same mapping as settling every entry, the types that do not change
    kept as they are, and the env itself when none changes."""
    from shapecheck.model.finish import settled_env
    from shapecheck.types import TensorType

    d = sympy.Max(0, sympy.floor((F - 1) / 4)) + 1
    moving, still = TensorType("float", (d, 4)), TensorType("float", (F, 2))
    env = {"a": moving, "b": still, "c": moving}
    facts = Facts()
    assert settled_env(env, facts) is env                      # nothing known: nothing changes
    assert facts.learn(Rel(">=", F, 1))
    got = settled_env(env, facts)
    assert got == {k: facts.settle_type(t) for k, t in env.items()}
    assert got["a"].shape == (sympy.floor((F - 1) / 4) + 1, 4) and got["a"] is got["c"] and got["b"] is still
    assert settled_env({"b": still}, facts) == {"b": still}
