"""``compare``'s fast path for polynomial dims against brute force: whatever it decides holds.

``_linear`` answers ``k + c1*m1 + c2*m2 + ... op 0`` (each ``m`` a product of powers of
nonnegative integer dims) without sympy's assumptions.  For random small polynomials, every
answer is checked on every assignment of the dims in a box: True holds on all, False on none,
``_OPEN`` on some and not on others.
"""
from __future__ import annotations

import itertools
import math
import operator

import sympy
from hypothesis import given, settings, strategies as st

from shapecheck.notation.compare import _OPEN, _linear
from shapecheck.notation import compare_dims, Cond
from shapecheck.dims import symbol

OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
SYMS = [symbol("N"), symbol("M"), symbol("K")]
BOX = range(0, 13)
MONOMIALS = st.lists(st.tuples(st.sampled_from(range(3)), st.integers(1, 2)), min_size=1, max_size=2)


def _check(d, op, box=None):
    answer = _linear(d, op)
    if answer is None or d.is_Integer:
        return answer
    syms = sorted(d.free_symbols, key=str)
    box = box or (BOX if all(d.as_poly(*syms).degree(s) <= 1 for s in syms) else range(0, 7))
    # exact integers for the brute force (a positive factor keeps every sign): 2/3 - 1 + 1/3 is not 0 in floats
    scale = math.lcm(*(int(c.q) for c in d.as_coefficients_dict().values()))
    f = sympy.lambdify(syms, sympy.expand(d * scale), "math")
    truths = {OPS[op](f(*xs), 0) for xs in itertools.product(box, repeat=len(syms))}
    if answer is _OPEN:
        assert truths == {True, False}, (d, op)
    else:
        assert truths == {answer}, (d, op, answer)
    return answer


@settings(max_examples=400, deadline=None)
@given(k=st.integers(-6, 6), coeffs=st.lists(st.integers(-3, 3).filter(bool), min_size=1, max_size=3),
       op=st.sampled_from(sorted(OPS)))
def test_linear_answers_hold_on_every_dim(k, coeffs, op):
    _check(k + sum(c * s for c, s in zip(coeffs, SYMS)), op)


@settings(max_examples=300, deadline=None)
@given(k=st.integers(-6, 6), coeffs=st.lists(st.integers(-3, 3).filter(bool), min_size=1, max_size=2),
       dens=st.lists(st.integers(1, 4), min_size=3, max_size=3), op=st.sampled_from(sorted(OPS)))
def test_rational_coefficients_are_scaled_and_hold_on_every_dim(k, coeffs, dens, op):
    """Floor bounds are linear with rational coefficients (``frames/4 + 3/4``); the box is wide
    enough that a relation true only for large dims (``3 - N/4 < 0``) is seen true there."""
    d = sympy.Rational(k, dens[-1]) + sum(sympy.Rational(c, q) * s for c, q, s in zip(coeffs, dens, SYMS))
    _check(d, op, range(0, 50))


@settings(max_examples=300, deadline=None)
@given(k=st.integers(-6, 6), terms=st.lists(st.tuples(st.integers(-3, 3).filter(bool), MONOMIALS), min_size=1,
                                              max_size=3), op=st.sampled_from(sorted(OPS)))
def test_polynomial_answers_hold_on_every_dim(k, terms, op):
    d = k
    for c, factors in terms:
        m = 1
        for i, e in factors:
            m *= SYMS[i] ** e
        d += c * m
    _check(d, op)


def test_products_of_dims_are_decided():
    n, m = symbol("N"), symbol("M")
    assert _linear(n * m + 1, ">") is True and _linear(n * m - n, "==") is _OPEN
    assert _linear(2 * n * m - 2 * n + 1, "==") is False


def test_compare_dims_uses_it_and_keeps_the_condition_readable():
    n, m = symbol("N"), symbol("M")
    assert compare_dims(n + 1, ">", 0) is True
    assert compare_dims(2 * n, "==", 2 * m + 1) is False      # parity: sympy's assumptions leave this open
    c = compare_dims(n, "==", m)
    assert isinstance(c, Cond) and [str(r) for r in c.relations()] == ["N == M"]


@settings(max_examples=200, deadline=None)
@given(x=st.floats(-6, 6, allow_nan=False).map(lambda v: round(v * 2) / 2), k=st.integers(0, 3),
       op=st.sampled_from(sorted(OPS)), flip=st.booleans())
