"""The light check's dim algebra (``shapecheck/dims/light.py``) against sympy's, on random expressions.

Each expression is built twice, once over ``Name``s and once over the sympy symbols a full check
uses.  The light one either stops (``NeedsAlgebra``) or is sympy's: the same expression, the same
text, the same kind of object (an int where sympy has a number, a ``Name`` where it has a symbol),
equal and hashing alike where sympy's are equal, and the same answer to the questions a check asks
of it (its free names, a renaming)."""
from __future__ import annotations

import operator
import pickle

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from shapecheck.dims import normalize_dim, symbol
from shapecheck.dims.light import Name, NeedsAlgebra, Poly, quotient
from shapecheck.functions.elementwise import elementwise
from shapecheck.notation import compare_dims

NAMES = ("N", "M", "a", "B", "a_b")   # upper before lower and a prefix of another: sympy's order is by the text


def as_sympy(x):
    """The full check's value of a light one (a Poly through its terms, not through its text)."""
    if type(x) is Name:
        return symbol(x.name)
    if type(x) is Poly:
        return sympy.Add(*[c * sympy.Mul(*[symbol(s) ** p for s, p in mono]) for mono, c in x.terms.items()])
    return sympy.Integer(x)


_PY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
       "**": operator.pow, "neg": lambda a, _b: -a}


def _apply(op, a, b):
    return _PY[op](a, b)


def _full(op, a, b):
    """The same operation as a full check's dims do it (``//`` as ``dims.parse_dim`` builds it)."""
    if op == "//":
        return sympy.floor(a / b)
    if op == "%":
        return sympy.Mod(a, b)
    return _apply(op, a, b)


leaves = st.one_of(st.sampled_from(NAMES).map(lambda s: (Name(s), symbol(s))),
                   st.integers(-4, 6).map(lambda k: (k, sympy.Integer(k))))


