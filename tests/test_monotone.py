"""``dims.monotone``: a dim that only grows (or shrinks) with its symbols is decided at 0.  Every answer
it gives, on random sums of the terms dims are made of, is checked by brute force at every point of a
grid of non-negative sizes (its claim is for every size, so one point against it is a wrong answer),
and so is every answer ``compare_dims`` gives with it."""
from __future__ import annotations

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.dims import monotone, symbol
from shapecheck.notation import compare_dims

H, W = symbol("H"), symbol("W")
GRID = list(itertools.product(range(0, 23), range(0, 9)))
OPS = ["<", "<=", ">", ">=", "==", "!="]
rationals = st.builds(sympy.Rational, st.integers(-9, 9), st.integers(1, 7))
sums = st.lists(st.builds(lambda c, a: c * a, rationals, st.sampled_from([H, W, H * W, H ** 2, 1])),
                min_size=1, max_size=3).map(lambda xs: sympy.Add(*xs))
atoms = st.one_of(
    sums,
    sums.map(sympy.floor), sums.map(sympy.ceiling),
    st.tuples(sums, sums).map(lambda ab: sympy.Min(*ab)), st.tuples(sums, sums).map(lambda ab: sympy.Max(*ab)),
    sums.map(lambda s: sympy.floor(sympy.ceiling(s) / 3)),
)
dims = st.lists(st.builds(lambda c, a: c * a, st.integers(-7, 7), atoms), min_size=1, max_size=3).map(
    lambda xs: sympy.Add(*xs))


def _value(d, h: int, w: int):
    return d.xreplace({H: h, W: w})


@settings(max_examples=500, deadline=None)
@given(dims, st.integers(-9, 9), st.sampled_from(OPS))
def test_every_decision_holds_at_every_size(d, k, op):
    d = d + k
    got = monotone.decide(d, op)
    if got is None:
        return
    rel = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge, "==": sympy.Eq, "!=": sympy.Ne}[op]
    for h, w in GRID:
        assert bool(rel(_value(d, h, w), 0)) is got, (d, op, h, w)


@settings(max_examples=300, deadline=None)
@given(dims)
def test_the_direction_is_the_dims(d):
    way = monotone.direction(d)
    if not way:
        return
    for h, w in GRID:
        here = _value(d, h, w)
        assert (_value(d, h + 1, w) - here) * way >= 0 and (_value(d, h, w + 1) - here) * way >= 0, (d, h, w)


@settings(max_examples=300, deadline=None)
@given(dims, st.integers(-9, 9), st.sampled_from(OPS))
def test_compare_dims_with_it_is_still_right(d, k, op):
    got = compare_dims(d, op, k)
    if got is not True and got is not False:
        return
    rel = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge, "==": sympy.Eq, "!=": sympy.Ne}[op]
    for h, w in GRID:
        assert bool(rel(_value(d, h, w), k)) is got, (d, op, k, h, w)


def test_what_it_decides_that_bounds_did_not():
    # dynamo's torch.roll by 3 on an axis padded to a multiple of 7, H = h + 1 (h >= 0)
    hp = -7 * sympy.floor(-H / 7 - sympy.Rational(1, 7))
    assert compare_dims(hp, ">", 3) is True and compare_dims(hp, ">=", 7) is True
    assert compare_dims(hp, ">", 7) is not True   # 7 at h = 0: open, not decided
    assert monotone.decide(H - W, ">") is None and monotone.decide(sympy.floor(H / 2) * W - 1, ">=") is None
