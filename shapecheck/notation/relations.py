"""Relations between dims (``Rel``: ``N == 4``) and disjunctions of them (``AnyOf``), with the
operators' meaning on plain numbers (``PYOP``).

Disjunctions are made shorter where that changes nothing.  ``always``: the disjunction holds for
every dim (``batch != 0 or batch == batch*seq``), so it is not a condition.  ``absorbed``:
alternatives that another one already covers are dropped (``N != 0 or N == 4`` is ``N != 0``).
Neither ever weakens a condition: an alternative is dropped, or the whole is called true, only
when that is proved.

>>> from shapecheck.dims import symbol
>>> str(Rel("<=", symbol("N"), 4).negate()), PYOP["<"](1, 2)
('N > 4', True)
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..dims import LIGHT, rebuild, expr_str, is_symbolic
from ..dims.light import terms_of

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


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


def _solutions(rel: Rel, s: Any) -> Any:
    """The dims (a finite set) that satisfy a linear equality over the one dim ``s``, else None.

    Only ``a*s + b == 0`` is solved (cheaply, no ``solveset``): anything else is "unsure".

    >>> from shapecheck.dims import symbol
    >>> n = symbol("N")
    >>> _solutions(Rel("==", n, 4 * n), n), _solutions(Rel("==", 2 * n, 3), n), _solutions(Rel("==", n * n, 4), n)
    ([0], [], None)
    """
    if rel.op != "==":
        return None
    if type(rel.lhs) in LIGHT or type(rel.rhs) in LIGHT:
        return _light_solutions(rel.lhs - rel.rhs, s)
    d = sympy.expand(sympy.sympify(rel.lhs) - sympy.sympify(rel.rhs))
    a, b = d.coeff(s, 1), d.coeff(s, 0)
    if not (a.is_Integer and b.is_Integer) or a == 0 or sympy.expand(a * s + b - d) != 0:
        return None
    v = -b / a
    return [int(v)] if v.is_Integer and v >= 0 else []


def _light_solutions(d: Any, s: Any) -> Any:
    """``_solutions`` of ``d == 0`` for a light check's difference ``d`` (``dims/light.py``): the same
    answer, read off its terms."""
    terms = terms_of(d)
    a, b = terms.get(((s.name, 1),), 0), terms.get((), 0)
    if a == 0 or any(m not in ((), ((s.name, 1),)) for m in terms):
        return None
    return [-b // a] if -b % a == 0 and -b // a >= 0 else []


@lru_cache(maxsize=4096)   # keyed by the relations (operator and normalized dims): a pure function of them
def absorbed(rels: tuple) -> tuple:
    """The disjunction without the equalities over one dim that another disjunct already covers
    (``seq != 0 or seq == 4`` is ``seq != 0``).

    >>> from shapecheck.dims import symbol
    >>> s = symbol("seq")
    >>> [str(r) for r in absorbed((Rel("!=", s, 0), Rel("==", s, 4)))]
    ['seq != 0']
    """
    syms = set().union(*(r.free_symbols for r in rels))
    if len(syms) != 1 or len(rels) < 2:
        return rels
    (s,) = syms
    keep = list(rels)
    for r in rels:
        sols = _solutions(r, s)
        others = [o for o in keep if o is not r]
        if sols is not None and others and all(any(_holds(o, s, v) for o in others) for v in sols):
            keep = others
    return tuple(keep)


@lru_cache(maxsize=4096)   # keyed by the relations: a pure function of them
def always(rels: tuple) -> bool:
    """True when a disjunction of relations holds for every dim: its negation, a conjunction, has
    no solution.  An equality in the negation that fixes one dim (``batch == 0``) is tried at
    each value it allows; if there some other negated relation is false whatever the other dims
    (``0 != 0*seq``), no dims satisfy the negation (``batch != 0 or batch == batch*seq``, a
    Reshape whose target dim copies an input dim that is 0 exactly when it is).  False when unsure.

    >>> from shapecheck.dims import symbol
    >>> b, s = symbol("batch"), symbol("seq")
    >>> always((Rel("!=", b, 0), Rel("==", b, 4 * b))), always((Rel("!=", b, 0), Rel("==", b, 4)))
    (True, False)
    >>> always((Rel("!=", b, 0), Rel("==", b, b * s))), always((Rel("!=", b, 0), Rel("==", s, b * s)))
    (True, False)
    """
    negs = [r.negate() for r in rels]
    for eq in negs:
        syms = eq.free_symbols if eq.op == "==" else ()
        if len(syms) != 1:
            continue
        (s,) = syms
        sols = _solutions(eq, s)
        if sols is not None and all(any(_false_at(n, s, v) for n in negs) for v in sols):
            return True
    return False


def _holds(rel: Rel, s: Any, v: int) -> bool:
    """True when ``rel`` holds with the dim ``s`` equal to ``v`` (False also when that stays unknown)."""
    sides = []
    for x in (rel.lhs, rel.rhs):
        if type(x) in LIGHT:
            x = x.xreplace({s: v})   # a light check's dim at s = v: an int, or still a dim
            if type(x) is not int:
                return False
        elif is_symbolic(x):
            x = x.xreplace({s: sympy.Integer(v)})
            if not x.is_Integer:
                return False
            x = int(x)
        sides.append(x)
    return bool(PYOP[rel.op](*sides))


def _false_at(rel: Rel, s: Any, v: int) -> bool:
    """True when ``rel`` is false with the dim ``s`` equal to ``v``, whatever the other dims are
    (its two sides then differ by a fixed integer); False also when that is not known."""
    if type(rel.lhs) in LIGHT or type(rel.rhs) in LIGHT:
        d = rel.lhs - rel.rhs
        d = d.xreplace({s: v}) if type(d) in LIGHT else d
        return type(d) is int and not PYOP[rel.op](d, 0)
    d = sympy.expand(sympy.sympify(rel.lhs).xreplace({s: sympy.Integer(v)})
                     - sympy.sympify(rel.rhs).xreplace({s: sympy.Integer(v)}))
    return d.is_Integer and not PYOP[rel.op](int(d), 0)


__all__ = ["Rel", "AnyOf", "PYOP", "always", "absorbed"]
