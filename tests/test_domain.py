"""The input domain's algebra against brute force over small integers.

Every rewrite the domain makes is an identity on the values it allows, or a set of values that
is exactly right; each is checked here on random expressions of the kinds exports compute
(sums, ``Min``/``Max``, floors and ceilings of one dim), value by value:

* ``truth_set``: the proved set of values at which a condition holds, at every value of a window
  and at a few far ones (also for relations it solves class by class, without sampling);
* ``settle_dim``: a dim simplified under bounds, equal to the dim at every allowed value;
* ``ceilings``: ``floor`` read as ``ceiling``, equal everywhere;
* ``DimSet``: intersections and unions of progressions, as sets.
"""
from __future__ import annotations

import sympy
from hypothesis import HealthCheck, given, settings, strategies as st

from shapecheck.dims import symbol
from shapecheck.domain.build import Need, build_domain
from shapecheck.domain.evaluate import compile_dim, holds
from shapecheck.domain.intset import DimSet, union
from shapecheck.domain.reduce import reduce_relation
from shapecheck.domain.settle import ceilings, settle_dim
from shapecheck.domain.single import truth_set
from shapecheck.notation import AnyOf, Cond, Rel

S = symbol("s")
FAR = (10 ** 6, 10 ** 6 + 1, 10 ** 6 + 2, 2 ** 40 + 3)
OPS = ("==", "!=", "<=", "<", ">=", ">")
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@st.composite
def dims(draw, depth: int = 0):
    kind = draw(st.integers(0, 9)) if depth < 3 else 0
    if kind <= 2:
        return draw(st.sampled_from([S, S, S + draw(st.integers(-5, 5)), sympy.Integer(draw(st.integers(0, 70))),
                                     draw(st.integers(1, 3)) * S]))
    if kind <= 4:
        return sympy.floor((draw(dims(depth + 1)) + draw(st.integers(-3, 3))) / draw(st.sampled_from([2, 3, 4, 8])))
    if kind == 5:
        return sympy.ceiling(draw(dims(depth + 1)) / draw(st.sampled_from([2, 4])))
    if kind == 6:
        return sympy.Min(draw(dims(depth + 1)), draw(dims(depth + 1)))
    if kind == 7:
        return sympy.Max(draw(dims(depth + 1)), draw(dims(depth + 1)))
    return draw(dims(depth + 1)) + draw(dims(depth + 1))


@st.composite
def conditions(draw):
    rel = Rel(draw(st.sampled_from(OPS)), draw(dims()), draw(dims()))
    if draw(st.booleans()):
        rel = AnyOf(((rel,), (Rel(draw(st.sampled_from(OPS)), draw(dims()), draw(dims())),)))
    return rel


@SETTINGS
@given(conditions(), st.sampled_from([0, 1, 1, 4]), st.sampled_from([None, None, 100, 5000]))
def test_truth_set_is_exactly_where_the_condition_holds(cond, lo, hi):
    got = truth_set(cond, S, lo, hi)
    if got is None:
        return          # not proved: nothing is claimed
    f = holds(cond, (S,))
    top = hi if hi is not None else lo + 400
    for x in list(range(lo, min(top, lo + 400) + 1)) + ([*FAR] if hi is None else [hi]):
        assert (x in got) == bool(f((x,))), (cond, lo, hi, x, got)


@st.composite
def class_linear(draw):
    """A relation whose sides rise linearly along each residue class of their floors' period
    (``2*floor((s - 1)/32) + 2 >= 1``): solved class by class, never sampled."""
    def side():
        q = draw(st.sampled_from([2, 4, 8, 16, 32]))
        inner = sympy.floor((draw(st.integers(1, 3)) * S + draw(st.integers(-40, 40))) / q)
        return draw(st.integers(-4, 4)) * inner + draw(st.integers(-2, 2)) * S + draw(st.integers(-60, 60))
    return Rel(draw(st.sampled_from(OPS)), side(), side() if draw(st.booleans()) else draw(st.integers(-5, 90)))