def test_a_float_value_against_a_dim_is_decided_or_a_condition(x, k, op, flip):
    """A float value (a tensor's contents) compared with a symbolic dim: never an error or a
    refutation where some dim makes it true (it was refuted: docs/runtime-findings.md MR6)."""
    from shapecheck.notation.compare_other import compare
    n = symbol("N")
    d = n + k
    got = compare(d, op, x) if flip else compare(x, op, d)
    truths = {OPS[op](v + k, x) if flip else OPS[op](x, v + k) for v in BOX}
    if isinstance(got, Cond):
        assert truths == {True, False}, (x, op, d, flip, got.texts())
        holds = {v for v in BOX if all(bool(r.sympy().subs(n, v)) for r in got.relations())}
        assert holds == {v for v in BOX if (OPS[op](v + k, x) if flip else OPS[op](x, v + k))}, got.texts()
    else:
        assert truths == {got}, (x, op, d, flip, got)


def test_a_dim_against_itself_is_decided_without_arithmetic():
    """The same object on both sides (a symbol, an unknown, a Min, a floor) compares as equal
    numbers do, with no sympy Add built: the first Add imports sympy's tensor module (60 ms)."""
    unknown = sympy.Dummy("u", integer=True, nonnegative=True)
    for d in (symbol("N"), unknown, sympy.Min(symbol("N"), 4), sympy.floor(symbol("N") / 2) + 1):
        for op, fn in OPS.items():
            assert compare_dims(d, op, d) is fn(0, 0), (d, op)


FLOORS = [sympy.floor((SYMS[0] - 1) / 32), sympy.floor(SYMS[1] / 4), sympy.floor((SYMS[0] + 3) / 8), SYMS[2]]


def _holds_everywhere(expr, op, box=range(0, 70)):
    syms = sorted(expr.free_symbols, key=str)
    f = sympy.lambdify(syms, expr, "math")
    return {OPS[op](f(*xs), 0) for xs in itertools.product(box, repeat=len(syms))}


@settings(max_examples=300, deadline=None)
@given(k=st.integers(-40, 40), terms=st.lists(st.tuples(st.integers(-6, 6).filter(bool), st.sampled_from(range(4)),
                                                         st.sampled_from(range(4))), min_size=1, max_size=3),
       op=st.sampled_from(["==", "!="]))
def test_a_constant_off_the_terms_gcd_decides_equality_on_every_dim(k, terms, op):
    """``2*floor((N - 1)/32) + 1 == 0`` is never true (odd): ``compare``'s residue rule, brute force."""
    d = k + sum(c * FLOORS[i] * (FLOORS[j] if j != i else 1) for c, i, j in terms)
    got = compare_dims(d, op, 0)
    if isinstance(got, bool):
        assert _holds_everywhere(sympy.expand(d), op, range(0, 40)) == {got}, (d, op, got)


@settings(max_examples=200, deadline=None)
@given(factors=st.lists(st.tuples(st.integers(1, 4), st.sampled_from(range(4)), st.integers(-1, 4)), min_size=2,
                        max_size=3), op=st.sampled_from([">=", "<", "<=", ">"]), flip=st.booleans())
def test_a_product_of_nonnegative_factors_is_nonnegative_on_every_dim(factors, op, flip):
    """``(2*floor((N - 1)/32) + 2)*(M + 1) >= 0``, compared before it is expanded, brute force."""
    prod = sympy.Mul(*[c * FLOORS[i] + k for c, i, k in factors], evaluate=True)
    got = compare_dims(0, op, prod) if flip else compare_dims(prod, op, 0)
    if isinstance(got, bool):
        assert _holds_everywhere(-prod if flip else prod, op, range(0, 40)) == {got}, (prod, op, flip, got)


FACTORS = st.tuples(st.integers(1, 3), st.integers(-5, 5), st.integers(1, 16), st.integers(-1, 2), st.integers(0, 1))


@settings(max_examples=300, deadline=None)
@given(terms=st.lists(st.tuples(st.integers(-2, 3).filter(bool), st.lists(FACTORS, min_size=1, max_size=2)),
                      min_size=1, max_size=3),
       k=st.integers(-2, 3), op=st.sampled_from((">=", "<", ">", "<=")))
def test_a_sum_of_products_of_floors_has_the_sign_it_is_given(terms, k, op):
    """``compare._product_sign`` on ``c1*f11*f12 + c2*f21 + ... + k`` (each ``f`` a ``floor((a*x + b)/q)
    + c`` over a dim, kept as a product, as a Slice's end over a patch grid and its class token is):
    whatever it decides holds at every size of the dims, brute force."""
    from shapecheck.notation.compare import _product_sign
    xs = SYMS[:2]
    expr = sympy.Integer(k)
    for c, factors in terms:
        term = sympy.Integer(c)
        for a, b, q, add, which in factors:
            term = sympy.Mul(term, sympy.floor((a * xs[which] + b) / sympy.Integer(q)) + add, evaluate=False)
        expr = expr + term
    answer = _product_sign(expr, op, 0)
    if answer is None:
        return
    f = sympy.lambdify(xs, expr, "math")
    truths = {OPS[op](f(x, y), 0) for x in range(0, 40) for y in range(0, 40)}
    assert truths == {answer}, (expr, op, answer)
