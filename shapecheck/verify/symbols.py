"""Drawing values for a query's symbols: satisfying its conditions, or breaking one of them on purpose."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..result import Result
from ..types import TensorType
from ..dims import is_symbolic
from .oracle import ids_of

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

__all__ = ["draw_dims", "at", "expected_type"]

_TRIES = 60            # attempts to satisfy (or break) a query's conditions


def draw_dims(rng: np.random.Generator, types: dict[str, TensorType], res: Result, intent: str) -> tuple[dict, str, set[str]]:
    """Values for every symbol of ``types``, satisfying or breaking ``res``'s conditions (``intent``),
    with what the symbolic result predicts for them and the constraint ids it predicts to fail."""
    syms: set = set()
    for t in types.values():
        for d in t.shape or ():
            if is_symbolic(d):
                syms |= d.free_symbols
    rels, unparsed = _relations(res, syms)
    target = rels[int(rng.integers(len(rels)))][0] if intent == "break" and rels else None
    others = [r for r, _ in rels if r is not target]
    sub = None
    for attempt in range(_TRIES):
        # the second half ignores the other equalities: they may pin the target (K == C forces K <= C)
        cand = _assign(rng, syms, others if attempt < _TRIES // 2 or target is None else [])
        if cand is None or not _nonnegative(types, cand):
            continue
        if target is not None and _holds(target, cand):
            continue      # meant to break this condition
        if intent == "satisfy" and not all(_holds(r, cand) for r in others):
            continue
        sub = cand
        break
    if sub is None:  # could not satisfy (or break): any non-negative values, the solver still decides
        for _ in range(_TRIES):
            sub = {s: _small(rng) for s in sorted(syms, key=str)}
            if _nonnegative(types, sub):
                break
    failed = {i for r, ids in rels if not _holds(r, sub) for i in ids}
    if failed:
        predicted = "invalid: " + ", ".join(sorted(failed))
    elif res.violations:
        predicted = "invalid: " + ", ".join(sorted(ids_of(res.violations)))
    else:
        predicted = "unknown" if unparsed else "valid"
    return sub, predicted, failed or ids_of(res.violations)


def _small(rng: np.random.Generator) -> int:
    return int(rng.choice([0, 1, 2, 3, 4, 5, 6], p=[.04, .2, .22, .2, .16, .1, .08]))


def _assign(rng: np.random.Generator, syms: set, rels: list) -> dict | None:
    """Random values, solving each equality for one of its still-free symbols."""
    sub: dict = {}
    order = [r for r in rels if isinstance(r, sympy.Eq)]
    rng.shuffle(order)
    for eq in order:
        e = sympy.sympify(sympy.expand(eq.lhs - eq.rhs).xreplace(sub))
        free = sorted(e.free_symbols, key=str)
        if not free:
            continue
        pick = free[int(rng.integers(len(free)))]
        for s in free:
            if s is not pick:
                sub[s] = _small(rng)
        sols = [v for v in sympy.solve(e.xreplace(sub), pick) if v.is_integer and v >= 0]
        if not sols:
            return None
        sub[pick] = int(sols[0])
    for s in sorted(syms, key=str):     # never set order: it depends on the hash seed
        sub.setdefault(s, _small(rng))
    return sub


def _relations(res: Result, syms: set) -> tuple[list[tuple[Any, list[str]]], list[str]]:
    """The result's conditions as sympy relations over the query's symbols (+ the constraints they come from)."""
    rels, unparsed = [], []
    for text in res.conditions:
        rel = res.relations.get(text)
        rel = rel.sympy() if rel is not None else None
        if rel is None or isinstance(rel, sympy.logic.boolalg.BooleanAtom) or not rel.free_symbols <= syms:
            unparsed.append(text)
            continue
        rels.append((rel, res.condition_sources.get(text, [])))
    return rels, unparsed


def _nonnegative(types: dict[str, TensorType], sub: dict) -> bool:
    for t in types.values():
        for d in t.shape or ():
            if is_symbolic(d):
                v = at(d, sub)
                if not v.is_Integer or v < 0:
                    return False
    return True


def at(d, sub: dict) -> sympy.Expr:
    """A dim under the substitution, always as a sympy value."""
    return sympy.sympify(sympy.sympify(d).xreplace(sub))


def _holds(rel, sub: dict) -> bool:
    v = rel.subs(sub)
    return bool(v) if isinstance(v, sympy.logic.boolalg.BooleanAtom) else False


def expected_type(res: Result, sub: dict) -> TensorType | None:
    """The symbolic result's output type under the substitution."""
    out = next(iter(res.outputs.values()), None)
    if out is None or out.shape is None:
        return out
    shape = tuple(int(v) if (v := at(d, sub)).is_Integer else v for d in out.shape)
    return TensorType(out.dtype, shape)
