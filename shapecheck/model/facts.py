"""What the model's conditions say about its input dims, used to settle ``Max``/``Min`` in dims.

A model is valid only if the conditions its nodes need hold (``frames >= 1`` for a
convolution over ``frames``).  Where a later dim is ``Max(0, floor((frames - 1)/4))``
(torch's truncating ``//`` of a length that may be 0), the condition settles it to
``floor((frames - 1)/4)`` for every input that the model accepts, and that dim then
equals the one a convolution computes.  Only lower bounds on one dim are kept
(``c*N + k >= 0`` with ``c > 0``, or ``floor((a*N + b)/q) >= t``, a pool's ``floor(h/4) >= 1``),
and only from nodes that always run (not from a branch or a loop body, whose conditions hold
only when it runs).

>>> from shapecheck.notation import Rel
>>> from shapecheck.dims import symbol
>>> f = symbol("frames")
>>> facts = Facts()
>>> facts.learn(Rel(">=", f, 1))
True
>>> facts.settle(sympy.Max(0, sympy.floor((f - 1) / 4)) + 1)
floor(frames/4 - 1/4) + 1
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dims import normalize_dim, is_symbolic, is_unknown
from ..notation import compare_dims, AnyOf, Rel
from ..dims.rounding import floor_argument, provably_nonnegative
from ..types import TensorType

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


class Facts:
    """Lower bounds on the model's dims, from its conditions; ``settle`` applies them."""

    def __init__(self) -> None:
        self.lower: dict[sympy.Symbol, int] = {}
        self._settled: dict[Any, Any] = {}   # dim -> the dim settled under today's bounds

    def snapshot(self) -> tuple:
        return dict(self.lower), dict(self._settled)

    def restore(self, saved: tuple) -> None:
        self.lower, self._settled = saved

    def learn(self, relation: Any) -> bool:
        """Keep the lower bound ``relation`` states on one dim (a ``Rel``); True if it is new."""
        op = getattr(relation, "op", None)
        if op not in (">=", ">", "<=", "<", "=="):
            return False
        d = sympy.expand(sympy.sympify(relation.lhs) - sympy.sympify(relation.rhs))
        if op in ("<=", "<"):
            d, op = -d, {"<=": ">=", "<": ">"}[op]
        syms = d.free_symbols
        if len(syms) != 1:
            return False
        (s,) = syms
        if not (s.is_integer and s.is_nonnegative) or is_unknown(s):
            return False
        bound = _floor_bound(d, s, op) if op != "==" and d.has(sympy.floor) else _linear_bound(d, s, op)
        if bound is None or bound <= self.lower.get(s, 0):
            return False
        self.lower[s] = bound
        self._settled.clear()
        return True

    def redundant(self, conditions: list[tuple[str, Any]]) -> set[str]:
        """The conditions (text, relation) that the bounds imply, except the first to state each
        bound (its source): ``height >= 1`` once ``floor(height/4) >= 1`` (``height >= 4``) is known.

        >>> from shapecheck.notation import Rel
        >>> from shapecheck.dims import symbol
        >>> h = symbol("height")
        >>> weak, strong = Rel(">=", h, 1), Rel(">=", sympy.floor(h / 4), 1)
        >>> facts = Facts()
        >>> facts.learn(weak), facts.learn(strong)
        (True, True)
        >>> sorted(facts.redundant([("height >= 1", weak), ("floor(height/4) >= 1", strong)]))
        ['height >= 1']
        """
        out: set[str] = set()
        sources: set[sympy.Symbol] = set()
        for text, rel in conditions:
            if not self.implies(rel):
                continue
            bound = Facts()
            if bound.learn(rel):
                (sym, value), = bound.lower.items()
                if value == self.lower.get(sym) and sym not in sources:
                    sources.add(sym)   # the first condition that states the bound stays
                    continue
            out.add(text)
        return out

    def implies(self, relation: Any) -> bool:
        """True when the bounds prove ``relation`` (a ``Rel`` or an ``AnyOf``): a condition that
        adds nothing to the ones they came from.

        >>> from shapecheck.notation import Rel
        >>> from shapecheck.dims import symbol
        >>> f = symbol("frames")
        >>> facts = Facts()
        >>> facts.implies(Rel("!=", sympy.floor((f - 1) / 4) + 1, 0)), facts.learn(Rel(">=", f, 1))
        (False, True)
        >>> facts.implies(Rel("!=", sympy.floor((f - 1) / 4) + 1, 0)), facts.implies(Rel(">=", f, 2))
        (True, False)
        """
        if not self.lower:
            return False
        if isinstance(relation, AnyOf):
            return any(all(self.implies(r) for r in conj) for conj in relation.alts)
        if not isinstance(relation, Rel):
            return False
        shift = self._shift()
        lhs, rhs = (x.xreplace(shift) if is_symbolic(x) else x for x in (relation.lhs, relation.rhs))
        return compare_dims(normalize_dim(lhs), relation.op, normalize_dim(rhs)) is True

    def _shift(self) -> dict:
        return {s: s + k for s, k in self.lower.items() if k > 0}

    def settle(self, d: Any) -> Any:
        """``d`` with each ``Max``/``Min`` whose order the bounds decide replaced by that argument."""
        if not self.lower or type(d) is int or not is_symbolic(d) or d.is_Symbol:
            return d
        done = self._settled.get(d)
        if done is None:
            done = self._settled[d] = self._settle(d)
        return done

    def _settle(self, d: sympy.Basic) -> Any:
        found = d.atoms(sympy.Max, sympy.Min)
        if not found:
            return d
        shift = self._shift()
        changed = {}
        for m in found:
            keep = [a for a in m.args if not any(b is not a and _decided(m, b, a, shift) for b in m.args)]
            if len(keep) < len(m.args):
                changed[m] = keep[0] if len(keep) == 1 else type(m)(*keep)
        return normalize_dim(d.xreplace(changed)) if changed else d

    def settle_type(self, t: TensorType) -> TensorType:
        """``t`` with its dims and symbolic value settled (the same object when nothing changes)."""
        if not self.lower:
            return t
        shape = None if t.shape is None else tuple(self.settle(x) for x in t.shape)
        sym = None if t.sym is None else tuple(self.settle(x) if not isinstance(x, bool) else x for x in t.sym)
        if shape == t.shape and sym == t.sym:
            return t
        return TensorType(t.dtype, shape, t.value, sym)


