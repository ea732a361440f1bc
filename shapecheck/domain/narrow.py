"""Conditions made smaller as the input dims' sets narrow, and the one-dim parts taken into the sets.

A condition over several dims may say no more than one condition per dim once the other
conditions have narrowed the dims: Swin's ``16*ceiling(floor(h/4)/4)*ceiling(floor(w/4)/4) ==
floor(h/4)*floor(w/4)`` is ``floor(h/4) % 4 == 0 and floor(w/4) % 4 == 0`` where ``h, w >= 8``
(``reduce.py``).  Each such part becomes a part of its dim's set (``one_dim_parts``), and the
conditions left over several dims are made smaller again under the narrower sets (``narrowed``),
until nothing more moves.

>>> from shapecheck.dims import symbol
>>> from shapecheck.notation import Rel
>>> h, w = symbol("h"), symbol("w")
>>> sets = {h: DimSet.interval(1, None), w: DimSet.interval(1, None)}
>>> per_dim = {}
>>> left = one_dim_parts(Rel(">=", h, 8), "need h", sets, per_dim) + one_dim_parts(Rel(">=", w, 8), "need w", sets, per_dim)
>>> p = 16 * sympy.ceiling(h / 4) * sympy.ceiling(w / 4)
>>> narrowed([(Rel("==", p, h * w), "need hw")], sets, per_dim), sets[h].text("h"), sets[w].text("w")
([], 'h % 4 == 0 and h >= 8', 'w % 4 == 0 and w >= 8')
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dims import is_unknown
from ..notation import AnyOf, Rel
from ..dims.light_order import FLIP
from .intset import DimSet
from .reduce import reduce_relation
from .show import multiple_of
from .single import truth_set

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

__all__ = ["bound_of", "by_the_graph", "conjuncts", "is_dim", "multiples_taken_out", "narrowed", "one_dim_parts",
           "own_needs", "without_repeats"]

ROUNDS = 4   # a part taken into a set may let another condition go: a few rounds, each over fewer


def one_dim_parts(rel: Any, need: Any, sets: dict, per_dim: dict) -> list:
    """Each part of the conjunction ``rel`` over one input dim met into that dim's set (``sets``;
    ``per_dim``: dim -> [(its set under one need, the need, the part)]); the parts over several dims, or
    that no set can hold, as ``(part, need)``."""
    left = []
    for part in conjuncts(rel):   # `h >= 5 and w >= 5` is a bound on each dim
        syms = part.free_symbols
        if len(syms) == 1 and is_dim(next(iter(syms))):
            (s,) = syms
            start = sets.get(s, DimSet.interval(0, None))
            got = truth_set(part, s, start.lo or 0, start.hi)
            if got is not None:
                per_dim.setdefault(s, []).append((got, need, part))
                sets[s] = start.meet(got)
                continue
        left.append((part, need))
    return left


def own_needs(contributions: list, name: str, start: DimSet) -> tuple:
    """``((nodes, set), ...)``: what each node needs of one dim by itself, met with ``start`` (the dim's
    assumed set), where the nodes need different sets; ``()`` where they all need the one set (then
    the domain's line names them together).

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.domain.build import Need
    >>> from shapecheck.domain.relation import Source
    >>> h = symbol("H")
    >>> pool, cat = Need("", None, [Source("/MaxPool", "MaxPool", "MaxPool-12", ())]), Need("", None, [Source("/Concat", "Concat", "Concat-13", ())])
    >>> own_needs([(DimSet.interval(2, None), pool, None), (DimSet.progression(0, None, 2), cat, None)], "H", DimSet.interval(1, None))
    (('/MaxPool', 'H >= 2'), ('/Concat', 'H % 2 == 0 and H >= 2'))
    """
    by_text: dict = {}
    for got, need, _part in contributions:
        nodes = by_text.setdefault(start.meet(got).text(name), [])
        nodes += [src.node for src in need.sources if src.node not in nodes]
    return tuple((", ".join(nodes), text) for text, nodes in by_text.items()) if len(by_text) > 1 else ()


def by_the_graph(contributions: list, s: Any, lo: int) -> DimSet | None:
    """The set the parts of the conditions on ``s`` (``per_dim``'s entries for it) leave it by themselves,
    from ``lo`` up: without the range an exporter recorded, within which each part's set was taken
    (``Dim("batch", max=8)`` is the export's contract, not the graph pinning the dim; ``batch != 0`` from a
    Reshape bounds no top, ``seq <= 64`` from a position table does).  None where a part's set is not proved.

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> by_the_graph([(None, None, Rel("==", h % 32, 0))], h, 32).text("h"), by_the_graph([(None, None, Rel("<=", h, 4))], h, 1).hi
    ('h % 32 == 0 and h >= 32', 4)
    """
    own = DimSet.interval(lo, None)
    for _got, _need, part in contributions:
        got = truth_set(part, s, lo)
        if got is None:
            return None
        own = own.meet(got)
    return own


def narrowed(several: list, sets: dict, per_dim: dict) -> list:
    """The conditions over several dims (``(relation, need)``) made smaller under ``sets``: one that
    then always holds goes, the parts over one dim go into the sets (``one_dim_parts``), and the
    rest stays, as it was given where it did not get smaller (its text is then the node's own)."""
    for _ in range(ROUNDS):
        bounds = {s: bound_of(v) for s, v in sets.items() if not v.empty}
        left, moved = [], False
        for rel, need in several:
            reduced = reduce_relation(rel, {s: bounds.get(s, (0, None, 1)) for s in rel.free_symbols if is_dim(s)})
            if reduced is True:
                moved = True
                continue
            parts = () if reduced is False else conjuncts(reduced)
            if reduced is False or all(len(p.free_symbols) > 1 for p in parts):
                left.append((rel, need))
                continue
            moved = True
            left += one_dim_parts(reduced, need, sets, per_dim)
        several = left
        if not moved:
            break
    return several


def without_repeats(relations: list, given: list = ()) -> list:
    """``relations`` (``DomainRelation``s over several dims) with one relation where several nodes
    need the same one (their sources joined), and without an alternative that another relation
    already implies (``X == 16 or X == 1`` beside ``X == 16``: a broadcast beside a reshape); the
    relations of ``given`` hold too, and imply but are not repeated."""
    kept: dict = {}
    for r in relations:
        key = (r.kind, r.severity, r.text, r.dims, r.declared)
        if key in kept:
            kept[key].sources = [*kept[key].sources, *r.sources]
        else:
            kept[key] = r
    plain = [r.relation for r in [*given, *kept.values()] if isinstance(r.relation, Rel)]
    return [r for r in kept.values() if not (isinstance(r.relation, AnyOf) and r.severity != "error" and any(
        all(any(_same(part, p) for p in plain) for part in conj) for conj in r.relation.alts))]


def _same(a: Rel, b: Rel) -> bool:
    """Whether two relations say the same of the same dims (either way round)."""
    if a.op != b.op and a.op != FLIP[b.op]:
        return False
    da = sympy.expand(sympy.sympify(a.lhs) - sympy.sympify(a.rhs))
    db = sympy.expand(sympy.sympify(b.lhs) - sympy.sympify(b.rhs))
    if a.op == b.op and (da == db or (a.op in ("==", "!=") and da == -db)):
        return True
    return a.op != b.op and da == -db


def multiples_taken_out(reduced: list, base: dict) -> list:
    """The reduced needs, where one says ``x % q == 0`` (``x == q*floor(x/q)``), with ``floor(x/q)``
    read as ``x/q`` in the others -- the same values wherever the model runs -- and reduced again:
    ``batch == floor(batch*seq/5)`` beside ``(batch*seq) % 5 == 0`` is ``seq == 5`` (a dynamo LSTM
    export that bakes the sample's sequence length into a Reshape)."""
    exact = {}
    for _need, rel in reduced:
        for part in conjuncts(rel) if not isinstance(rel, bool) else ():
            multiple = multiple_of(part) if isinstance(part, Rel) and part.op == "==" else None
            if multiple is not None:
                x, q = multiple
                exact[sympy.floor(x / q)] = x / q
    if not exact:
        return reduced
    out = []
    for need, rel in reduced:
        if isinstance(rel, Rel) and multiple_of(rel) is None and any(_has(rel, f) for f in exact):
            again = Rel(rel.op, sympy.sympify(rel.lhs).xreplace(exact), sympy.sympify(rel.rhs).xreplace(exact))
            rel = reduce_relation(again, {s: base.get(s, (0, None, 1)) for s in again.free_symbols if is_dim(s)})
        out.append((need, rel))
    return out


def _has(rel: Rel, f: Any) -> bool:
    return any(hasattr(x, "has") and x.has(f) for x in (rel.lhs, rel.rhs))


def conjuncts(rel: Any) -> tuple:
    """The relations a conjunction holds (one alternative of ``AnyOf``), else ``(rel,)``."""
    return rel.alts[0] if isinstance(rel, AnyOf) and len(rel.alts) == 1 else (rel,)


def is_dim(s: Any) -> bool:
    return not is_unknown(s)


def bound_of(ds: DimSet) -> tuple:
    """A set's ``(lo, hi, step)``, as ``reduce_relation`` reads bounds."""
    shape = ds.shape()
    return shape if shape is not None else (ds.lo or 0, ds.hi, 1)
