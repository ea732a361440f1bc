"""The notation's value kinds and its three-valued logic.

Truth is ``True``, ``False``, or a ``Cond``: true under stated relations between dims, or
undecidable here.  Anything not known statically is an ``Unknown`` that says why (static:
unknown rank or type; value: a tensor's contents, known only at run time).

>>> from shapecheck.types import symbol
>>> and_([True, Cond((Rel("==", symbol("N"), 4),))]).texts()
['N == 4']
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable


from ..dims import rebuild
from ..types import TensorType, expr_str, is_symbolic

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy

Env = dict
Fn = Callable[[Env], Any]


# ---------------------------------------------------------------- value kinds

class Unknown:
    """A value not known statically; ``reason`` is "static" or "value" (run-time contents)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unknown({self.reason})"


UNKNOWN = Unknown("static")
NO_VALUE = Unknown("value")


class UnknownShape(Unknown):
    """The shape of a tensor of unknown rank; ``owner`` names the tensor so it can be bound."""

    __slots__ = ("owner",)

    def __init__(self, owner: str | None):
        super().__init__("static")
        self.owner = owner


class UnknownRank(Unknown):
    """The rank of a tensor of unknown rank; ``owner`` names the tensor so it can be bound."""

    __slots__ = ("owner",)

    def __init__(self, owner: str | None):
        super().__init__("static")
        self.owner = owner


class UnknownDType(Unknown):
    __slots__ = ("owner",)

    def __init__(self, owner: str | None):
        super().__init__("static")
        self.owner = owner


@dataclass(frozen=True)
class Rel:
    """One relation between dims, kept in the user's direction for printing."""

    op: str
    lhs: Any
    rhs: Any

    def __str__(self) -> str:
        return f"{expr_str(self.lhs)} {self.op} {expr_str(self.rhs)}"

    def negate(self) -> "Rel":
        return Rel(_NEGATE[self.op], self.lhs, self.rhs)

    def sympy(self) -> sympy.Basic:
        return _sympy_rel(self.op)(self.lhs, self.rhs)

    def xreplace(self, mapping: dict) -> "Rel":
        """The relation with symbols renamed (cheap: no sympy relational is built, no Min/Max re-evaluated)."""
        return Rel(self.op, rebuild(self.lhs, mapping), rebuild(self.rhs, mapping))

    @property
    def free_symbols(self) -> set:
        return set().union(*(x.free_symbols for x in (self.lhs, self.rhs) if is_symbolic(x)))


@dataclass(frozen=True)
class AnyOf:
    """A disjunction of conjunctions of relations (``N == M or N == 1 or M == 1``)."""

    alts: tuple

    def __str__(self) -> str:
        return " or ".join("(" + " and ".join(str(r) for r in conj) + ")" if len(conj) > 1 else str(conj[0])
                           for conj in self.alts)

    def sympy(self) -> sympy.Basic:
        return sympy.Or(*[sympy.And(*[r.sympy() for r in conj]) for conj in self.alts])

    def xreplace(self, mapping: dict) -> "AnyOf":
        return AnyOf(tuple(tuple(r.xreplace(mapping) for r in conj) for conj in self.alts))

    @property
    def free_symbols(self) -> set:
        return set().union(*(r.free_symbols for conj in self.alts for r in conj))


_NEGATE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
# a relation's operator as Python's, for plain numbers
PYOP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _sympy_rel(op: str):
    """sympy's class for a relation operator (sympy is imported on first use: ``deferred``)."""
    return {"==": sympy.Eq, "!=": sympy.Ne, "<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge}[op]


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


class NeedInt(Exception):
    """A symbolic dim was used where an integer is needed (a slice bound, a range)."""

    def __init__(self, expr: Any):
        super().__init__(str(expr))
        self.expr = expr


class EvalError(Exception):
    """Evaluation is meaningless for these inputs (an index past a shape's end)."""


class TensorVal:
    """A tensor as the notation sees it: ``.shape``, ``.dtype``, and its contents if constant."""

    __slots__ = ("name", "dtype", "shape", "value", "sym", "bounds")

    def __init__(self, name: str, t: TensorType):
        self.name, self.dtype, self.shape, self.value, self.sym = name, t.dtype, t.shape, t.value, t.sym
        self.bounds = t.bounds

    def __repr__(self) -> str:
        return f"TensorVal({self.name})"


class _Lazy:
    __slots__ = ("fn",)

    def __init__(self, fn: Fn):
        self.fn = fn


def lookup(env: Env, name: str) -> Any:
    v = env[name]
    if type(v) is _Lazy:
        v = v.fn(env)
        env[name] = v
    return v


def lazy(fn: Fn) -> _Lazy:
    return _Lazy(fn)


# ---------------------------------------------------------------- truth logic

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
        from .disjunction import absorbed, always
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

    >>> from shapecheck.types import symbol
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