@SETTINGS
@given(class_linear(), st.sampled_from([0, 1, 17]), st.sampled_from([None, None, 70, 1000]))
def test_truth_set_solved_class_by_class_is_exact(cond, lo, hi):
    got = truth_set(cond, S, lo, hi)
    assert got is not None or cond.op == "!=", cond   # only != along a rising class is left to sampling
    if got is None:
        return
    f = holds(cond, (S,))
    top = hi if hi is not None else lo + 600
    for x in list(range(lo, top + 1)) + ([*FAR] if hi is None else []):
        assert (x in got) == bool(f((x,))), (cond, lo, hi, x, got)


def test_truth_sets_of_the_conditions_exports_make():
    seq, h = symbol("seq"), symbol("h")
    m = sympy.Min(512, seq)
    assert truth_set(AnyOf(((Rel("==", m, seq),), (Rel("==", m, 1),))), seq, 1).text("seq") == "1 <= seq <= 512"
    concat = Rel("==", sympy.floor((h - 1) / 2), 2 * sympy.floor((h - 1) / 4) + 1)   # a UNet's two skips
    assert truth_set(concat, h, 1).text("h") == "ceil(h/2) % 2 == 0 and h >= 3"     # h % 4 in {3, 0}
    outer = Rel("==", h, 4 * sympy.floor((h - 1) / 4) + 4)
    assert truth_set(outer, h, 1).text("h") == "h % 4 == 0 and h >= 4"
    assert truth_set(Rel("==", h, sympy.floor(h / 2)), h, 1).empty        # no input meets it
    assert truth_set(Rel("==", seq, 32), seq, 1).text("seq") == "seq == 32"
    assert truth_set(AnyOf(((Rel("==", seq, 16),), (Rel("==", seq, 1),))), seq, 1).text("seq") == "seq in {1, 16}"


@SETTINGS
@given(dims(), st.sampled_from([0, 1, 2, 5]), st.sampled_from([None, None, 40, 600, 0, 1, 3]), st.sampled_from([1, 1, 2, 4]))
def test_settled_dims_equal_the_dim_at_every_allowed_value(d, lo, hi, step):
    if hi is not None and hi < 10:
        hi = lo + hi           # a single value, or a few: every Min/Max is decided, some by a tie
    got = settle_dim(d, {S: (lo, hi, step)})
    f, g = compile_dim(d, (S,)), compile_dim(got, (S,))
    top = hi if hi is not None else lo + 300
    for x in [*range(lo, top + 1, step), *(lo + step * k for k in (10 ** 5, 10 ** 6 + 1))][:400]:
        if hi is None or x <= hi:
            assert f((x,)) == g((x,)), (d, got, lo, hi, step, x)


@SETTINGS
@given(dims())
def test_ceilings_are_the_floors_they_replace(d):
    f, g = compile_dim(d, (S,)), compile_dim(ceilings(d), (S,))
    assert all(f((x,)) == g((x,)) for x in range(0, 200))


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 40), st.one_of(st.none(), st.integers(0, 80)), st.integers(1, 6)),
                min_size=1, max_size=4),
       st.tuples(st.integers(0, 40), st.one_of(st.none(), st.integers(0, 80)), st.integers(1, 6)))
def test_sets_of_progressions_are_the_sets_they_name(pieces, other):
    def members(ps):
        return {x for s, e, t in ps for x in range(s, (e if e is not None else 200) + 1, t)}
    u = union(list(pieces))
    want = members(pieces)
    assert {x for x in range(0, 201) if x in u} == {x for x in want if x <= 200}
    # its least and greatest values (interleaved progressions end out of the order of their starts)
    unbounded = any(e is None and s_ <= 200 for s_, e, _t in pieces if e is None or s_ <= e)
    assert (u.lo, u.hi) == ((min(want), None if unbounded else max(want)) if want else (None, None)), pieces
    o = DimSet.progression(*other)
    assert {x for x in range(0, 201) if x in u.meet(o)} == {x for x in want if x <= 200 and x in o}


