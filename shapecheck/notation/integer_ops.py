"""ONNX's integer arithmetic on dims: Div truncates toward zero, Mod takes the divisor's sign (or
the dividend's, with fmod), Pow truncates.  Exact on ints; on symbols exact where the sign
allows it (a length known to be >= 0 divides as floor), else a fresh unknown dim.

>>> from shapecheck.types import symbol
>>> w = symbol("w")
>>> div(-7, 2), mod(-7, 2), fmod(-7, 2), div(w, 2), div(6 * w, 3 * w)
(-3, 1, -1, floor(w/2), 2)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..rounding import floor_div, provably_nonnegative
from ..types import normalize_dim, unknown_dim
from .logic import EvalError
from .operators import int_like

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


def div(a, b):
    """Integer ``a / b`` as ONNX computes it: truncated toward zero."""
    if int_like(a) and int_like(b):
        if b == 0:
            raise EvalError("integer division by zero")
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q   # ONNX Div on integers truncates toward zero
    if int_like(b) and b > 0:
        a = sympy.sympify(a)
        if provably_nonnegative(a):
            return floor_div(a, b)
        if provably_nonnegative(a + b - 1):   # -b < a < 0 truncates to 0, where floor gives -1
            return normalize_dim(sympy.Max(0, floor_div(a, b)))
    elif not int_like(b):
        # a multiple of a symbolic divisor (27*B*H*W by 9*B): exact wherever the divisor is not 0,
        # and at 0 the division fails at run time, so no value is ever other than the quotient
        q = _exact_quotient(a, b)
        if q is not None:
            return q
    return unknown_dim("quotient")


def _exact_quotient(a, b):
    """``a / b`` when it is a polynomial with integer coefficients in the dims and their integer
    parts (floor, Min, Max of dims), so that it is an integer wherever ``b`` is not 0; else None."""
    num, den = sympy.fraction(sympy.cancel(sympy.sympify(a) / b))
    if den != 1:
        return None
    num = sympy.expand(num)
    if num.is_Integer:
        return int(num)
    try:
        poly = sympy.Poly(num)
    except sympy.PolynomialError:
        return None
    whole = all(g.is_Symbol or isinstance(g, (sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)) for g in poly.gens)
    return normalize_dim(num) if whole and all(c.is_Integer for c in poly.coeffs()) else None


def mod(a, b):
    """Integer ``Mod`` with fmod=0: the remainder takes the divisor's sign."""
    if int_like(a) and int_like(b):
        if b == 0:
            raise EvalError("integer modulo by zero")
        return a % b   # Mod with fmod=0 takes the divisor's sign, as Python does
    return unknown_dim("remainder")


def fmod(a, b):
    """Integer ``Mod`` with fmod=1: the remainder takes the dividend's sign."""
    if int_like(a) and int_like(b):
        if b == 0:
            raise EvalError("integer modulo by zero")
        return a - b * div(a, b)   # Mod with fmod=1 takes the dividend's sign, as C's fmod does
    return unknown_dim("remainder")


def power(a, b):
    """Integer ``Pow``: a negative exponent truncates toward zero, as onnxruntime does."""
    if int_like(b) and b >= 0:
        return a ** b if int_like(a) else normalize_dim(sympy.sympify(a) ** b)
    if int_like(a) and int_like(b) and a in (0, 1, -1):   # a negative power of 0 is inf, then an undefined cast
        return None if a == 0 else (1 if a == 1 or b % 2 == 0 else -1)
    if int_like(a) and int_like(b):
        return 0   # |a| > 1: onnxruntime truncates a ** b (in (-1, 1)) toward zero
    return unknown_dim("power")
