"""Conditions that cannot all hold (``N == 4`` and ``N == 5``): a contradiction makes a query invalid.

>>> import sympy
>>> from shapecheck.notation import Rel
>>> N = sympy.Symbol("N")
>>> contradiction_of([("N == 4", Rel("==", N, 4)), ("N == 5", Rel("==", N, 5))], lambda t: ["C1"]).message
'these conditions cannot all hold'
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from ..result import Finding, Result
from ..notation import Rel

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

__all__ = ["contradiction", "contradiction_of", "equalities"]


def contradiction(result: Result) -> Finding | None:
    """Conditions that cannot all hold (``N == 4`` and ``N == 5``) make the query invalid."""
    eqs = equalities(result.relations.items())
    return contradiction_of(eqs, lambda t: result.condition_sources.get(t, [])) if len(eqs) >= 2 else None


def equalities(relations: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The (text, relation) pairs whose relation is an equality between dims (``Rel`` objects)."""
    return [(t, r) for t, r in relations if isinstance(r, Rel) and r.op == "=="]


def contradiction_of(eqs: list[tuple[str, Any]], sources) -> Finding | None:
    """A Finding when the equalities ``eqs`` (text, sympy Eq) have no common solution.

    Each group of equalities linked by shared symbols is decided on its own, and only when it
    is linear (``N == M``, ``2*N == K + 1``): ``linsolve`` answers those in polynomial time.
    A nonlinear or very large group is left undecided (its conditions are still stated), so a
    model with thousands of conditions never waits on a Groebner basis.
    """
    eqs = _linked(eqs)
    if len(eqs) < 2:
        return None
    for group in _groups(eqs):
        bad = _inconsistent(group)
        if bad:
            return _contradiction_finding(group, sources)
    return None


_MAX_GROUP = 64   # equalities decided together at most


def _groups(eqs: list[tuple[str, Any]]) -> list[list[tuple[str, Any]]]:
    """Equalities that share symbols, directly or through others (union-find over symbols)."""
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) is not x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for _, e in eqs:
        syms = list(e.free_symbols)
        for a in syms[1:]:
            ra, rb = find(syms[0]), find(a)
            if ra is not rb:
                parent[ra] = rb
    by_root: dict = {}
    for t, e in eqs:
        key = find(next(iter(e.free_symbols))) if e.free_symbols else None
        by_root.setdefault(key, []).append((t, e))
    return [g for g in by_root.values() if len(g) >= 2 or not g[0][1].free_symbols]


def _inconsistent(group: list[tuple[str, Any]]) -> bool:
    if len(group) > _MAX_GROUP:
        return False
    exprs = [sympy.expand(sympy.sympify(e.lhs) - e.rhs) for _, e in group]
    syms = sorted(set().union(*(x.free_symbols for x in exprs)), key=str)
    if not syms:
        return any(x != 0 for x in exprs)
    try:
        if any(sympy.Poly(x, *syms).total_degree() > 1 for x in exprs):
            return False          # nonlinear: not decided here
        sol = sympy.linsolve(exprs, syms)
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
        return False
    if sol == sympy.EmptySet:
        return True
    for point in sol:            # dims are nonnegative integers: a forced negative or fractional value is no solution
        for v in point:
            if v.is_number and (v < 0 or not v.is_integer):
                return True
    return False


def _contradiction_finding(eqs: list[tuple[str, Any]], sources) -> Finding:
    ids = []
    for t, _ in eqs:
        for i in sources(t):
            if i not in ids:
                ids.append(i)
    texts = [t for t, _ in eqs]
    return Finding("+".join(ids) or "conditions", " and ".join(texts),
                   "these conditions cannot all hold", {},
                   "make the dims agree: " + ", ".join(texts), "no values of the dims satisfy them together")


def _linked(eqs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Only equalities sharing a symbol with another can contradict each other (or themselves)."""
    count: dict = {}
    for _, e in eqs:
        for s in e.free_symbols:
            count[s] = count.get(s, 0) + 1
    return [(t, e) for t, e in eqs if any(count[s] > 1 for s in e.free_symbols) or not e.free_symbols]