def _linear_bound(d: Any, s: sympy.Symbol, op: str) -> int | None:
    """The lower bound on ``s`` that ``c*s + k op 0`` (``>=``, ``>``, ``==``) states, or None."""
    if not d.is_polynomial(s):
        return None
    poly = sympy.Poly(d, s)
    if poly.degree() != 1:
        return None
    c, k = (int(x) for x in poly.all_coeffs())
    if op == "==":   # c*s + k == 0 holds at one value, which is also a lower bound
        return None if k % c else -k // c
    if c <= 0:
        return None
    return -((k - (op == ">")) // c)   # c*s + k >= 0 (> 0: >= 1): s >= ceil(-k / c)


def _floor_bound(d: Any, s: sympy.Symbol, op: str) -> int | None:
    """The lower bound on ``s`` that ``c*floor((a*s + b)/q) + k op 0`` states (``c, a > 0``), or None:
    ``floor(x) >= t`` for an integer ``t`` is ``x >= t``.

    >>> from shapecheck.dims import symbol
    >>> h = symbol("height")
    >>> _floor_bound(sympy.floor(h / 4) - 1, h, ">="), _floor_bound(2 * sympy.floor((h - 1) / 2) + 1, h, ">")
    (4, 1)
    """
    k, floors = 0, []
    for term, c in d.as_coefficients_dict().items():
        if term == 1 and c.is_Integer:
            k = int(c)
        elif isinstance(term, sympy.floor) and c.is_Integer and c > 0:
            floors.append((term, int(c)))
        else:
            return None
    if len(floors) != 1:
        return None
    (f, c), = floors
    pq = floor_argument(f)
    if pq is None:
        return None
    num, q = pq                            # num = a*s + b with integer coefficients, or not linear
    a, b = num.coeff(s, 1), num.coeff(s, 0)
    if not (a.is_Integer and b.is_Integer) or sympy.expand(a * s + b - num) != 0:
        return None
    a, b = int(a), int(b)
    if a <= 0:
        return None
    t = -((k - (op == ">")) // c)          # c*floor + k >= 0 (> 0: >= 1): floor >= ceil(-k / c)
    return -((b - q * t) // a)             # a*s + b >= q*t: s >= ceil((q*t - b) / a)


def _decided(m: sympy.Basic, b: Any, a: Any, shift: dict) -> bool:
    """True when ``b`` makes ``a`` redundant in ``m``: ``b >= a`` in a Max, ``b <= a`` in a Min,
    for every dim at or above its bound (each dim ``s`` written ``s + k`` over ``s >= 0``)."""
    gap = sympy.sympify(b - a if isinstance(m, sympy.Max) else a - b).xreplace(shift)
    return provably_nonnegative(sympy.expand(gap))


__all__ = ["Facts"]