PIECE = st.tuples(st.integers(0, 40), st.one_of(st.none(), st.integers(0, 80)), st.integers(1, 6))


@SETTINGS
@given(st.lists(PIECE, min_size=1, max_size=6), st.lists(PIECE, min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=12))
def test_the_meet_of_two_sets_is_their_intersection(a, b, runs):
    """Brute force on [0, 200]: meet is the intersection, by the sweep (sets whose pieces follow one
    another: a bounded residue class, runs of points) and by every pair (interleaved progressions)."""
    def members(u):
        return {x for x in range(0, 201) if x in u}
    apart, at = [], 0
    for gap, length in runs:                        # pieces whose ranges follow one another
        apart.append((at + gap, at + gap + length, 1))
        at += gap + length + 1
    for x, y in ((union(a), union(b)), (union(apart), union(b)), (union(a), union(apart)),
                 (union(apart), union(apart[::2]))):
        assert members(x.meet(y)) == members(x) & members(y)


B = symbol("b")


@st.composite
def two_dim_relations(draw):
    def term():
        return draw(st.sampled_from([B, S, B * S, B + S, 2 * B, sympy.Integer(draw(st.integers(0, 20)))]))
    return Rel(draw(st.sampled_from(OPS)), term() * draw(st.integers(1, 3)), term() * draw(st.integers(1, 3)))


@st.composite
def scaled_relations(draw):
    """``g*(t1 + t2) + c1 op c2``: integer multiples of integer-valued terms (``_integral``'s rounding)."""
    def term():
        return draw(st.sampled_from([B, S, B * S, sympy.ceiling(B / 2) * sympy.ceiling(S / 2),
                                     sympy.floor((B + 1) / 3), -S, sympy.Integer(0)]))
    g = draw(st.integers(1, 6)) * draw(st.sampled_from([1, -1]))
    left = g * (term() + term() * draw(st.integers(1, 3))) + draw(st.integers(-9, 9))
    return Rel(draw(st.sampled_from(OPS)), left, sympy.Integer(draw(st.integers(-9, 9))))


@SETTINGS
@given(st.one_of(two_dim_relations(), scaled_relations()), st.integers(0, 3), st.sampled_from([None, 5, 12]))
def test_reduced_relations_are_equivalent_at_every_allowed_value(rel, lo, hi):
    bounds = {B: (lo, hi, 1), S: (lo, hi, 1)}
    got = reduce_relation(rel, bounds)
    f = holds(rel, (B, S))
    top = hi if hi is not None else lo + 12
    for b in range(lo, top + 1):
        for s in range(lo, top + 1):
            want = bool(f((b, s)))
            have = got if isinstance(got, bool) else bool(holds(got, (B, S))((b, s)))
            assert want == have, (rel, got, lo, hi, b, s)


@SETTINGS
@given(st.integers(-3, 3), st.integers(-2, 2), st.sampled_from([1, 1, 2, 3, -1]), st.sampled_from(["<=", "<", ">=", ">"]),
       st.integers(-2, 70))
def test_index_bounds_state_exactly_where_every_position_is_in_range(start, shift, delta, op, table):
    """Positions ``Range(start, seq + shift, delta)`` against a bound: the condition the bounds give
    (exact ones a condition, loose ones only a proof) holds at exactly the sizes where every
    position meets it, value by value."""
    from shapecheck.functions.bounds import range_bounds
    from shapecheck.notation import TensorVal
    from shapecheck.notation.compare_other import compare
    from shapecheck.types import TensorType
    n = symbol("seq")
    lo, hi, exact = range_bounds(start, n + shift, delta)
    length = sympy.Max(0, sympy.ceiling((n + shift - start) / sympy.Integer(delta)))
    pos = TensorVal("pos", TensorType("int64", (length,), bounds=(lo, hi, exact)))
    got = compare(pos, op, table)
    for s in range(0, 80):
        values = list(range(start, s + shift, delta))
        want = all({"<=": v <= table, "<": v < table, ">=": v >= table, ">": v > table}[op] for v in values)
        if got is True:
            assert want, (start, shift, delta, op, table, s)
        elif isinstance(got, Cond) and exact:
            assert bool(holds(tuple(got.rels) if not got.alts else AnyOf(got.alts[0]), (n,))((s,))) == want, \
                (start, shift, delta, op, table, s, got)


