"""``rounding.floor_of``/``ceiling_of`` build the very expression sympy's ``floor``/``ceiling``
build, on random sums of the terms dims are made of (integer and rational multiples of
symbols and their products, floors, ``Min``/``Max``, unknown dims, numbers).  Equal forms
matter: a dim built one way must compare equal to the same dim built the other way."""
from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from shapecheck.dims.rounding import ceiling_of, floor_of
from shapecheck.dims import symbol, unknown_dim

N, M = symbol("N"), symbol("M")
U = unknown_dim("u")
rationals = st.builds(sympy.Rational, st.integers(-9, 9), st.integers(1, 6))
atoms = st.sampled_from([N, M, U, N * M, N ** 2, sympy.floor(N / 2), sympy.Min(N, 4), sympy.Max(M, 1),
                         sympy.ceiling(M / 3)])
terms = st.one_of(rationals, st.builds(lambda c, a: c * a, rationals, atoms))


@settings(max_examples=400, deadline=None)
@given(st.lists(terms, min_size=1, max_size=4), st.one_of(st.integers(1, 5), st.sampled_from([M, M + 1, 2 * N])))
def test_floor_and_ceiling_are_sympys(parts, q):
    x = sympy.Add(*parts) / q
    assert floor_of(x) == sympy.floor(x), x
    assert ceiling_of(x) == sympy.ceiling(x), x


def test_plain_values():
    assert floor_of(sympy.Rational(-7, 2)) == -4 and ceiling_of(sympy.Rational(-7, 2)) == -3
    assert floor_of(N) == N and floor_of(3 * N + 1) == 3 * N + 1
    assert floor_of(7) == 7


K = symbol("K")


@settings(max_examples=300, deadline=None)
@given(st.lists(terms, min_size=1, max_size=4), st.integers(1, 5), st.sampled_from(["floor", "ceiling"]),
       st.permutations([N, M, K]))
def test_renaming_a_dim_with_floors_is_xreplace(parts, q, fn, order):
    # the solve cache renames dims to canonical symbols and back (dims.rebuild); floors are
    # rebuilt by rounding, and the result must be the expression sympy's xreplace gives
    from shapecheck.dims import rebuild
    e = getattr(sympy, fn)(sympy.Add(*parts) / q) + sympy.floor(sympy.Add(*parts) / (q + 1)) * 2
    mapping = dict(zip([N, M, K], order))
    assert rebuild(e, mapping) == e.xreplace(mapping), (e, mapping)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-9, 9), st.sampled_from(["N", "M", "N*M", "1"])), min_size=1, max_size=3),
       st.integers(1, 64), st.integers(-3, 3))
def test_a_parsed_floor_division_is_sympys(terms, q, c):
    # a dim_param torch writes, ``((N - 1)//32) + 1``, is parsed with floor_of: the very floor sympy builds
    from shapecheck.dims import parse_dim
    text = " + ".join(f"({k})*{t}" if k < 0 else f"{k}*{t}" for k, t in terms)
    env = {"N": N, "M": M}
    value = sum(k * sympy.sympify(t, locals=env) for k, t in terms)
    assert parse_dim(f"(({text})//{q}) + {c}") == sympy.floor(value / q) + c


@settings(max_examples=200, deadline=None)
@given(st.integers(-3, 3), st.integers(-9, 9), st.integers(1, 8), st.integers(-4, 4), st.integers(1, 8),
       st.integers(-4, 4), st.integers(1, 5))
def test_a_parsed_nested_floor_division_is_pythons_at_every_size(a, b, m, c, n, d, k):
    # torch writes strided convolutions as ((h - 1)//4 - 1)//2; parsed as the one floor floor_div
    # makes of them, the dim is Python's integer arithmetic at every h, negative ones too
    from shapecheck.dims import parse_dim
    text = f"((({a})*h + ({b}))//{m} + ({c}))//{n}*{k} + ({d})"
    e = sympy.sympify(parse_dim(text))
    h = next(iter(e.free_symbols), None)
    for v in range(0, 70):
        assert (e.subs(h, v) if h is not None else e) == (((a * v + b) // m + c) // n) * k + d, (text, v)
    assert len(e.atoms(sympy.floor)) <= 1 and not any(f.args[0].has(sympy.floor) for f in e.atoms(sympy.floor))


# integer-valued terms a ceiling's numerator is made of (dims, their products, floors of them)
integer_atoms = st.sampled_from([N, M, N * M, sympy.floor(N / 4), sympy.floor(M / 3), sympy.floor((N + M) / 2),
                                 sympy.Min(N, 4), sympy.ceiling(M / 2)])
integer_terms = st.one_of(st.integers(-6, 6).map(sympy.Integer), st.builds(lambda c, a: c * a, st.integers(-3, 3), integer_atoms))


@settings(max_examples=300, deadline=None)
@given(st.lists(integer_terms, min_size=1, max_size=3), st.integers(1, 6), st.integers(1, 3),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=4, max_size=4))
def test_ceilings_as_floors_is_the_same_value_everywhere(parts, k, scale, points):
    # ceiling(p/k) == floor((p + k - 1)/k) for an integer p: brute force at random dims
    from shapecheck.dims.rounding import ceilings_as_floors
    e = scale * sympy.ceiling(sympy.Add(*parts) / k) - sympy.floor(sympy.Add(*parts) / (k + 1))
    got = ceilings_as_floors(e)
    for n, m in points:
        at = {N: n, M: m}
        assert got.xreplace(at) == e.xreplace(at), (e, got, at)


def test_ceilings_as_floors_leaves_a_symbolic_divisor_alone():
    # ceiling(N/M) divides by a dim, not by an integer: left as it is
    from shapecheck.dims.rounding import ceilings_as_floors
    e = sympy.ceiling(N / M) + 1
    assert ceilings_as_floors(e) == e


def test_swins_two_forms_of_one_size_broadcast_to_it():
    # a window padding rounds up, a strided pool a half: ceiling(floor(h/4)/2) is floor(h/8 + 1/2)
    from shapecheck.functions.shape import broadcast
    from shapecheck.notation.compare import compare_dims
    h, w = symbol("height"), symbol("width")
    up = sympy.ceiling(sympy.floor(h / 4) / 2) * sympy.ceiling(sympy.floor(w / 4) / 2)
    half = sympy.floor(h / 8 + sympy.Rational(1, 2)) * sympy.floor(w / 8 + sympy.Rational(1, 2))
    assert compare_dims(up, "==", half) is True
    out = broadcast((2, up, 32), (2, half, 32))
    assert out[1] in (up, half)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([2, 3, 4, 8, 40]), rationals, rationals, st.integers(-2, 2), st.sampled_from(["==", "!=", "<=", ">="]))
