"""Floors and ceilings of dims: built as sympy builds them but without its assumption queries
(``floor_of``, ``ceiling_of``); a floor of a floor taken in (``floor_div``); floor-free bounds
on a sum of floors (``floor_bounds``); signs through them (``provably_nonnegative``);
integer-valued by structure (``integral``).

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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

from .core import normalize_dim


__all__ = ["floor_of", "ceiling_of", "floor_div", "ceilings_as_floors", "floor_offsets_out", "halves_split", "floor_bounds", "floor_argument", "provably_nonnegative",
           "polynomial_sign", "integral", "monomial"]


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
    if integral(t):   # by its structure (sympy's assumption queries cost ~0.1 ms each)
        return True
    if t.is_Rational:
        return False
    return t.is_integer is True


def floor_div(a: Any, s: int) -> Any:
    """``floor(a / s)`` for a dim ``a`` and an int ``s > 0``, with a floor inside ``a`` taken in:
    ``floor((floor(x/m) + c) / s) == floor((x + c*m) / (m*s))`` for an integer ``c``, so that
    two strided convolutions give the one floor that a single stride of 4 does.

    >>> from shapecheck.dims import symbol
    >>> f = symbol("frames")
    >>> floor_div(sympy.floor((f - 1) / 2), 2), floor_div(sympy.floor((f - 1) / 2) + 1, 2), floor_div(7, 2)
    (floor(frames/4 - 1/4), floor(frames/4 + 1/4), 3)
    """
    if type(a) is int:
        return a // s
    a = sympy.sympify(a)
    floors = [t for t in sympy.Add.make_args(a) if isinstance(t, sympy.floor)]
    if len(floors) == 1:
        rest = a - floors[0]
        num, m = sympy.fraction(sympy.together(floors[0].args[0]))
        if m.is_Integer and m > 0 and rest.is_integer and not rest.has(sympy.floor, sympy.ceiling):
            return _normalize(floor_of(sympy.expand(num + m * rest) / (m * s)))
    return _normalize(floor_of(a / s))


def ceilings_as_floors(d: Any) -> Any:
    """``d`` with each ``ceiling(p/k)`` of an integer ``p`` and an integer ``k > 0`` written as the
    floor it equals, ``floor((p + k - 1)/k)``, taken in by ``floor_div``: a padding that rounds up
    and a pool that rounds a half then compare as one floor (Swin's ``ceiling(floor(h/4)/2)`` is
    ``floor(h/8 + 1/2)``).  The same ``d`` where it has no such ceiling.

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> ceilings_as_floors(sympy.ceiling(sympy.floor(h / 4) / 2)), ceilings_as_floors(sympy.ceiling(h / 3) + 1)
    (floor(h/8 + 1/2), floor(h/3 + 2/3) + 1)
    """
    if not isinstance(d, sympy.Basic) or not d.has(sympy.ceiling):
        return d
    swap = {}
    for c in d.atoms(sympy.ceiling):
        num, k = sympy.fraction(sympy.together(c.args[0]))
        if k.is_Integer and k > 0 and integral(sympy.expand(num)):
            swap[c] = floor_div(sympy.expand(num) + k - 1, int(k))
    return sympy.expand(d.xreplace(swap)) if swap else d


def floor_offsets_out(d: Any) -> Any:
    """``d`` with each ``floor(p + c)``, ``c`` a number outside ``[0, 1)``, written ``floor(p + c - n) + n``
    (``n = floor(c)``, an integer): two floors of one ``p`` are then one floor and integers, so that
    their difference expands to a number (``floor(h/8 - 9/8)`` is ``floor(h/8 + 7/8) - 2`` and
    ``floor(h/8 - 1/8)`` is ``floor(h/8 + 7/8) - 1``: a stride-2 convolution, its pool and an
    upsample give ``(a - 2)*(b - 2) + a + b - 3`` and ``(a - 1)*(b - 1)``, equal).  The same ``d``
    where no floor has such a constant.

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> floor_offsets_out(floor_of(h / 8 - sympy.Rational(9, 8)) - floor_of(h / 8 - sympy.Rational(1, 8)))
    -1
    """
    if not isinstance(d, sympy.Basic) or not d.has(sympy.floor):
        return d
    swap = {}
    for f in d.atoms(sympy.floor):
        c, rest = f.args[0].as_coeff_Add()
        if c.is_Rational and (c < 0 or c >= 1) and rest != 0:
            n = math.floor(sympy.Rational(c))
            swap[f] = floor_of(rest + (c - n)) + n
    return sympy.expand(d.xreplace(swap)) if swap else d


def halves_split(d: Any) -> Any:
    """``d`` with each ``floor(z)`` whose half's floor ``floor(z/2)`` is in ``d`` too written
    ``floor(z/2) + floor(z/2 + 1/2)`` (Hermite's identity, ``floor(2y) = floor(y) + floor(y + 1/2)`` for
    every real ``y``): a Swin patch merge's ``floor(h/4) - floor(h/8)`` tokens along an axis are then the
    ``floor(h/8 + 1/2)`` its padding gives.  The same ``d`` where no floor has its half beside it.

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> halves_split(floor_of(h / 4) - floor_of(h / 8) - floor_of(h / 8 + sympy.Rational(1, 2)))
    0
    """
    if not isinstance(d, sympy.Basic) or not d.has(sympy.floor):
        return d
    atoms = d.atoms(sympy.floor)
    swap = {}
    for f in atoms:
        half = floor_of(f.args[0] / 2)
        if half in atoms:
            swap[f] = half + floor_of(f.args[0] / 2 + sympy.Rational(1, 2))
    return floor_offsets_out(sympy.expand(d.xreplace(swap))) if swap else d


def floor_bounds(d: Any) -> tuple[Any, Any] | None:
    """``(lo, hi)``, floor-free, with ``lo <= d <= hi`` for every value of the dims; None when ``d``
    is not a sum of terms free of floors and of ``c*floor(p/q)`` (``p`` with integer coefficients,
    ``q`` an int).  For an integer ``p``: ``(p - q + 1)/q <= floor(p/q) <= p/q``.

    >>> from shapecheck.dims import symbol
    >>> f = symbol("frames")
    >>> floor_bounds(sympy.floor((f - 1) / 4) + 2)
    (frames/4 + 1, frames/4 + 7/4)
    """
    lo: list = []
    hi: list = []
    for term, c in sympy.sympify(d).as_coefficients_dict().items():
        if not term.has(sympy.floor):
            lo.append(c * term)
            hi.append(c * term)
            continue
        if not isinstance(term, sympy.floor) or not c.is_Rational:
            return None
        pq = floor_argument(term)
        if pq is None:
            return None
        q = pq[1]
        x = term.args[0]
        below, above = x - sympy.Rational(q - 1, q), x
        lo.append(c * (below if c > 0 else above))
        hi.append(c * (above if c > 0 else below))
    return sympy.expand(sympy.Add(*lo)), sympy.expand(sympy.Add(*hi))


def floor_argument(f: Any) -> tuple[Any, int] | None:
    """``(p, q)`` for ``floor(p/q)``: ``q`` the common denominator of the argument's rational
    coefficients (read off its terms; sympy's ``together`` and ``Poly`` cost milliseconds), ``p``
    a polynomial with integer coefficients in the dims; None for any other argument.

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> floor_argument(sympy.floor((h - 1) / 4)), floor_argument(sympy.floor(sympy.Min(h, 3) / 2))
    ((h - 1, 4), None)
    """
    parts = f.args[0].as_coefficients_dict()
    if not all(k.is_Rational and (t == 1 or monomial(t)) for t, k in parts.items()):
        return None
    q = math.lcm(*(int(k.q) for k in parts.values()))
    return sympy.expand(f.args[0] * q), q


def provably_nonnegative(a: Any) -> bool:
    """True when the dim expression ``a`` is provably >= 0, reading ``x - k*floor(x/k)`` as the
    remainder ``Mod(x, k)`` (torch's ``size % 2`` exports so, and sympy cannot tell its sign).

    >>> from shapecheck.dims import symbol
    >>> w = symbol("w")
    >>> provably_nonnegative(w - 2 * sympy.floor(w / 2)), provably_nonnegative(w - 3)
    (True, False)
    >>> provably_nonnegative(sympy.floor(w / 2) - 2 * sympy.floor(w / 4))
    True
    """
    e = sympy.sympify(a)
    sign = polynomial_sign(e)
    if sign is not None:
        return sign
    if e.is_nonnegative:
        return True
    bounds = floor_bounds(e) if e.has(sympy.floor) else None
    if bounds is not None and integral(e) and (bounds[0] + 1).is_positive:
        return True   # an integer above -1: floor(h/2) - 2*floor(h/4) >= (h - 1)/2 - h/2
    for f in e.atoms(sympy.floor):
        g, k = sympy.fraction(f.args[0])
        if k.is_Integer and k > 0 and e.coeff(f) == -k:
            rest = sympy.expand(e - (g - k * f))
            if not rest.has(f) and (rest == 0 or rest.is_nonnegative):
                return True
    return False


def polynomial_sign(e: Any) -> bool | None:
    """Whether ``e``, a polynomial in non-negative integer dims, is >= 0 for every value of them, where
    its coefficients decide it: True when none is negative; False when one is and ``e`` is linear
    (that dim can grow, or every dim be 0); None otherwise (a ``Min``, a floor, a product with a
    negative coefficient).  Read off the terms, without sympy's assumption queries (milliseconds
    for each new expression).

    >>> from shapecheck.dims import symbol
    >>> n, m = symbol("N"), symbol("M")
    >>> polynomial_sign(2*n*m + n + 1), polynomial_sign(n - 57), polynomial_sign(n*m - n), polynomial_sign(sympy.Min(n, 3))
    (True, False, None, None)
    """
    terms = e.as_coefficients_dict()
    if not all(k.is_Rational and (t == 1 or monomial(t)) for t, k in terms.items()):
        return None
    if all(k >= 0 for k in terms.values()):
        return True
    return False if all(t == 1 or t.is_Symbol for t in terms) else None


def integral(e: Any) -> bool:
    """True when the dim expression ``e`` is an integer for every value of its dims, read off its
    structure: integer multiples of products of integer dims, floors, ceilings, and ``Min``/``Max``
    of such (sympy's ``is_integer`` on a sum calls ``Abs``: milliseconds).  False where unsure.

    >>> from shapecheck.dims import symbol
    >>> n = symbol("N")
    >>> integral(sympy.floor(n / 2) - 2 * sympy.Max(n, 3) + n ** 2), integral(n / 2)
    (True, False)
    """
    if e.is_Integer or (e.is_Symbol and e.is_integer) or isinstance(e, (sympy.floor, sympy.ceiling)):
        return True
    if e.is_Add or e.is_Mul or isinstance(e, (sympy.Min, sympy.Max)):
        return all(integral(a) for a in e.args)
    if e.is_Pow:
        return e.exp.is_Integer and e.exp >= 0 and integral(e.base)
    return False


def _dim_symbol(x: Any) -> bool:
    return x.is_Symbol and x.is_integer and x.is_nonnegative


def monomial(term: Any) -> bool:
    """A product of positive powers of non-negative integer dims (``N``, ``N*M``, ``N**2``).

    >>> from shapecheck.dims import symbol
    >>> n = symbol("N")
    >>> monomial(n * n * symbol("M")), monomial(sympy.floor(n / 2)), monomial(sympy.Integer(1))
    (True, False, False)
    """
    if term.is_Symbol:
        return _dim_symbol(term)
    factors = term.args if term.is_Mul else (term,)
    return all(_dim_symbol(f) or (f.is_Pow and _dim_symbol(f.base) and f.exp.is_Integer and f.exp > 0)
               for f in factors)


def _normalize(d: Any) -> Any:
    return normalize_dim(d)