@st.composite
def expressions(draw, depth: int = 4):
    """(light value or None where it stopped, sympy value)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(leaves)
    op = draw(st.sampled_from(["+", "-", "*", "*", "//", "%", "**", "neg"]))
    la, fa = draw(expressions(depth - 1))
    if op in ("//", "%", "**"):
        k = draw(st.integers(1, 4) if op != "**" else st.integers(0, 3))
        lb, fb = k, sympy.Integer(k)
    else:
        lb, fb = draw(expressions(depth - 1))
    full = _full(op, fa, fb)
    if la is None or lb is None:
        return None, full
    try:
        return _apply(op, la, lb), full
    except NeedsAlgebra:
        return None, full


@settings(max_examples=1500, deadline=None)
@given(expressions())
def test_a_light_expression_is_sympy_s_or_stops(pair):
    light, full = pair
    if light is None:
        return
    assert as_sympy(light) == full, (light, full)
    assert str(light) == sympy.sstr(full), (light, full)
    assert type(light) is (int if full.is_Integer else Name if full.is_Symbol else Poly)
    assert light.free_symbols == {Name(s.name) for s in full.free_symbols} if type(light) is not int else True


@settings(max_examples=600, deadline=None)
@given(expressions(), expressions())
def test_light_expressions_are_equal_and_hash_alike_where_sympy_s_are(x, y):
    (lx, fx), (ly, fy) = x, y
    if lx is None or ly is None:
        return
    assert (lx == ly) == (fx == fy) and (lx != ly) == (fx != fy)
    if lx == ly:
        assert hash(lx) == hash(ly)


@settings(max_examples=600, deadline=None)
@given(expressions(), st.dictionaries(st.sampled_from(NAMES), st.one_of(st.sampled_from(NAMES).map(Name),
                                                                        st.integers(0, 5))))
def test_a_renaming_is_sympy_s_xreplace(pair, mapping):
    light, full = pair
    if light is None or type(light) is int:
        return
    renamed = {Name(k): v for k, v in mapping.items()}
    try:
        got = light.xreplace(renamed)
    except NeedsAlgebra:
        return
    want = full.xreplace({symbol(k): symbol(v.name) if type(v) is Name else v for k, v in mapping.items()})
    assert as_sympy(got) == want and str(got) == sympy.sstr(want)


def test_what_sympy_leaves_unexpanded_needs_algebra():
    n, m = Name("N"), Name("M")
    for use in (lambda: n * (m + 1), lambda: (n + 1) * (m + 1), lambda: (n + 1) ** 2, lambda: (2 * n + 1) // 2,
                lambda: n // m, lambda: n % 0, lambda: n < m, lambda: n + 0.5, lambda: int(n + 1), lambda: (n - 1).is_nonnegative,
                lambda: (n + 1).is_Add, lambda: (n * m).args, lambda: (n + 1)._sympy_()):
        with pytest.raises(NeedsAlgebra):
            use()
    assert (n * m + 1).is_nonnegative and (n + 1).is_integer and not (n + 1).is_Symbol


def test_a_poly_pickles_as_itself():
    p = 2 * Name("N") * Name("M") - 1
    assert pickle.loads(pickle.dumps(p)) == p and str(pickle.loads(pickle.dumps(p))) == "2*M*N - 1"


@settings(max_examples=800, deadline=None)
@given(expressions(3), st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), expressions(3))
def test_a_light_comparison_is_the_full_check_s_or_stops(x, op, y):
    (lx, fx), (ly, fy) = x, y
    if lx is None or ly is None:
        return
    try:
        got = compare_dims(lx, op, ly)
    except NeedsAlgebra:
        return
    want = compare_dims(normalize_dim(fx), op, normalize_dim(fy))
    assert str(got) == str(want), (lx, op, ly)


@settings(max_examples=600, deadline=None)
@given(expressions(3), expressions(2))
def test_a_light_quotient_is_sympy_s_cancelled_quotient_or_stops(x, y):
    (lx, fx), (ly, fy) = x, y
    if lx is None or ly is None:
        return
    try:
        got = quotient(lx, ly)
    except NeedsAlgebra:
        return
    want = sympy.expand(sympy.cancel(fx / fy))
    assert as_sympy(got) == want and str(got) == sympy.sstr(want), (lx, ly)


@settings(max_examples=600, deadline=None)
@given(expressions(3), expressions(3), st.sampled_from(["min", "max", "==", "!=", "<", "<=", ">", ">="]))
def test_light_min_max_and_comparisons_of_values_are_the_full_check_s_or_stop(x, y, op):
    (lx, fx), (ly, fy) = x, y
    if lx is None or ly is None or (type(lx) is int and type(ly) is int):
        return
    try:
        got = elementwise(op, lx, ly)
    except NeedsAlgebra:
        return
    want = elementwise(op, normalize_dim(fx), normalize_dim(fy))
    assert type(got) is not bool or type(want) is bool, (lx, op, ly, want)   # a fresh truth where sympy decides not
    assert str(got) == str(want), (lx, op, ly)


@settings(max_examples=600, deadline=None)
@given(expressions(3))
def test_a_light_sign_is_what_a_slice_reads_of_sympy_s(pair):
    from shapecheck.functions.slicing import _sign
    light, full = pair
    if light is None or type(light) is int:
        return
    try:
        got = _sign(light)
    except NeedsAlgebra:
        return
    assert got == _sign(normalize_dim(full)), light


@settings(max_examples=600, deadline=None)
@given(expressions(3), st.sampled_from(["==", "!=", "<", ">="]), expressions(3), st.sampled_from(NAMES),
       st.integers(0, 4))
def test_a_light_relation_is_solved_and_evaluated_as_the_full_one(x, op, y, s, v):
    from shapecheck.notation.relations import Rel, _false_at, _holds, _solutions
    (lx, fx), (ly, fy) = x, y
    if lx is None or ly is None:
        return
    light, full = Rel(op, lx, ly), Rel(op, normalize_dim(fx), normalize_dim(fy))
    for ask in (lambda r, sym: _solutions(r, sym), lambda r, sym: _holds(r, sym, v), lambda r, sym: _false_at(r, sym, v)):
        try:
            got = ask(light, Name(s))
        except NeedsAlgebra:
            continue
        assert got == ask(full, symbol(s)), (light, s, v)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(expressions(2), expressions(2)), min_size=2, max_size=3))
def test_light_bounds_of_a_concat_are_the_full_check_s_or_stop(parts):
    from shapecheck.functions.bounds import hull
    if any(lo is None or hi is None for (lo, _f), (hi, _g) in parts):
        return
    try:
        got = hull(*[(lo, hi, True) for (lo, _f), (hi, _g) in parts])
    except NeedsAlgebra:
        return
    want = hull(*[(normalize_dim(f), normalize_dim(g), True) for (_lo, f), (_hi, g) in parts])
    assert str(got) == str(want), parts