def test_a_difference_of_floors_is_decided_only_where_every_size_agrees(q, c1, c2, k, op):
    """``floor(N/q + c1) - floor(N/q + c2) + k op 0``: a comparison decided from the floors' bounds
    (an integer strictly between -1 and 1 is 0: SEW's two spellings of one length) holds or fails
    at every size, brute force."""
    from shapecheck.notation.compare import compare_dims
    d = sympy.floor(N / q + c1) - sympy.floor(N / q + c2) + k
    got = compare_dims(d, op, 0)
    if isinstance(got, bool):
        ops = {"==": lambda v: v == 0, "!=": lambda v: v != 0, "<=": lambda v: v <= 0, ">=": lambda v: v >= 0}
        assert all(ops[op](int(d.subs(N, n))) == got for n in range(0, 6 * q + 3)), (str(d), op, got)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.sampled_from([1, 2, 4, 8]), rationals, st.sampled_from([N, M])),
                min_size=1, max_size=3), st.integers(-2, 2),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=4, max_size=4))
def test_floor_offsets_out_is_the_same_value_everywhere(floors, k, points):
    """``floor(p + c)`` written ``floor(p + c - n) + n`` (``n = floor(c)``): products and sums of such
    floors keep their value at every size, brute force."""
    from shapecheck.dims.rounding import floor_offsets_out
    fs = [floor_of(a * s / q + c) for a, q, c, s in floors]
    e = sympy.expand(sympy.Mul(*fs) + sympy.Add(*fs) + k)
    got = floor_offsets_out(e)
    for n, m in points:
        at = {N: n, M: m}
        assert got.xreplace(at) == e.xreplace(at), (e, got, at)


def test_a_strided_conv_pool_and_upsample_and_the_size_torch_computes_are_one_dim():
    """A dynamo export of Conv(k3, s2, p1), Conv(k3, s2), MaxPool(2), Upsample(x2) and a flatten of the
    map: the map's height is ``2*floor(H/8 - 9/8) + 2``, the flatten's size torch computes from
    ``(H - 1)//8``; the Reshape needs ``(a + 1)*(b + 1) == a*b + a + b + 1`` in two floors of each
    dim a whole number apart, which holds at every size (it was left a condition that printed as
    ``X == X``, every floor shown as a ceiling)."""
    from shapecheck.notation.compare import compare_dims
    h, w = symbol("H"), symbol("W")
    a, b = floor_of(h / 8 - sympy.Rational(9, 8)), floor_of(w / 8 - sympy.Rational(9, 8))
    lhs = sympy.expand(a * b + a + b + 1)
    rhs = floor_of(h / 8 - sympy.Rational(1, 8)) * floor_of(w / 8 - sympy.Rational(1, 8))
    assert compare_dims(lhs, "==", rhs) is True and compare_dims(lhs, "!=", rhs) is False
    assert compare_dims(lhs, "==", rhs + 1) is False


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(1, 3), st.integers(-4, 4), st.sampled_from([1, 2, 3, 4, 8])),
                min_size=1, max_size=3), st.booleans())
def test_halves_split_keeps_the_value_of_every_floor(terms, with_halves):
    """Hermite's floor(2y) = floor(y) + floor(y + 1/2), as ``halves_split`` writes a floor whose half's
    floor stands beside it (a Swin patch merge), brute-forced: the value at every size is kept."""
    from shapecheck.dims.rounding import halves_split
    parts = []
    for c, a, b, q in terms:
        z = (a * N + b) / q
        parts.append(c * floor_of(z))
        if with_halves:
            parts.append(floor_of(z / 2) + M * floor_of(z / 2 + sympy.Rational(1, 2)))
    d = sympy.Add(*parts)
    got = halves_split(d)
    for n in range(0, 60):
        for m in (0, 1, 3):
            assert got.subs({N: n, M: m}) == d.subs({N: n, M: m}), (d, got, n, m)


def test_halves_split_proves_a_swin_merge_equal_to_its_padding():
    from shapecheck.dims.rounding import halves_split
    from shapecheck.notation import compare_dims
    h, w = symbol("H"), symbol("W")
    merged = (floor_of(h / 4) - floor_of(h / 8)) * (floor_of(w / 4) - floor_of(w / 8))
    padded = floor_of(h / 8 + sympy.Rational(1, 2)) * floor_of(w / 8 + sympy.Rational(1, 2))
    assert halves_split(sympy.expand(merged - padded)) == 0
    assert compare_dims(sympy.expand(merged), "==", padded) is True
