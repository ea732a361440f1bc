"""When a rule left to the runtime holds for every input value anyway.

A rule that reads elements known only by loose bounds (``functions/bounds.py``: RoBERTa's
positions, a running count of the tokens that are not padding, lie in ``[1, seq + 1]``) is left
to the runtime: the elements need not reach their bounds.  But where the bounds themselves meet
the rule, every element does: that condition (``seq <= 62`` for a table of 64 positions) is when
the rule holds for every input value, and the report says so.  It is found by asking the rule
again with the bounds taken as attained.

>>> from shapecheck.dims import symbol
>>> from shapecheck.registry import default_registry
>>> from shapecheck.types import TensorType
>>> spec = default_registry().resolve("Gather", 13)
>>> seq = symbol("seq")
>>> pos = TensorType("int64", (2, seq), bounds=(1, seq + 1, False))
>>> holds_when(spec, spec.rule("C5"), {"data": TensorType("float", (64, 32)), "indices": pos}, {"axis": 0})
'seq <= 62'
"""
from __future__ import annotations

from typing import Any

from ..notation import EvalError, NeedInt, as_cond
from ..notation.relations import AnyOf
from ..registry import Rule, Spec
from ..types import TensorType
from .query import spec_env


def holds_when(spec: Spec, rule: Rule, types: dict[str, Any], attrs: dict[str, Any],
               output_count: int | None = None) -> str:
    """The condition under which ``rule``, left to the runtime, holds for every value of the inputs
    it reads that are known by loose bounds; "" when there is none (no such input, or the bounds
    meet the rule nowhere)."""
    loose = [n for n in rule.value_inputs if _loose(types.get(n))]
    if not loose:
        return ""
    attained = dict(types)
    for n in loose:
        t = types[n]
        attained[n] = TensorType(t.dtype, t.shape, None, None, (t.bounds[0], t.bounds[1], True))
    try:
        v = rule.fn(spec_env(spec, attained, attrs, output_count))
    except (EvalError, NeedInt):
        return ""
    if isinstance(v, bool):
        return ""
    c = as_cond(v)
    if c.needs_value or c.opaque:
        return ""
    dims = {d for n in loose for d in types[n].shape or ()}
    kept = [_nonempty(r, dims) for r in c.relations()]
    if any(r is None for r in kept):
        return ""   # at an empty input alone: nothing the model's sizes can give (``seq = 100`` for 64 rows)
    return " and ".join(str(r) for r in kept)


def _nonempty(r: Any, dims: set) -> Any:
    """``r`` without the alternatives that hold only for an empty input (``seq == 0``): the rule
    holds there too, but a condition that is enough without them reads plainer and is still enough;
    None when nothing else is left (the rule holds for every input value only where one is empty).

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.notation.relations import Rel
    >>> b, s = symbol("batch"), symbol("seq")
    >>> [str(_nonempty(r, {b, s})) for r in (AnyOf(((Rel("==", b, 0),), (Rel("<=", s, 62),))), Rel("==", b, 0))]
    ['seq <= 62', 'None']
    """
    def empty(conj: tuple) -> bool:
        return all(getattr(x, "op", None) == "==" and x.rhs == 0 and x.lhs in dims for x in conj)
    if not isinstance(r, AnyOf):
        return None if empty((r,)) else r
    alts = tuple(conj for conj in r.alts if not empty(conj))
    if not alts:
        return None
    if len(alts) == len(r.alts):
        return r
    return alts[0][0] if len(alts) == 1 and len(alts[0]) == 1 else AnyOf(alts)


def _loose(t: Any) -> bool:
    return isinstance(t, TensorType) and t.value is None and t.sym is None and t.bounds is not None and not t.bounds[2]


__all__ = ["holds_when"]
