"""The broadcast of two symbolic dims: the one dim that is its result in every pair that broadcasts.

Two dims broadcast when they are equal or one of them is 1, and the result is then the other.
A dim is the result in every such pair when it can never be 1 (``2*ceil(H/2)``, even, against
``H``: they are equal, or ``H`` is 1), when the other is 0 or 1 whatever its symbols
(``Min(1, S)``), or when it is provably the larger and the one pair against it, itself 1 and the
other 0, cannot happen.  Where none of these is proved, which of the two it is depends on the
sizes, and the result is ``Max(a, b)*Min(1, a)*Min(1, b)``: in every pair that broadcasts that is the
other dim when one is 1, either when they are equal, and 0 when one is 0 (an empty input, the
other 0 or 1).  Under the model's facts (every input dim at least 1, by default) it settles to
``Max(a, b)``.  Only a dim that is not known at all (an unknown) gives None, and the caller makes a
fresh unknown dim.

>>> from shapecheck.dims import symbol
>>> H, S, M = symbol("H"), symbol("S"), symbol("M")
>>> broadcast_result(2 * sympy.floor(H / 2 - sympy.Rational(1, 2)) + 2, H)
2*floor(H/2 - 1/2) + 2
>>> broadcast_result(sympy.Min(64, S), S), broadcast_result(sympy.Min(1, S), 16), broadcast_result(M, S)
(S, 16*Min(1, S), Max(M, S)*Min(1, M)*Min(1, S))
>>> broadcast_result(M, M * sympy.Min(1, S)), broadcast_result((S + 1) * (M + 1), S * M + S + M + 1)
(M*Min(1, S), (M + 1)*(S + 1))
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .core import has_unknown, normalize_dim
from .rounding import ceilings_as_floors, floor_offsets_out, halves_split, integral, provably_nonnegative

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


def broadcast_result(a: Any, b: Any) -> Any:
    """The dim that the broadcast of the symbolic dims ``a`` and ``b`` is in every pair of their
    values that broadcasts, or None when that depends on the values."""
    for x, y in ((a, b), (b, a)):
        if zero_or_one(y):
            return normalize_dim(sympy.sympify(x) * y)   # y = 1: x; y = 0: valid only for x in {0, 1}, giving 0
        if isinstance(y, sympy.Mul) and x in y.args and zero_or_one(y / x):
            return y   # x against x*m, m in {0, 1}: x when m = 1; 0 = x*m when m = 0 (valid only for x in {0, 1})
    if has_unknown(a) or has_unknown(b):
        return None
    a, b = sympy.sympify(a), sympy.sympify(b)
    # one polynomial in two forms (a sum of products, expanded; a ceiling and the floor it equals);
    # two distinct symbols never are
    if not (a.is_Symbol and b.is_Symbol) and halves_split(floor_offsets_out(ceilings_as_floors(sympy.expand(a - b)))) == 0:
        return a
    for x, y in ((a, b), (b, a)):
        if never_one(x):
            return x   # equal, or y is 1: x either way
    top = sympy.Max(a, b)                  # sympy folds Max when it can order the two (Min(64, S) <= S)
    if top == b:
        small, large = a, b
    elif top == a:
        small, large = b, a
    else:
        return either(a, b)     # N vs M: N, M or either, by the condition
    if isinstance(large, sympy.Symbol):
        at_one = sympy.sympify(small).subs(large, 1)
        if at_one.is_number and at_one != 0:
            return large
    return either(a, b)


def either(a: Any, b: Any) -> Any:
    """The broadcast of ``a`` and ``b`` in every pair of their values that broadcasts, when which of
    the two it is depends on the values: the larger, or 0 where one is 0.

    >>> from shapecheck.dims import symbol
    >>> A, B = symbol("A"), symbol("B")
    >>> r = either(A, B)
    >>> [(a, b, r.subs({A: a, B: b})) for a, b in [(1, 5), (5, 1), (4, 4), (0, 1), (1, 0), (0, 0)]]
    [(1, 5, 5), (5, 1, 5), (4, 4, 4), (0, 1, 0), (1, 0, 0), (0, 0, 0)]
    """
    return sympy.Max(a, b) * sympy.Min(1, a) * sympy.Min(1, b)


def zero_or_one(d: Any) -> bool:
    """True for a dim that is 0 or 1 whatever its symbols: ``Min(1, N)`` (torch's ``x[:1]`` of a length).

    >>> from shapecheck.dims import symbol
    >>> zero_or_one(sympy.Min(1, symbol("N"))), zero_or_one(symbol("N"))
    (True, False)
    """
    return (isinstance(d, sympy.Min) and any(x.is_number and 0 <= x <= 1 for x in d.args)
            and all(x.is_nonnegative for x in d.args))


def never_one(d: Any) -> bool:
    """True when the dim expression ``d`` is not 1 for any non-negative integer values of its
    symbols: a multiple of an integer of at least 2 (each term an integer coefficient times an
    integer-valued factor, ``2*floor(H/2 - 1/2) + 2``), or provably at least 2.  False where unsure.

    >>> from shapecheck.dims import symbol
    >>> H = symbol("H")
    >>> never_one(2 * sympy.ceiling(H / 2)), never_one(4 * H + 2), never_one(H + 2), never_one(2 * H + 1)
    (True, True, True, False)
    """
    e = ceilings_as_floors(sympy.expand(sympy.sympify(d)))
    if e.is_Integer:
        return e != 1
    if not integral(e):
        return False
    coefficients = []
    for term, c in e.as_coefficients_dict().items():
        if not c.is_Integer or not (term == 1 or integral(term)):
            break
        coefficients.append(int(c))
    else:
        if math.gcd(*coefficients) >= 2:
            return True
    return provably_nonnegative(e - 2)


__all__ = ["broadcast_result", "either", "never_one", "zero_or_one"]
