"""``notation.probe``: exact evaluation of dims at points, and relations called open only with a
witness each way; ``dims.integral``: integer-valued only where it is.  Checked against sympy's
own evaluation on random dim expressions."""
from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.dims.rounding import integral
from shapecheck.notation.probe import is_open, value
from shapecheck.dims import symbol

N, M = symbol("N"), symbol("M")
rationals = st.builds(sympy.Rational, st.integers(-9, 9), st.integers(1, 4))
atoms = st.sampled_from([N, M, N * M, N ** 2, sympy.floor((N - 1) / 4), sympy.Min(N, 4), sympy.Max(M, 1),
                         sympy.ceiling(M / 3), sympy.floor(N / 2) * sympy.floor(M / 2)])
exprs = st.lists(st.builds(lambda c, a: c * a, rationals, atoms), min_size=1, max_size=3).map(lambda ts: sympy.Add(*ts))
OPS = {"==": lambda v: v == 0, "!=": lambda v: v != 0, "<": lambda v: v < 0, "<=": lambda v: v <= 0,
       ">": lambda v: v > 0, ">=": lambda v: v >= 0}


@settings(max_examples=200, deadline=None)
@given(exprs, st.integers(0, 40), st.integers(0, 40))
def test_value_is_sympys_value(e, n, m):
    assert value(e, {N: n, M: m}) == e.subs({N: n, M: m}), e


@settings(max_examples=100, deadline=None)
@given(exprs, st.sampled_from(sorted(OPS)))
def test_open_only_with_a_witness_each_way(e, op):
    if is_open(e, op):
        grid = (0, 1, 2, 3, 4, 5, 7, 16, 64)   # the probe points among others: a witness is seen again
        seen = {bool(OPS[op](e.subs({N: n, M: m}))) for n in grid for m in grid}
        if len(seen) == 1 and op in ("==", "!="):
            # a dim standing alone is solved for (N == 9*Max(1, M) at N = 9): its witness may be off the
            # grid, anywhere up to a coefficient times the other dim's largest probe value
            wide = [(n, m) for n in range(700) for m in grid] + [(n, m) for n in grid for m in range(700)]
            seen |= {bool(OPS[op](value(e, {N: n, M: m}))) for n, m in wide}
        assert seen == {True, False}, (e, op)


@settings(max_examples=100, deadline=None)
@given(exprs)
def test_integral_only_where_every_value_is_an_integer(e):
    if integral(e):
        assert all(e.subs({N: n, M: m}).is_Integer for n in range(0, 6) for m in range(0, 6)), e


rels = st.builds(lambda op, a, b: (op, a, b), st.sampled_from(["==", "!="]),
                 st.sampled_from([N, M, N * M, 2 * N, N + M, sympy.Integer(0), sympy.Integer(1)]),
                 st.sampled_from([N, M, N * M, 4 * N, sympy.Integer(0), sympy.Integer(2)]))


@settings(max_examples=200, deadline=None)
@given(st.lists(rels, min_size=2, max_size=3))
def test_a_disjunction_called_always_true_holds_everywhere(parts):
    """``disjunction.always`` (``batch != 0 or batch == batch*seq``) on random disjunctions."""
    from shapecheck.notation.relations import always
    from shapecheck.notation import Rel
    rs = tuple(Rel(op, a, b) for op, a, b in parts)
    if always(rs):
        for n in range(0, 6):
            for m in range(0, 6):
                vals = [(sympy.sympify(a) - sympy.sympify(b)).subs({N: n, M: m}) for _op, a, b in parts]
                assert any((v == 0) == (op == "==") for (op, _a, _b), v in zip(parts, vals)), (parts, n, m)