def test_a_conjunction_over_several_dims_bounds_each_dim():
    """``floor((h - 5)/8) + 1 >= 1 and floor((w - 5)/8) + 1 >= 1`` (a pool after strided convolutions,
    one condition of one node) is ``h >= 5`` and ``w >= 5``, each dim's own bound, not a condition
    over both; each bound is exactly where its half holds."""
    from shapecheck.domain.build import Need, build_domain
    h, w = symbol("height"), symbol("width")
    half = [Rel(">=", sympy.floor((d - 5) / 8) + 1, 1) for d in (h, w)]
    d = build_domain([Need("...", AnyOf((tuple(half),)), [])],
                     {h: DimSet.interval(1, None), w: DimSet.interval(1, None)})
    assert d.text() == "height >= 5, width >= 5"
    assert [(r.kind, r.dims) for r in d.relations] == [("bound", ("height",)), ("bound", ("width",))]
    for x in range(1, 40):
        assert (x in d.sets["height"]) == bool(holds(half[0], (h,))((x,)))


def test_a_product_of_strided_sizes_equal_to_a_constant_pins_both_dims():
    """A Flatten -> Linear after a stride-2 conv needs (floor(h/2 - 1/2) + 1)*(floor(w/2 - 1/2) + 1) == 256,
    stated with its constant moved right: it pins h and w (finitely many sizes, brute force), as the
    ceiling product it is."""
    from shapecheck.domain.build import Need, build_domain
    h, w = symbol("h"), symbol("w")
    fh, fw = sympy.floor(h / 2 - sympy.Rational(1, 2)), sympy.floor(w / 2 - sympy.Rational(1, 2))
    rel = Rel("==", fh * fw + fh + fw, 255)
    d = build_domain([Need("...", rel, [])], {h: DimSet.interval(1, None), w: DimSet.interval(1, None)})
    assert [r.text for r in d.errors] == ["ceiling(h/2)*ceiling(w/2) == 256"]
    sizes = [(a, b) for a in range(1, 600) for b in range(1, 600) if -(-a // 2) * -(-b // 2) == 256]
    assert sizes and max(max(p) for p in sizes) <= 512    # finite: every size is at most 2*256


def test_a_multiple_reads_its_floor_exactly_in_the_other_conditions():
    """``(batch*seq) % 5 == 0`` and ``batch == floor(batch*seq/5)``: together ``seq == 5`` (a dynamo LSTM
    export's baked Reshape), a pin."""
    b, s = symbol("batch"), symbol("seq")
    x = b * s
    needs = [Need("m", Rel("==", x, 5 * sympy.floor(x / 5)), []), Need("e", Rel("==", b, sympy.floor(x / 5)), [])]
    d = build_domain(needs, {b: DimSet.interval(1, None), s: DimSet.interval(1, None)})
    assert d.text() == "batch >= 1, seq == 5" and [e.text for e in d.errors] == ["seq == 5"]


@SETTINGS
@given(st.integers(2, 6), st.integers(-3, 3), st.integers(1, 3), st.sampled_from(["==", "<=", ">="]))
def test_the_domain_with_a_multiple_taken_out_admits_exactly_the_sizes_that_meet_every_condition(q, c, k, op):
    b, s = symbol("batch"), symbol("seq")
    x = b * s + c
    rels = [Rel("==", x, q * sympy.floor(x / q)), Rel(op, k * b, sympy.floor(x / q))]
    d = build_domain([Need(str(r), r, []) for r in rels], {b: DimSet.interval(1, None), s: DimSet.interval(1, None)})
    fs = [holds(r, (b, s)) for r in rels]
    for bv in range(1, 13):
        for sv in range(1, 30):
            got = d.admits({"batch": bv, "seq": sv})
            if got is not None:
                assert got == all(f((bv, sv)) for f in fs), (rels, bv, sv, d.text())


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 7), st.integers(0, 30)), min_size=1, max_size=4),
       st.lists(st.integers(0, 300), max_size=6))
