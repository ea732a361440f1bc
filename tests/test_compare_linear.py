"""``compare``'s fast path for linear dims against brute force: whatever it decides holds.

``_linear`` answers ``k + c1*N + c2*M + ... op 0`` over nonnegative integer dims without
sympy's assumptions.  For random small sums, every answer is checked on every assignment of
the dims in a box: True holds on all, False on none, ``_OPEN`` on some and not on others.
"""
from __future__ import annotations

import itertools
import operator

from hypothesis import given, settings, strategies as st

from shapecheck.notation.compare import _OPEN, _linear, compare_dims
from shapecheck.notation.logic import Cond
from shapecheck.types import symbol

OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
SYMS = [symbol("N"), symbol("M"), symbol("K")]
BOX = range(0, 13)


@settings(max_examples=400, deadline=None)
@given(k=st.integers(-6, 6), coeffs=st.lists(st.integers(-3, 3).filter(bool), min_size=1, max_size=3),
       op=st.sampled_from(sorted(OPS)))
def test_linear_answers_hold_on_every_dim(k, coeffs, op):
    d = k + sum(c * s for c, s in zip(coeffs, SYMS))
    answer = _linear(d, op)
    if answer is None or d.is_Integer:
        return
    n = len(coeffs)
    truths = {OPS[op](k + sum(c * x for c, x in zip(coeffs, xs)), 0) for xs in itertools.product(BOX, repeat=n)}
    if answer is _OPEN:
        assert truths == {True, False}, (d, op)
    else:
        assert truths == {answer}, (d, op, answer)


def test_compare_dims_uses_it_and_keeps_the_condition_readable():
    n, m = symbol("N"), symbol("M")
    assert compare_dims(n + 1, ">", 0) is True
    assert compare_dims(2 * n, "==", 2 * m + 1) is False      # parity: sympy's assumptions leave this open
    c = compare_dims(n, "==", m)
    assert isinstance(c, Cond) and [str(r) for r in c.relations()] == ["N == M"]
