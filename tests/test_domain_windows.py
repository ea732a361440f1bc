"""Conditions over several dims that say one thing per dim: each rule against brute force.

Swin's attention windows need ``16*ceiling(a/4)*ceiling(b/4) == a*b`` (a map padded to whole
windows, flattened, and reshaped back): that is ``a % 4 == 0 and b % 4 == 0`` where ``a, b >= 1``
(``reduce._whole_windows``); a product of factors none of which can be 0 is never 0 (each factor
apart); a sum of floors and ceilings that never decreases is least where its dims are
(``settle.rising``); and the domain takes the one-dim parts such rules leave into each dim's set
(``narrow.narrowed``).  Each is checked value by value on random expressions.
"""
from __future__ import annotations

import sympy
from hypothesis import HealthCheck, given, settings, strategies as st

from shapecheck.dims import symbol
from shapecheck.domain.build import Need, build_domain
from shapecheck.domain.evaluate import holds
from shapecheck.domain.intset import DimSet
from shapecheck.domain.reduce import reduce_relation
from shapecheck.domain.settle import always_ge, rising
from shapecheck.notation import AnyOf, Rel

H, W = symbol("h"), symbol("w")
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def _inner(draw, s):
    """An integer-valued size of one dim, at least 0 where the dim is: a stride's floor or the dim."""
    m = draw(st.sampled_from([1, 1, 2, 4]))
    return s if m == 1 else sympy.floor((s + draw(st.integers(0, m - 1))) / m)


def _padded(draw, x, k):
    """``ceiling(x/k)`` as sympy writes it either way: ``ceiling(x/k)`` or ``-floor(-x/k)``."""
    return sympy.ceiling(x / k) if draw(st.booleans()) else -sympy.floor(-x / k)


@st.composite
def window_relations(draw):
    k1, k2 = draw(st.sampled_from([2, 3, 4])), draw(st.sampled_from([2, 4]))
    x1, x2 = _inner(draw, H), _inner(draw, W)
    coeff = k1 * k2 + draw(st.sampled_from([0, 0, 0, 1, -1]))   # sometimes not the windows' product
    padded = coeff * _padded(draw, x1, k1) * _padded(draw, x2, k2)
    whole = x1 * x2 if draw(st.integers(0, 4)) else x1 * (x2 + 1)   # sometimes not the sizes' product
    sides = (padded, whole) if draw(st.booleans()) else (whole, padded)
    return Rel(draw(st.sampled_from(["==", "==", "!="])), *sides)


@st.composite
def products(draw):
    """A number times two or three factors of the kinds exports multiply (a dim, its floor or ceiling,
    a shifted dim that may be 0 or negative)."""
    def factor():
        s = draw(st.sampled_from([H, W]))
        return draw(st.sampled_from([s, s - 3, sympy.floor(s / 4), -sympy.floor(-sympy.floor(s / 4) / 4),
                                     sympy.ceiling(s / 2), sympy.floor(-s / 2)]))
    n = draw(st.integers(2, 3))
    prod = draw(st.sampled_from([1, 2, -3])) * sympy.Mul(*[factor() for _ in range(n)])
    return Rel(draw(st.sampled_from(["==", "!=", ">=", ">", "<=", "<"])), prod, 0)


def _bounds(lo: int, hi: int | None) -> dict:
    return {H: (lo, hi, 1), W: (lo, hi, 1)}


def _equivalent(rel, got, lo: int, hi: int | None) -> None:
    f = holds(rel, (H, W))
    top = hi if hi is not None else lo + 21
    for h in range(lo, top + 1):
        for w in range(lo, top + 1):
            want = bool(f((h, w)))
            have = got if isinstance(got, bool) else bool(holds(got, (H, W))((h, w)))
            assert want == have, (str(rel), str(got), lo, hi, h, w)


@SETTINGS
@given(window_relations(), st.sampled_from([0, 1, 4, 8, 9]), st.sampled_from([None, None, 30]))
def test_whole_windows_are_reduced_to_exactly_the_sizes_that_meet_them(rel, lo, hi):
    _equivalent(rel, reduce_relation(rel, _bounds(lo, hi)), lo, hi)


def test_the_window_rule_says_one_multiple_per_dim():
    a, b = sympy.floor(H / 4), sympy.floor(W / 4)
    rel = Rel("==", 16 * sympy.floor(-a / 4) * sympy.floor(-b / 4), a * b)
    got = reduce_relation(rel, _bounds(8, None))
    assert isinstance(got, AnyOf) and len(got.alts) == 1 and [r.free_symbols for r in got.alts[0]] == [{H}, {W}]
    # where a size may be 0, both sides are 0 there: the rule says so as an alternative
    maybe_empty = reduce_relation(rel, _bounds(0, None))
    assert isinstance(maybe_empty, AnyOf) and len(maybe_empty.alts) == 3