def test_points_made_progressions_are_the_same_set(progressions, stray):
    """Every value of a bounded range tried one by one gives points; equally spaced ones become
    progressions (``h == 1 or h % 2 == 0 and 2 <= h <= 1024``), the set unchanged (brute force)."""
    values = {s + k * g for s, g, n in progressions for k in range(n)} | set(stray)
    got = union([(v, v, 1) for v in values])
    assert {x for x in range(0, 600) if x in got} == values
    if len(progressions) == 1 and not stray and progressions[0][2] >= 3:
        assert len(got.pieces) == 1


def test_a_bounded_range_of_even_sizes_reads_as_a_progression():
    h = symbol("h")
    got = truth_set(AnyOf(((Rel("==", h, 1),), (Rel("==", h, 2 * sympy.floor(h / 2)),))), h, 1, 1024)
    assert got.text("h") == "h == 1 or h % 2 == 0 and 2 <= h <= 1024"


def test_admits_is_undecided_without_a_dim_the_domain_narrows():
    # a new user's trial: admits({}) and admits({'h': 3, 'w': 3}) on a model of H and W said True
    b, h = symbol("B"), symbol("H")
    d = build_domain([Need("H % 2 == 0", Rel("==", sympy.Mod(h, 2), 0), [])],
                     {b: DimSet.interval(1, None), h: DimSet.interval(1, None)})
    assert d.text() == "B >= 1, H % 2 == 0 and H >= 2"
    assert d.admits({}) is None and d.admits({"B": 3}) is None       # H decides
    assert d.admits({"H": 4}) is True and d.admits({"H": 3}) is False  # B is free: any B >= 1 will do
    assert d.admits({"h": 4}) is None and d.admits({"H": 4, "seq": 9}) is True   # h is not H; seq is not read


