"""Dims that only grow (or only shrink) as their symbols grow: decided at the symbols' least values.

Every dim symbol is a non-negative integer.  A sum of monomials with positive coefficients, a floor
or ceiling of such a sum, a Min or Max of such dims, a positive multiple of any of them: each is
*nondecreasing* in every symbol, so over all dims it is least where every symbol is 0.  A negative
multiple of one is nonincreasing, and largest there.  ``7*ceiling(H/7 + 1/7) - 3`` (dynamo's
``torch.roll`` by 3 on a padded axis, with ``H = h + 1``) grows with ``H`` and is 4 at ``H = 0``: it
is positive for every ``H``, which its floor-free bounds (``H - 2 <= d``) do not show.

>>> from shapecheck.dims import symbol
>>> H, W = symbol("H"), symbol("W")
>>> d = 7 * sympy.ceiling(H / 7 + sympy.Rational(1, 7)) - 3
>>> direction(d), at_zero(d), decide(d, ">"), decide(-sympy.floor(H * W / 2) - 1, "<"), decide(H - W, ">")
(1, 4, True, True, None)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


def direction(d: Any) -> int | None:
    """1 where ``d`` is nondecreasing in each of its symbols over the non-negative integers, -1 where
    nonincreasing, 0 for a number; None where it is neither, or where that is not shown this way."""
    if d.is_Number:
        return 0
    if d.is_Symbol:
        return 1 if d.is_nonnegative else None
    if d.is_Pow:
        base, k = d.args
        return 1 if base.is_Symbol and base.is_nonnegative and k.is_Integer and k > 0 else None
    if d.is_Mul:
        c, rest = d.as_coeff_Mul()
        if c.is_Number and c != 1:
            inner = direction(rest)
            return None if inner is None else inner * (1 if c > 0 else -1)
        factors = sympy.Mul.make_args(d)
        # a product of nondecreasing factors grows only where each is also never negative
        return 1 if all(f.is_Symbol and f.is_nonnegative or f.is_Pow and direction(f) == 1 for f in factors) else None
    if d.is_Add or isinstance(d, (sympy.Min, sympy.Max)):
        ways = {direction(a) for a in d.args} - {0}
        return None if None in ways or len(ways) > 1 else (ways.pop() if ways else 0)
    if isinstance(d, (sympy.floor, sympy.ceiling)):
        return direction(d.args[0])
    return None


def at_zero(d: Any) -> int | None:
    """``d`` with every symbol 0, as an int; None where that is not an integer."""
    v = sympy.sympify(d).xreplace({s: sympy.Integer(0) for s in d.free_symbols})
    return int(v) if v.is_Integer else None


def decide(d: Any, op: str) -> bool | None:
    """``d op 0`` where ``d`` is monotone (``direction``) and its value at 0 decides it for every dim;
    None where not so."""
    if not isinstance(d, sympy.Basic) or not all(s.is_nonnegative and s.is_integer for s in d.free_symbols):
        return None
    way = direction(d)
    if not way:
        return None
    v = at_zero(d)
    if v is None:
        return None
    if way < 0:   # largest at 0: -d is nondecreasing, least there
        v, op = -v, {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
    # d >= v everywhere: what a least value above (or at) 0 decides
    return {">": True if v > 0 else None, ">=": True if v >= 0 else None,
            "<": False if v >= 0 else None, "<=": False if v > 0 else None,
            "==": False if v > 0 else None, "!=": True if v > 0 else None}[op]


__all__ = ["at_zero", "decide", "direction"]
