"""``floor`` and ``ceiling`` of dim expressions, built as sympy builds them but without its
assumption queries.

sympy's ``floor(x)`` splits an ``Add`` into integer terms (pulled out), numbers and the rest,
and asks the assumption system about ``x`` as a whole and about each term (is it an integer,
imaginary, finite): milliseconds per new expression, and a convolution or pool builds one per
spatial axis.  Dims are real, so most of those questions have known answers; the integer
terms of a sum of dims are read off its structure (an integer times integer symbols, floors,
``Min``/``Max`` of integers), and sympy is asked only about the terms that structure does not
settle.  The result is the very expression ``sympy.floor`` gives (``tests/test_rounding.py``
checks that on random sums), so dims built either way compare equal.

>>> from shapecheck.dims import symbol
>>> n, m = symbol("N"), symbol("M")
>>> floor_of((n - 1) / 4), floor_of(n / 2 + m + sympy.Rational(3, 2)), ceiling_of(n / 2 + 3)
(floor(N/4 - 1/4), M + floor(N/2 + 3/2), ceiling(N/2) + 3)
"""
from __future__ import annotations

import math
from typing import Any

import sympy

__all__ = ["floor_of", "ceiling_of"]


def floor_of(x: Any) -> Any:
    """``sympy.floor(x)`` for a real dim expression ``x``."""
    return _round(sympy.sympify(x), sympy.floor, math.floor)


def ceiling_of(x: Any) -> Any:
    """``sympy.ceiling(x)`` for a real dim expression ``x``."""
    return _round(sympy.sympify(x), sympy.ceiling, math.ceil)


def _round(x: sympy.Basic, fn: type, exact) -> Any:
    if x.is_Rational:
        return sympy.Integer(exact(sympy.Rational(x)))
    if not (x.is_Add or x.is_Mul or x.is_Symbol) or not _plain(x):
        return fn(x)   # a symbolic divisor (sympy bounds 1/(2*(M + 1)) below 1) or anything unusual
    ipart, npart, spart = [], [], []
    for t in sympy.Add.make_args(x):
        if _integer(t):
            ipart.append(t)
        elif t.is_Rational:
            npart.append(t)
        else:
            spart.append(t)
    if not spart:
        rest = sympy.Add(*npart)
        return sympy.Add(*ipart) + (sympy.Integer(exact(sympy.Rational(rest))) if npart else 0)
    return sympy.Add(*ipart) + fn(sympy.Add(*spart, *npart), evaluate=False)


def _plain(x: sympy.Basic) -> bool:
    """A sum of rational multiples of products of symbols and of integer-valued atoms (floors,
    ``Min``/``Max``): no symbol in a denominator, no constant sympy would evaluate."""
    for t in sympy.Add.make_args(x):
        for f in sympy.Mul.make_args(t):
            if f.is_Rational or f.is_Symbol:
                continue
            if f.is_Pow and f.base.is_Symbol and f.exp.is_Integer and f.exp > 0:
                continue
            if isinstance(f, (sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)) and f.free_symbols:
                continue
            return False
    return True


def _integer(t: sympy.Basic) -> bool:
    """Whether sympy calls the term ``t`` an integer: read off its structure where that is plain,
    else sympy's answer."""
    if t.is_Integer or (t.is_Symbol and t.is_integer):
        return True
    if t.is_Mul and all(f.is_Integer or (f.is_Symbol and f.is_integer) for f in t.args):
        return True
    if t.is_Rational:
        return False
    return t.is_integer is True