def test_each_node_is_named_with_the_part_of_a_dims_set_it_needs():
    # a new user's trial: 'H % 2 == 0 and H >= 2 (needed by /pool/MaxPool, /Concat)' said the MaxPool
    # needs H even; it needs H >= 2, and the Concat with the skip needs H even
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    import shapecheck
    from shapecheck.report.text import domain_lines
    nodes = [helper.make_node("MaxPool", ["x"], ["p"], name="/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Resize", ["p", "", "s"], ["u"], name="/Resize", mode="nearest"),
             helper.make_node("Concat", ["u", "x"], ["y"], name="/Concat", axis=1)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 4, "H", 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")])
    rep = shapecheck.check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    assert "  H % 2 == 0 and H >= 2    (needed by /pool/MaxPool: H >= 2; /Concat: H % 2 == 0 and H >= 2)" \
        in domain_lines(rep.domain)
    (rel,) = [r for r in rep.domain.relations if r.dims == ("H",)]
    assert rel.to_dict()["needs"] == [{"node": "/pool/MaxPool", "needs": "H >= 2"},
                                      {"node": "/Concat", "needs": "H % 2 == 0 and H >= 2"}]


def test_interleaved_windows_keep_the_top_of_a_recorded_range():
    # a dynamo Swin export (recorded 40 <= H <= 1024) said 'floor(H/4) % 8 == 0 and 64 <= H <= 995' while
    # onnxruntime runs at H = 1024: a set of interleaved progressions gave the last piece's end as its top
    h = symbol("H")
    f, r = sympy.floor(h / 4), sympy.floor(h / 8 + sympy.Rational(1, 2))
    needs = [Need("a", Rel("==", f, 4 * sympy.floor(f / 4)), []),
             Need("b", Rel("==", sympy.ceiling(f / 2 - sympy.Rational(1, 2)), sympy.ceiling(f / 2)), []),
             Need("c", Rel("==", r, 4 * sympy.floor(r / 4)), [])]
    d = build_domain(needs, {h: DimSet.interval(40, 1024)})
    assert d.text() == "floor(H/4) % 8 == 0 and 64 <= H <= 1024"
    brute = [x for x in range(40, 1025) if all(bool(n.relation.lhs.subs(h, x) == n.relation.rhs.subs(h, x)) for n in needs)]
    assert [x for x in range(40, 1025) if d.admits({"H": x})] == brute and brute[-1] == 1024


def test_a_top_no_node_needs_is_the_exporters_not_a_constant_to_make_larger():
    # a new user's trial (a dynamo DistilBERT export, --allow-empty-dims): '1 <= B <= 64 (needed by node_view...;
    # from initializer position_embeddings float[64,32])', then 're-export with it larger': the views need B != 0,
    # and the top 64 is the range torch recorded
    from shapecheck.domain.relation import Source
    from shapecheck.report.text import domain_lines
    b, s = symbol("B"), symbol("S")
    table = "initializer 'pos' float[64,32]"
    view = [Source("node_view", "Reshape", "Reshape-14", ("C3",), (table,))]
    d = build_domain([Need("B != 0", Rel("!=", b, 0), view), Need("S <= 64", Rel("<=", s, 64), view)],
                     {b: DimSet.interval(0, 64), s: DimSet.interval(0, 100)}, nonempty=False, declared={b, s})
    lines = domain_lines(d)
    assert "  1 <= B <= 64    (needed by node_view; its top recorded by the exporter and taken as the model's contract)" \
        in lines, lines
    (rb,) = [r for r in d.relations if r.dims == ("B",)]
    assert rb.top_recorded and not rb.declared   # the graph still needs B != 0: a condition for --strict
    # a top a node needs keeps its constant, and the fix to make it larger
    assert f"  0 <= S <= 64    (needed by node_view; from {table})" in lines, lines
    assert any(line.strip().startswith("= to go past it: re-export with") for line in lines), lines


def test_a_run_of_sizes_is_a_bound_and_a_few_scattered_ones_a_pin():
    """An 8-row table's ``T <= 8`` was an error[pinned] (8 values or fewer), a 64-row table's a bound:
    a run of consecutive sizes is a bound at any length; one size, or a few apart, pin the dim (the few
    apart: tests/test_cli_report.py's frames in {1, 2, 99, 100})."""
    t = symbol("T")
    assumed = {t: DimSet.interval(1, None)}
    (r,) = build_domain([Need("T <= 8", Rel("<=", t, 8), [])], assumed).relations
    assert (r.kind, r.severity, r.text, r.pins) == ("bound", "info", "1 <= T <= 8", False)
    (r,) = build_domain([Need("T == 16", Rel("==", t, 16), [])], assumed).relations
    assert (r.kind, r.severity, r.values) == ("values", "error", (16,))


A2, B2, C2 = symbol("a"), symbol("b"), symbol("c")


@SETTINGS
@given(st.lists(st.tuples(st.integers(-3, 3), st.sampled_from([A2, B2, A2 * B2, A2 * B2 * C2, sympy.Integer(1)])),
                min_size=1, max_size=3),
       st.sampled_from([C2, B2, C2 ** 2, B2 * C2]), st.booleans())
def test_a_dim_divided_by_a_dim_is_evaluated_as_sympy_evaluates_it(terms, den, floored):
    # a Reshape's -1 over a part of another input's dims is floor(A*B/C): brute force at every small point
    e = sympy.Add(*(k * t for k, t in terms)) / den
    e = sympy.floor(e) if floored else e
    f = compile_dim(e, (A2, B2, C2))
    for a in range(4):
        for b in range(1, 4):
            for c in range(1, 5):
                assert f((a, b, c)) == e.subs({A2: a, B2: b, C2: c}), (e, a, b, c)
