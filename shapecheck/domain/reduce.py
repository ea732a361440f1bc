"""Relations over several dims made smaller under the dims' bounds.

``batch*seq == 16*batch`` is ``seq == 16`` for every ``batch >= 1``: a factor that is never 0
(or, for an inequality, always positive) is divided out.  A disjunction loses the alternatives
no allowed value meets, and is true when one of them always holds.  What is left is equivalent
to the relation for every allowed value of its dims.

>>> from shapecheck.dims import symbol
>>> b, s = symbol("batch"), symbol("seq")
>>> str(reduce_relation(Rel("==", b * s, 16 * b), {b: (1, None, 1), s: (1, None, 1)}))
'seq == 16'
>>> reduce_relation(AnyOf(((Rel("==", b, 0),), (Rel(">=", s, 1), Rel(">=", b, 1)))), {b: (1, None, 1), s: (1, None, 1)})
True
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..dims import normalize_dim, rebuild
from ..notation import make_rel
from ..notation import AnyOf, Rel
from .settle import always_ge

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def reduce_relation(rel: Any, bounds: dict) -> Any:
    """``rel`` (a ``Rel`` or ``AnyOf``) made smaller under ``bounds`` (dim -> ``(lo, hi, step)``):
    a relation, True (always holds) or False (never)."""
    key = tuple(sorted(((s, b) for s, b in bounds.items() if s in rel.free_symbols), key=lambda x: x[0].name))
    return _reduce(rel, key)


@lru_cache(maxsize=4096)   # keyed by the relation and the bounds of its own dims: all it reads
def _reduce(rel: Any, bounds_key: tuple) -> Any:
    bounds = dict(bounds_key)
    if isinstance(rel, Rel):
        return _one(rel, bounds)
    alts = []
    for conj in rel.alts:
        parts = [_one(r, bounds) for r in conj]
        if any(p is False for p in parts):
            continue
        parts = [p for p in parts if p is not True]
        if not parts:
            return True
        alts.append(tuple(parts))
    if not alts:
        return False
    if len(alts) == 1 and len(alts[0]) == 1:
        return alts[0][0]
    return AnyOf(tuple(alts))


def _one(rel: Rel, bounds: dict) -> Any:
    """One relation with its never-zero (or positive) factors divided out; True or False where the
    bounds decide it.  A dim the bounds fix to one value is that value."""
    fixed = {s: b[0] for s, b in bounds.items() if b[1] is not None and b[0] == b[1]}
    if fixed:
        rel = Rel(rel.op, normalize_dim(rebuild(sympy.sympify(rel.lhs), fixed)),
                  normalize_dim(rebuild(sympy.sympify(rel.rhs), fixed)))
    d = sympy.expand(sympy.sympify(rel.lhs) - sympy.sympify(rel.rhs))
    if d.is_Number:
        return bool(_holds(rel.op, d))
    if not d.free_symbols <= set(bounds):
        return rel
    op = rel.op
    if op in ("==", "!="):
        if always_ge(d - 1, bounds) or always_ge(-d - 1, bounds):
            return op == "!="
    else:   # g >= 0 (or g > 0, strict)
        g, strict = (d if op in (">=", ">") else -d), op in (">", "<")
        if always_ge(g - 1 if strict else g, bounds):
            return True
        if always_ge(-g if strict else -g - 1, bounds):
            return False
    if not d.is_Add:
        factors = [d]
    else:
        factored = sympy.factor_terms(d)
        factors = list(factored.args) if factored.is_Mul else [factored]
    keep = []
    for f in factors:
        base = f.base if f.is_Pow and f.exp.is_Integer and f.exp > 0 else f
        if f.is_Number:
            if f < 0:
                op = _FLIP[op]
            continue
        if op in ("==", "!=") and (always_ge(base - 1, bounds) or always_ge(-base - 1, bounds)):
            continue
        if always_ge(f - 1, bounds):
            continue
        keep.append(base if op in ("==", "!=") else f)
    if len(keep) == len(factors) or not keep:
        return rel
    if len(keep) == 1:
        return make_rel(op, keep[0], 0)
    return make_rel(op, sympy.Mul(*keep), 0)


def _holds(op: str, d: Any) -> bool:
    return {"==": d == 0, "!=": d != 0, "<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0}[op]


__all__ = ["reduce_relation"]
