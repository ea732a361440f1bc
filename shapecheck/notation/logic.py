"""The notation's three-valued logic: truth is ``True``, ``False``, or a ``Cond``: true under stated
relations between dims, or undecidable here.

>>> from shapecheck.dims import symbol
>>> from shapecheck.notation.relations import Rel
>>> and_([True, Cond((Rel("==", symbol("N"), 4),))]).texts()
['N == 4']
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .lattice import EvalError, Unknown
from .relations import AnyOf, absorbed, always

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


class Cond:
    """A truth value that holds under ``rels`` (a conjunction), or is undecidable here.

    ``alts`` holds a disjunction of conjunctions when an ``or`` could not be decided;
    ``opaque`` means part of it depends on something unknown (rank, type);
    ``needs_value`` means part of it depends on tensor contents only known at run time.
    """

    __slots__ = ("rels", "alts", "opaque", "needs_value")

    def __init__(self, rels=(), alts=(), opaque=False, needs_value=False):
        self.rels, self.alts, self.opaque, self.needs_value = tuple(rels), tuple(alts), opaque, needs_value

    def texts(self) -> list[str]:
        return [str(r) for r in self.relations()]

    def relations(self) -> list:
        """Each part as an object: a ``Rel`` per relation, an ``AnyOf`` per disjunction."""
        return list(self.rels) + [AnyOf(tuple(alt)) for alt in self.alts]

    def __repr__(self) -> str:
        return f"Cond({self.texts()}, opaque={self.opaque}, needs_value={self.needs_value})"


def and_(vals) -> Any:
    rels: list = []
    alts: list = []
    opaque = needs = False
    undecided = False
    for v in vals:
        if v is True:
            continue
        if v is False:
            return False
        undecided = True
        if isinstance(v, Cond):
            rels.extend(r for r in v.rels if r not in rels)
            alts.extend(v.alts)
            opaque |= v.opaque
            needs |= v.needs_value
        elif isinstance(v, Unknown):
            if v.reason == "value":
                needs = True
            else:
                opaque = True
        elif isinstance(v, (bool, np.bool_)):
            if not v:
                return False
        else:
            raise EvalError(f"expected a truth value, got {v!r}")
    return Cond(rels, alts, opaque, needs) if undecided else True


def or_(vals) -> Any:
    conds = []
    for v in vals:
        if v is True or (isinstance(v, (bool, np.bool_)) and v):
            return True
        if v is False or isinstance(v, (bool, np.bool_)):
            continue
        conds.append(v)
    if not conds:
        return False
    if len(conds) == 1:
        return as_cond(conds[0])
    cs = [as_cond(c) for c in conds]
    if any(c.opaque or c.needs_value or c.alts for c in cs):
        return Cond((), (), any(c.opaque or c.alts for c in cs), any(c.needs_value for c in cs))
    if all(len(c.rels) == 1 for c in cs):
        rels = tuple(c.rels[0] for c in cs)
        if always(rels):
            return True
        rels = absorbed(rels)
        if len(rels) == 1:
            return Cond(rels)
        cs = [Cond((r,)) for r in rels]
    return Cond((), (tuple(c.rels for c in cs),))


def not_(v) -> Any:
    """Negation; a negated condition stays a stated condition (De Morgan), not an opaque one.

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.notation.relations import Rel
    >>> N, M = symbol("N"), symbol("M")
    >>> not_(or_([Cond((Rel("==", N, 0),)), Cond((Rel("==", M, 0),))])).texts()
    ['N != 0', 'M != 0']
    >>> not_(Cond((Rel("==", N, 0), Rel("==", M, 1)))).texts()
    ['N != 0 or M != 1']
    """
    if isinstance(v, (bool, np.bool_)):
        return not v
    c = as_cond(v)
    if c.opaque:
        return Cond((), (), True, c.needs_value)
    # not (r1 and r2) = (not r1) or (not r2); not (a or b) = (not a) and (not b)
    parts = [Cond((), (tuple((r.negate(),) for r in c.rels),)) if len(c.rels) > 1
             else Cond((c.rels[0].negate(),))] if c.rels else []
    for alt in c.alts:
        for conj in alt:
            if len(conj) == 1:
                parts.append(Cond((conj[0].negate(),)))
            else:
                parts.append(Cond((), (tuple((r.negate(),) for r in conj),)))
    if not parts:
        return Cond((), (), True, c.needs_value)
    out = and_(parts) if len(parts) > 1 else parts[0]
    if isinstance(out, Cond) and c.needs_value:
        out.needs_value = True
    return out


def as_cond(v) -> Cond:
    if isinstance(v, Cond):
        return v
    if isinstance(v, Unknown):
        return Cond((), (), v.reason != "value", v.reason == "value")
    raise EvalError(f"expected a truth value, got {v!r}")


__all__ = ["Cond", "and_", "or_", "not_", "as_cond"]