@SETTINGS
@given(products(), st.sampled_from([0, 1, 4, 8]), st.sampled_from([None, None, 25]))
def test_products_are_reduced_to_exactly_the_sizes_that_meet_them(rel, lo, hi):
    _equivalent(rel, reduce_relation(rel, _bounds(lo, hi)), lo, hi)


def test_a_product_of_factors_never_zero_is_never_zero():
    c = -sympy.floor(-sympy.floor(H / 4) / 4)   # ceiling(floor(h/4)/4): at least 1 where h >= 4
    assert reduce_relation(Rel("!=", symbol("b") * c * c.subs(H, W), 0),
                           {**_bounds(8, None), symbol("b"): (1, None, 1)}) is True


@st.composite
def monotone(draw, depth: int = 0):
    """Sums of floors and ceilings of dims, each scaled by a number of either sign."""
    kind = draw(st.integers(0, 4)) if depth < 3 else 0
    if kind == 0:
        return draw(st.sampled_from([H, W, H + W, sympy.Integer(draw(st.integers(-5, 5)))]))
    if kind == 1:
        return sympy.floor((draw(monotone(depth + 1)) + draw(st.integers(-3, 3))) / draw(st.sampled_from([2, 4, 8])))
    if kind == 2:
        return sympy.ceiling(draw(monotone(depth + 1)) / draw(st.sampled_from([2, 3])))
    if kind == 3:
        return draw(st.sampled_from([-1, 2, 3])) * draw(monotone(depth + 1))
    return draw(monotone(depth + 1)) + draw(monotone(depth + 1))


@SETTINGS
@given(monotone(), st.integers(-6, 6), st.sampled_from([0, 1, 5]))
def test_rising_sizes_never_fall_and_their_least_value_decides(e, c, lo):
    f = holds(Rel(">=", e, c), (H, W))
    value = lambda h, w: e.subs({H: h, W: w})   # noqa: E731
    if rising(e):
        for v in range(lo, lo + 30):
            assert value(v + 1, v) >= value(v, v) and value(v, v + 1) >= value(v, v), (str(e), v)
    if always_ge(e - c, _bounds(lo, None)):
        assert all(f((h, w)) for h in range(lo, lo + 25) for w in range(lo, lo + 25)), (str(e), c, lo)


def test_the_domain_takes_what_swins_windows_need_into_each_dims_set():
    """The conditions a Swin export's nodes need, as its check states them: the domain is one set per
    dim, exactly where every condition holds (brute force over a window of sizes)."""
    b = symbol("batch")
    a8 = lambda s: sympy.floor(s / 8 + sympy.Rational(1, 2))   # noqa: E731 - ceiling(floor(s/4)/2)
    rels = [Rel("==", sympy.floor(s / 4), 2 * sympy.floor(s / 8)) for s in (H, W)] + \
           [Rel(">=", s, 8) for s in (H, W)] + \
           [Rel("!=", b * sympy.floor(-sympy.floor(H / 4) / 4) * sympy.floor(-sympy.floor(W / 4) / 4), 0),
            Rel("==", 16 * sympy.floor(-sympy.floor(H / 4) / 4) * sympy.floor(-sympy.floor(W / 4) / 4),
                sympy.floor(H / 4) * sympy.floor(W / 4)),
            Rel("!=", sympy.floor(-a8(H) / 4) * sympy.floor(-a8(W) / 4), 0),
            Rel("==", 16 * sympy.floor(-a8(H) / 4) * sympy.floor(-a8(W) / 4), a8(H) * a8(W))]
    d = build_domain([Need(str(r), r, []) for r in rels], {s: DimSet.interval(1, None) for s in (b, H, W)})
    assert all(len(r.dims) == 1 for r in d.relations), [r.text for r in d.relations]
    fs = [holds(r, (b, H, W)) for r in rels]
    for h in range(1, 72):
        for w in (1, 8, 32, 33, 35, 36, 64, 67, 68):
            assert d.admits({"batch": 1, "h": h, "w": w}) == all(f((1, h, w)) for f in fs), (h, w, d.text())


