"""Witnesses that a relation over dims is open: true for some dims and false for others.

Before the costlier reasoning (bounds, sympy's assumptions), ``d op 0`` is evaluated at a few
points (every dim 0, 1, 2, 3, 4, 7, 16 or 64, and mixed).  A point where it holds and one where it fails prove
that the relation depends on the dims, so it is a condition; nothing is decided from points
alone.  Every dim is a non-negative integer with no other bound, except a run-time size, which
has an upper bound: a relation over one is not probed.

>>> from shapecheck.dims import symbol
>>> n = symbol("N")
>>> is_open(sympy.floor((n - 1) / 4) + 1, "=="), is_open(n + 1, ">")
(True, False)
>>> is_open(symbol("D") - sympy.floor(n / 4) * sympy.floor(n / 2) - 2, "==")
True
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..dims import is_runtime
from .relations import PYOP

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

_VALUES = (0, 1, 2, 3, 4, 7, 16, 64)


def is_open(d: Any, op: str) -> bool:
    """True when ``d op 0`` holds at one probed point and fails at another."""
    syms = sorted(d.free_symbols, key=lambda s: s.name)
    if not syms or any(is_runtime(s) for s in syms):
        return False
    if op in ("==", "!=") and _solvable(d, syms):
        return True
    seen: set[bool] = set()
    for point in _points(len(syms)):
        v = value(d, dict(zip(syms, point)))
        if v is None:
            return False   # something these values do not evaluate: leave it to the reasoning
        seen.add(PYOP[op](v, 0))
        if len(seen) == 2:
            return True
    return False


def value(e: Any, env: dict) -> Fraction | None:
    """``e`` at the dims ``env`` (symbol -> int), in exact arithmetic without building sympy
    expressions; None for a form it does not know.

    >>> from shapecheck.dims import symbol
    >>> n = symbol("N")
    >>> value(sympy.Max(0, sympy.floor((n - 1) / 4)) + n ** 2, {n: 9})
    Fraction(83, 1)
    """
    if e.is_Integer:
        return Fraction(int(e))
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Symbol:
        x = env.get(e)
        return None if x is None else Fraction(x)
    args = [value(a, env) for a in e.args] if not e.is_Pow else [value(e.base, env)]
    if any(a is None for a in args):
        return None
    if e.is_Add:
        return sum(args, Fraction(0))
    if e.is_Mul:
        out = Fraction(1)
        for a in args:
            out *= a
        return out
    if e.is_Pow:
        k = e.exp
        return args[0] ** int(k) if k.is_Integer and (k >= 0 or args[0] != 0) else None
    kind = _kinds().get(type(e))
    return None if kind is None else Fraction(kind(args))


def _solvable(d: Any, syms: list) -> bool:
    """``d == 0`` at some dims and not at others, when one dim ``s`` stands alone in ``d`` with
    coefficient 1 or -1 (``d = +-s + R``, ``R`` free of ``s``): at the other dims' probe values
    ``s = -+R`` is a witness for ``==`` if it is a non-negative integer, and ``s`` one more is one
    against.  (``Addhidden_dim_1 == floor(frames/4 - 1/4) + 1``, a declared name against a formula.)"""
    terms = d.as_coefficients_dict()
    for s in syms:
        c = terms.get(s)
        if c not in (1, -1) or any(s in t.free_symbols for t in terms if t is not s):
            continue
        rest = d - c * s
        others = [x for x in syms if x is not s]
        for point in _points(len(others)):
            r = value(rest, dict(zip(others, point)))
            if r is not None and r.denominator == 1 and -c * r >= 0:
                return True
    return False


@lru_cache(maxsize=None)   # no arguments: a constant table
def _kinds() -> dict:
    """How each rounding and order function evaluates on numbers (built once sympy is imported)."""
    return {sympy.floor: lambda a: math.floor(a[0]), sympy.ceiling: lambda a: math.ceil(a[0]), sympy.Min: min,
            sympy.Max: max}


def _points(n: int):
    for x in _VALUES:
        yield (x,) * n
    if n > 1:
        yield tuple(64 if i % 2 else 0 for i in range(n))
        yield tuple(0 if i % 2 else 64 for i in range(n))


__all__ = ["is_open", "value"]
