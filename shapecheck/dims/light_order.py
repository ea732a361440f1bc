"""Order of a light check's dims (``dims/light.py``): ``d op 0`` where it holds or fails for every
value of the names, as the full check decides it; everything else needs algebra.

Names are integers >= 0.  When every coefficient of ``d`` but its constant ``k`` is positive, ``d``
is ``k`` where the names are 0 and grows without bound, so ``d >= 0`` holds exactly when ``k >= 0``
does (and mirrored for negative coefficients).  ``residues`` also decides ``d == 0`` false when ``k``
is not a multiple of the coefficients' gcd (``2*N - 2*M + 1``), as ``notation.compare`` does;
sympy's assumptions, which elementwise comparisons of values use, do not.

>>> from shapecheck.dims.light import Name
>>> n, m = Name("N"), Name("M")
>>> decide(2 * n + 1, ">"), decide(n * m, ">="), decide(-n - 1, "<"), decide(2 * n - 2 * m + 1, "==", residues=True)
(True, True, True, False)
>>> decide(n - 1, ">=")
Traceback (most recent call last):
...
shapecheck.dims.light.NeedsAlgebra: N - 1 >= 0: a light check decides only what holds for every value of its names
"""
from __future__ import annotations

import math
from typing import Any

from .light import LIGHT, NeedsAlgebra, terms_of

FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def decide(d: Any, op: str, residues: bool = False) -> bool:
    """``d op 0`` for an int or a light dim ``d`` (a ``Name`` or a ``Poly``), or ``NeedsAlgebra``."""
    if type(d) is int:
        return _ON_INTS[op](d)
    if type(d) not in LIGHT:
        raise NeedsAlgebra(f"{d} {op} 0: not a light dim")
    terms = terms_of(d)
    k = terms.get((), 0)
    cs = [c for m, c in terms.items() if m]
    if residues and op in ("==", "!=") and k % math.gcd(*cs):   # every value is k modulo the gcd: never 0
        return op == "!="
    side = op
    if all(c < 0 for c in cs):   # -d has positive coefficients: the same question, mirrored
        k, side = -k, FLIP[op]
    elif any(c < 0 for c in cs):
        side = ""
    # every coefficient positive: d is k where the names are 0 and grows without bound
    known = {"==": False if k > 0 else None, "!=": True if k > 0 else None, "<": False if k >= 0 else None,
             "<=": False if k > 0 else None, ">": True if k > 0 else None, ">=": True if k >= 0 else None,
             "": None}[side]
    if known is None:
        raise NeedsAlgebra(f"{d} {op} 0: a light check decides only what holds for every value of its names")
    return known


_ON_INTS = {"==": lambda d: d == 0, "!=": lambda d: d != 0, "<": lambda d: d < 0, "<=": lambda d: d <= 0,
            ">": lambda d: d > 0, ">=": lambda d: d >= 0}


def sign(d: Any) -> int | None:
    """What sympy's assumptions give as the sign of a light dim: 1 where it is positive for every
    value of the names, -1 where negative, 0 where it is at least 0 and may be 0, None where it takes
    both signs (then no assumption can hold) or is at most 0 and may be 0; ``NeedsAlgebra`` where
    its coefficients have both signs (sympy may find more there).

    >>> from shapecheck.dims.light import Name
    >>> n = Name("N")
    >>> sign(n + 1), sign(2 * n), sign(n - 1), sign(-n - 1), sign(-n)
    (1, 0, None, -1, None)
    """
    if type(d) not in LIGHT:
        raise NeedsAlgebra(f"the sign of {d}: not a light dim")
    terms = terms_of(d)
    k = terms.get((), 0)
    cs = [c for m, c in terms.items() if m]
    if all(c > 0 for c in cs):
        return 1 if k > 0 else 0 if k == 0 else None
    if all(c < 0 for c in cs):
        return -1 if k < 0 else None
    raise NeedsAlgebra(f"the sign of {d}: a light check decides only one sign of coefficients")


def least(a: Any, b: Any, op: str = "<=") -> Any:
    """``Min(a, b)`` (``op`` "<=") or ``Max(a, b)`` (">=") of dims one of which is light, where one is
    that for every value of the names (``Min(N, N + 1)`` is N, ``Min(N, 0)`` is 0); else ``NeedsAlgebra``.

    >>> from shapecheck.dims.light import Name
    >>> n = Name("N")
    >>> least(n, n + 1), least(n, 0), least(2 * n, n, ">=")
    (N, 0, 2*N)
    """
    try:
        return a if decide(a - b, op) else b
    except NeedsAlgebra:
        if decide(b - a, op):
            return b
        raise


__all__ = ["decide", "least", "sign", "FLIP"]