def test_a_relation_several_nodes_need_is_stated_once_with_every_node():
    """LeViT's attention biases and reshapes each need ``ceiling(h/16)*ceiling(w/16) == 16``, and a
    broadcast beside them ``... == 16 or ... == 1``: one relation (a pin), all nodes behind it, and
    no alternative that the relation already implies."""
    from shapecheck.domain.relation import Source
    x = sympy.ceiling(H / 16) * sympy.ceiling(W / 16)
    pin = Rel("==", x, 16)
    needs = [Need(str(pin), pin, [Source(f"/Reshape_{k}", "Reshape", "Reshape-14", ("C3",))]) for k in range(3)]
    needs.append(Need("broadcast", AnyOf(((Rel("==", x, 16),), (Rel("==", x, 1),))),
                      [Source("/Add", "Add", "Add-14", ("C3",))]))
    d = build_domain(needs, {s: DimSet.interval(1, None) for s in (H, W)})
    several = [r for r in d.relations if len(r.dims) > 1]
    assert [r.text for r in several] == ["ceiling(h/16)*ceiling(w/16) == 16"]
    assert [s.node for s in several[0].sources] == ["/Reshape_0", "/Reshape_1", "/Reshape_2"]
    assert d.text() == "h >= 1, w >= 1, ceiling(h/16)*ceiling(w/16) == 16"
    # without the pin, the broadcast's alternatives are the condition
    alone = build_domain(needs[3:], {s: DimSet.interval(1, None) for s in (H, W)})
    assert [r.text for r in alone.relations if len(r.dims) > 1] == \
        ["ceiling(h/16)*ceiling(w/16) == 16 or ceiling(h/16)*ceiling(w/16) == 1"]


def test_a_condition_only_a_branch_needs_implies_nothing_of_the_others():
    x = H * W
    always = Need("always", AnyOf(((Rel("==", x, 16),), (Rel("==", x, 1),))), [])
    scoped = Need("branch", Rel("==", x, 16), [])
    d = build_domain([always], {s: DimSet.interval(1, None) for s in (H, W)}, scoped=[scoped])
    assert sorted(r.text for r in d.relations if len(r.dims) > 1) == ["h*w == 16", "h*w == 16 or h*w == 1"]


@SETTINGS
@given(st.integers(-2, 3), st.integers(-2, 3), st.integers(1, 40), st.integers(-3, 3), st.integers(-3, 3),
       st.integers(1, 3), st.booleans())
def test_a_product_rewritten_by_an_equality_is_the_same_size_wherever_the_equality_holds(a, b, c, p, q, r, floors):
    """``(x + a)*(y + b) == c`` kept as a rewrite of ``x*y`` (``domain.rewrite``): a dim that multiplies
    ``x*y`` by anything is, rewritten, the same number at every size where the equality holds."""
    from shapecheck.domain.rewrite import product_rule, rewritten
    x, y = (sympy.floor(H / 4), sympy.floor(W / 4)) if floors else (H, W)
    rule = product_rule(Rel("==", (x + a) * (y + b), c))
    assert rule is not None
    batch = symbol("batch")
    dims = [batch * (x + a) * (y + b) * p + q * x, r * x * y * (x + 1) + q, (x * y + p) * batch + r * y]
    # the sizes where the equality holds, found once (small integers: exact in floats)
    lhs = sympy.lambdify((H, W), (x + a) * (y + b), "math")
    where = [{H: h, W: w, batch: 3} for h in range(0, 40) for w in range(0, 40) if lhs(h, w) == c]
    for d in dims:
        got = sympy.sympify(rewritten(d, [rule]))
        for at in where:
            assert int(got.xreplace(at)) == int(d.xreplace(at)), (str(d), str(got), at)


@st.composite
def expanded_products(draw):
    """A product of dims and their floors, shifted, expanded into a sum (``batch*P - P``, a broadcast
    of ``batch*P`` against ``P``), compared with 0."""
    def factor():
        s = draw(st.sampled_from([H, W, sympy.floor(H / 4), sympy.floor(W / 8)]))
        return s + draw(st.integers(-3, 2))
    prod = sympy.expand(draw(st.sampled_from([1, 2, -1])) * factor() * factor())
    return Rel(draw(st.sampled_from(["==", "!=", ">=", "<"])), prod, 0)


@SETTINGS
@given(expanded_products(), st.sampled_from([0, 1, 4, 9]), st.sampled_from([None, 30]))
def test_expanded_products_are_reduced_to_exactly_the_sizes_that_meet_them(rel, lo, hi):
    _equivalent(rel, reduce_relation(rel, _bounds(lo, hi)), lo, hi)


def test_a_broadcast_of_batch_times_a_grid_against_the_grid_needs_batch_one():
    """A dynamo Segformer export broadcasts ``batch*P`` (a Reshape to ``[1, 2, -1, 16]``) against ``P``."""
    b = symbol("batch")
    p = (sympy.floor(H / 8 - sympy.Rational(1, 8)) + 1) * (sympy.floor(W / 8 - sympy.Rational(1, 8)) + 1)
    got = reduce_relation(Rel("==", sympy.expand(b * p), p), {**_bounds(9, None), b: (1, None, 1)})
    assert str(got) == "batch == 1"
