"""Comparisons of dims: ints, sympy expressions, a light check's names (``compare_values`` compares
the notation's other values: shapes, index arrays, sets, floats).

Two ints compare as Python does; symbols by sympy's assumptions where they decide it, and
otherwise the comparison is a ``Cond`` holding one readable relation (``make_rel``).

>>> from shapecheck.dims import symbol
>>> compare_dims(3, "<", 4), [str(r) for r in compare_dims(symbol("N"), "==", 4).rels]
(True, ['N == 4'])
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

from ..dims import Name, Poly, monotone, normalize_dim, undefined
from ..dims.light_order import FLIP
from ..dims.rounding import ceilings_as_floors, floor_bounds, floor_offsets_out, halves_split, integral, monomial
from .relations import PYOP, Rel
from .logic import Cond
from .compare_light import REFLEXIVE, compare_names, compare_sums
from .probe import is_open

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

__all__ = ["compare_dims", "make_rel"]



def compare_dims(a, op: str, b):
    """Compare two dims: ints directly; the same dim on both sides at once; sums of products of
    dims by their terms (``_linear``); a relation with witnesses both ways (``probe``) is a Cond;
    sums of floors by their bounds; anything else (Min) by sympy's assumptions; what none decides
    is a Cond."""
    if type(a) is int and type(b) is int:
        return PYOP[op](a, b)
    if a is b:   # the same dim on both sides (data.shape[0] against updates.shape[0]): no sympy arithmetic
        return op in REFLEXIVE
    if type(a) is Poly or type(b) is Poly:
        return compare_sums(a, op, b)
    if type(a) is Name or type(b) is Name:
        return compare_names(a, op, b)
    return _compare_symbolic(a, op, b)


@lru_cache(maxsize=1 << 16, typed=True)
def _compare_symbolic(a, op: str, b):
    # a large model asks the same few questions (N >= 1, M <= N) thousands of times; the key is the
    # two sides with their types (2 and 2.0 make different relation texts) and the operator: the
    # answer depends on nothing else (a symbol carries its assumptions, a Dummy its identity)
    signed = _product_sign(a, op, b)
    if signed is not None:
        return signed
    d = floor_offsets_out(ceilings_as_floors(sympy.expand(sympy.sympify(a) - sympy.sympify(b))))
    if not d.is_Integer:   # floor(h/4) as floor(h/8) + floor(h/8 + 1/2) beside floor(h/8): zero, or d as it was
        split = halves_split(d)
        d = split if split.is_Integer else d
    if d.is_Integer:
        return PYOP[op](int(d), 0)
    if undefined(d):
        return False   # undefined here (0/0: a Reshape's -1 over an empty tensor), which the runtime refuses
    known = _linear(d, op) if op not in ("==", "!=") else _residue(d, op)
    if known is None and op in ("==", "!="):
        known = _linear(d, op)
    if known is True or known is False:
        return known
    if known is _OPEN or is_open(d, op):   # witnesses both ways: a condition, whatever else is tried
        return Cond((make_rel(op, a, b),))
    bounds = floor_bounds(d) if d.has(sympy.floor) else None
    if bounds is not None:
        # a sum of floors: its floor-free bounds decide what sympy's assumptions would (and more,
        # in a fraction of their milliseconds); what they leave open is a condition
        known = _by_bounds(d, bounds, op)
        known = known if known is not None else monotone.decide(d, op)   # least (or largest) at 0
        return known if known is not None else Cond((make_rel(op, a, b),))
    if op == "==":
        known = True if d.is_zero else (False if d.is_zero is False else None)
    elif op == "!=":
        known = False if d.is_zero else (True if d.is_zero is False else None)
    elif op == "<":
        known = True if d.is_negative else (False if d.is_nonnegative else None)
    elif op == "<=":
        known = True if d.is_nonpositive else (False if d.is_positive else None)
    elif op == ">":
        known = True if d.is_positive else (False if d.is_nonpositive else None)
    else:
        known = True if d.is_nonnegative else (False if d.is_negative else None)
    if known is None:
        known = monotone.decide(d, op)
    if known is not None:
        return known
    return Cond((make_rel(op, a, b),))


def _product_sign(a, op: str, b):
    """``a >= 0`` (or ``a < 0``) for a product of factors each at least 0, compared before it is
    expanded (``(2*floor((h - 1)/32) + 2)*(2*floor((w - 1)/32) + 2) >= 0``), or a sum of such products
    with positive coefficients and a constant at least 0 (``(P + 1)*(Q + 1) + 1``: ``> 0`` too when the
    constant is positive); None where not so."""
    if a == 0 and op in ("<=", ">", ">=", "<") and b != 0:
        return _product_sign(b, FLIP[op], a)
    if b != 0 or op not in (">=", "<", ">", "<=") or not (getattr(a, "is_Mul", False) or getattr(a, "is_Add", False)):
        return None
    const, rest = a.as_coeff_Add()   # a product is its own one term, with no constant
    if const < 0 or not all(_nonnegative_term(t) for t in sympy.Add.make_args(rest)):
        return None
    # a >= 0, and a >= const > 0 when the constant is positive
    return {">=": True, "<": False, ">": True if const > 0 else None, "<=": False if const > 0 else None}[op]


def _nonnegative_term(t) -> bool:
    """A positive number times factors each at least 0 (a product is not expanded here)."""
    c, m = t.as_coeff_Mul()
    return c > 0 and all(compare_dims(f, ">=", 0) is True for f in sympy.Mul.make_args(m))


def _residue(d, op: str):
    """``d == 0`` (or ``!=``) decided where every term but the constant is an integer multiple of
    an integer-valued dim, and the constant is not a multiple of their gcd: ``2*floor(h/32) + 1``
    is odd, never 0.  None where not so.

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> _residue(2 * sympy.floor(h / 32) + 1, "=="), _residue(21 * sympy.floor(h / 2) * h + 20, "!="), _residue(h - 1, "==")
    (False, True, None)
    """
    k, rest = d.as_coeff_Add()
    if rest == 0 or not k.is_Rational:
        return None
    coeffs = []
    for t in sympy.Add.make_args(rest):
        c, m = t.as_coeff_Mul()
        if not c.is_Integer or not integral(m):
            return None
        coeffs.append(int(c))
    if not k.is_Integer or int(k) % math.gcd(*coeffs):
        return op == "!="
    return None


def _by_bounds(d, bounds: tuple, op: str):
    """``d op 0`` decided from floor-free bounds ``lo <= d <= hi`` (``rounding.floor_bounds``), or None.

    >>> from shapecheck.dims import symbol
    >>> from shapecheck.dims.rounding import floor_bounds
    >>> f = symbol("frames")
    >>> d, e = sympy.floor((f - 1) / 4) + 2, sympy.floor((f - 1) / 4) + 1
    >>> _by_bounds(d, floor_bounds(d), "!="), _by_bounds(e, floor_bounds(e), ">="), _by_bounds(e, floor_bounds(e), ">")
    (True, True, None)
    >>> z = sympy.floor(f / 40 - sympy.Rational(1, 2)) - sympy.floor(f / 40 - sympy.Rational(3, 2)) - 1
    >>> _by_bounds(z, floor_bounds(z), "=="), _by_bounds(z, floor_bounds(z), "!=")
    (True, False)
    """
    lo, hi = bounds
    step = 1 if integral(d) else 0   # an integer above -1 is at least 0, one below 1 at most 0
    positive = _compare_symbolic(lo, ">", 0) is True
    nonnegative = positive or _compare_symbolic(lo + step, ">" if step else ">=", 0) is True
    negative = _compare_symbolic(hi, "<", 0) is True
    nonpositive = negative or _compare_symbolic(hi - step, "<" if step else "<=", 0) is True
    zero = nonnegative and nonpositive   # an integer strictly between -1 and 1 (floor(x - 1/2) - floor(x - 3/2) - 1)
    decided = {"==": False if positive or negative else (True if zero else None),
               "!=": True if positive or negative else (False if zero else None),
               ">": True if positive else (False if nonpositive else None),
               ">=": True if nonnegative else (False if negative else None),
               "<": True if negative else (False if nonnegative else None),
               "<=": True if nonpositive else (False if positive else None)}
    return decided[op]


_OPEN = object()   # the relation holds for some dims and not for others


def _terms(d, scaled: bool = False) -> tuple[int, dict] | None:
    """``d = k + c1*m1 + ...`` with each ``m`` a monomial of nonnegative integer dims, as
    ``(k, {m1: c1, ...})``; None for anything else (Min, floor, a rational coefficient).
    With ``scaled``, rational coefficients are allowed and all are multiplied by the least
    common multiple of their denominators (a positive factor: the sign of ``d`` is kept)."""
    k, coeffs = 0, {}
    items = d.as_coefficients_dict().items()
    if scaled:
        if not all(c.is_Rational for _t, c in items):
            return None
        lcm = math.lcm(*(int(c.q) for _t, c in items)) if items else 1
        if lcm != 1:
            items = [(t, c * lcm) for t, c in items]
    for term, c in items:
        if not c.is_Integer:
            return None
        if term == 1:
            k = int(c)
        elif monomial(term):
            coeffs[term] = int(c)
        else:
            return None
    return k, coeffs


def _linear(d, op: str):
    """``d op 0`` decided for a polynomial ``d = k + c1*m1 + ...`` in nonnegative integer dims,
    without sympy's assumptions (which cost milliseconds on such sums): True, False, ``_OPEN``
    (true for some dims, false for others), or None where this reasoning does not settle it.

    Each monomial is 0 at zero dims and grows without bound, so with every coefficient
    positive, d is k at zero dims and takes arbitrarily large values.

    >>> from shapecheck.dims import symbol
    >>> n, m = symbol("N"), symbol("M")
    >>> _linear(n + 1, ">"), _linear(n - 1, "==") is _OPEN, _linear(2 * n - 2 * m + 1, "=="), _linear(n * m - 2, "==")
    (True, True, False, None)
    >>> _linear(n / 4 + sympy.Rational(3, 4), ">"), _linear(n / 2 - m / 2 + sympy.Rational(1, 4), "==")
    (True, False)
    """
    terms = _terms(d, scaled=True)
    if terms is None or not terms[1]:
        return None
    k, coeffs = terms
    if all(c < 0 for c in coeffs.values()):   # -d has positive coefficients: the same question, mirrored
        k, coeffs, op = -k, {m: -c for m, c in coeffs.items()}, FLIP[op]
    cs = list(coeffs.values())
    if any(c < 0 for c in cs):                  # both signs
        g = math.gcd(*cs)
        linear = all(m.is_Symbol for m in coeffs)
        if op in ("==", "!="):
            if k % g:                             # every value is k modulo g: never 0
                return op == "!="
            # 0 at zero dims when k is 0 (and a nonzero polynomial is not 0 everywhere); for
            # distinct dims, d takes every value k + g*t
            return _OPEN if (linear or k == 0) else None
        return _OPEN if linear else None
    # every coefficient positive: d is k at zero dims and grows without bound
    if op in ("==", "!="):
        if k > 0 or k % math.gcd(*cs):   # every value is k modulo the coefficients' gcd
            return op == "!="
        # k <= 0: 0 is reached at zero dims, or with one dim s alone in its term (c*s == -k, the rest 0)
        alone = [c for m, c in coeffs.items() if m.is_Symbol and all(
            m not in o.free_symbols for o in coeffs if o is not m)]
        return _OPEN if k == 0 or any(-k % c == 0 for c in alone) else None
    if op == "<":
        return False if k >= 0 else _OPEN
    if op == "<=":
        return False if k > 0 else _OPEN
    if op == ">":
        return True if k > 0 else _OPEN
    return True if k >= 0 else _OPEN       # ">="


def make_rel(op: str, a, b) -> Rel:
    """A relation in a readable form: one symbol alone on the left when that is possible.

    >>> from shapecheck.dims import symbol
    >>> str(make_rel("<=", 3, symbol("N") - 1)), str(make_rel("==", 12 * symbol("N"), 12 * symbol("M")))
    ('N >= 4', 'N == M')
    """
    a, b = sympy.sympify(a), sympy.sympify(b)
    d = sympy.expand(a - b)
    terms = _terms(d)
    if terms is not None and len(terms[1]) == 1:   # c*s + k op 0, read off without sympy's coeff()
        k, ((s, c),) = terms[0], tuple(terms[1].items())
        if s.is_Symbol and k % c == 0:
            return Rel(op if c > 0 else FLIP[op], s, -k // c)
    if terms is not None and terms[1] and all(m.is_Symbol for m in terms[1]):
        # 12*N - 12*M op 0 -> N op M, from the linear terms (what the general case below does with
        # sympy's content and signs, at a fraction of the cost)
        k, cs = terms
        g = math.gcd(k, *cs.values())
        pos = [c // g * m for m, c in cs.items() if c > 0] + ([k // g] if k > 0 else [])
        neg = [-c // g * m for m, c in cs.items() if c < 0] + ([-k // g] if k < 0 else [])
        if pos and neg:
            lhs, rhs = sympy.Add(*pos), sympy.Add(*neg)
            if lhs.is_Integer:
                return Rel(FLIP[op], normalize_dim(rhs), normalize_dim(lhs))
            return Rel(op, normalize_dim(lhs), normalize_dim(rhs))
    syms = d.free_symbols
    if len(syms) == 1:
        s = next(iter(syms))
        coeff = d.coeff(s)
        rest = sympy.expand(d - coeff * s)
        if coeff in (1, -1) and rest.is_Integer:
            # coeff*s + rest  op  0
            value = normalize_dim(-rest * coeff)
            return Rel(op if coeff == 1 else FLIP[op], s, value)
    if d.is_Add and not any(isinstance(t, (sympy.Min, sympy.Max)) for t in d.atoms(sympy.Min, sympy.Max)):
        # 12*N - 12*M op 0 -> N op M: the common factor out, positive terms left, negative right
        content, prim = d.as_content_primitive()
        if content > 0 and prim.is_Add:
            pos = [t for t in prim.args if t.could_extract_minus_sign() is False]
            neg = [-t for t in prim.args if t.could_extract_minus_sign()]
            if pos and neg and len(pos) + len(neg) == len(prim.args):
                lhs, rhs = sympy.Add(*pos), sympy.Add(*neg)
                if lhs.is_Integer:
                    return Rel(FLIP[op], normalize_dim(rhs), normalize_dim(lhs))
                return Rel(op, normalize_dim(lhs), normalize_dim(rhs))
    if not a.free_symbols and b.free_symbols:
        return Rel(FLIP[op], normalize_dim(b), normalize_dim(a))
    return Rel(op, normalize_dim(a), normalize_dim(b))
