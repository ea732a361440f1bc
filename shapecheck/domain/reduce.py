"""Relations over several dims made smaller under the dims' bounds.

``batch*seq == 16*batch`` is ``seq == 16`` for every ``batch >= 1``: a factor that is never 0
(or, for an inequality, always positive) is divided out.  A disjunction loses the alternatives
no allowed value meets, and is true when one of them always holds.  What is left is equivalent
to the relation for every allowed value of its dims.

>>> from shapecheck.dims import symbol
>>> b, s = symbol("batch"), symbol("seq")
>>> str(reduce_relation(Rel("==", b * s, 16 * b), {b: (1, None, 1), s: (1, None, 1)}))
'seq == 16'
>>> reduce_relation(AnyOf(((Rel("==", b, 0),), (Rel(">=", s, 1), Rel(">=", b, 1)))), {b: (1, None, 1), s: (1, None, 1)})
True
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..dims import normalize_dim, rebuild, undefined
from ..notation import make_rel
from ..notation import AnyOf, Rel
from ..dims.light_order import FLIP
from .settle import always_ge

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

_FACTOR_TERMS = 16   # sums of at most this many terms are factored (sympy.factor): a few ms each


def reduce_relation(rel: Any, bounds: dict) -> Any:
    """``rel`` (a ``Rel`` or ``AnyOf``) made smaller under ``bounds`` (dim -> ``(lo, hi, step)``):
    a relation, True (always holds) or False (never)."""
    key = tuple(sorted(((s, b) for s, b in bounds.items() if s in rel.free_symbols), key=lambda x: x[0].name))
    return _reduce(rel, key)


@lru_cache(maxsize=4096)   # keyed by the relation and the bounds of its own dims: all it reads
def _reduce(rel: Any, bounds_key: tuple) -> Any:
    bounds = dict(bounds_key)
    if isinstance(rel, Rel):
        return _one(rel, bounds)
    alts = []
    for conj in rel.alts:
        parts = [_one(r, bounds) for r in conj]
        if any(p is False for p in parts):
            continue
        parts = [p for p in parts if p is not True]
        if not parts:
            return True
        alts.append(tuple(parts))
    if not alts:
        return False
    if len(alts) == 1 and len(alts[0]) == 1:
        return alts[0][0]
    return AnyOf(tuple(alts))


def _one(rel: Rel, bounds: dict) -> Any:
    """One relation with its never-zero (or positive) factors divided out; True or False where the
    bounds decide it.  A dim the bounds fix to one value is that value."""
    fixed = {s: b[0] for s, b in bounds.items() if b[1] is not None and b[0] == b[1]}
    if fixed:
        rel = Rel(rel.op, normalize_dim(rebuild(sympy.sympify(rel.lhs), fixed)),
                  normalize_dim(rebuild(sympy.sympify(rel.rhs), fixed)))
    d = sympy.expand(sympy.sympify(rel.lhs) - sympy.sympify(rel.rhs))
    if d.is_Number:
        return bool(_holds(rel.op, d))
    if not d.free_symbols <= set(bounds):
        return rel
    op = rel.op
    if op in ("==", "!="):
        if always_ge(d - 1, bounds) or always_ge(-d - 1, bounds):
            return op == "!="
    else:   # g >= 0 (or g > 0, strict)
        g, strict = (d if op in (">=", ">") else -d), op in (">", "<")
        if always_ge(g - 1 if strict else g, bounds):
            return True
        if always_ge(-g if strict else -g - 1, bounds):
            return False
    windows = _whole_windows(op, d, bounds)
    if windows is not None:
        return windows
    if d.is_Mul:
        factors = list(d.args)
    elif not d.is_Add or not _shared_factor(d):
        factors = [d]   # (factor_terms finds nothing to divide out: it costs ~15 ms on a sum of floors)
        if d.is_Add and len(d.args) <= _FACTOR_TERMS and len(d.free_symbols) > 1:
            # a product expanded (batch*P - P, a broadcast of batch*P against P): its factors, ~5 ms
            factored = sympy.factor(d)
            if factored.is_Mul and sum(not f.is_Number for f in factored.args) > 1:
                factors = list(factored.args)
    else:
        factored = sympy.factor_terms(d)
        factors = list(factored.args) if factored.is_Mul else [factored]
    keep = []
    for f in factors:
        base = f.base if f.is_Pow and f.exp.is_Integer and f.exp > 0 else f
        if f.is_Number:
            if f < 0:
                op = FLIP[op]
            continue
        if op in ("==", "!=") and (always_ge(base - 1, bounds) or always_ge(-base - 1, bounds)):
            continue
        if always_ge(f - 1, bounds):
            continue
        keep.append(base if op in ("==", "!=") else f)
    if not keep:   # a number times factors never 0 (or, for an inequality, each at least 1)
        return op in ("!=", ">", ">=")
    if len(keep) == len(factors):
        return _integral(op, d, rel)
    if len(keep) == 1:
        return _whole_windows(op, keep[0], bounds) or make_rel(op, keep[0], 0)
    return make_rel(op, sympy.Mul(*keep), 0)


def _ceiling_of(g: Any) -> tuple | None:
    """``(s, x, k)`` when the factor ``g`` is ``s*ceiling(x/k)`` for an integer-valued ``x`` and an
    integer ``k > 1``: ``ceiling(x/k)`` (``s = 1``, written also ``ceiling(y/k + c)``), or ``floor(-x/k)``,
    which is ``-ceiling(x/k)`` (how sympy writes it: ``s = -1``)."""
    if not isinstance(g, (sympy.ceiling, sympy.floor)):
        return None
    arg = g.args[0] if isinstance(g, sympy.ceiling) else -g.args[0]
    k = math.lcm(*[int(sympy.Rational(c).q) for c in arg.as_coefficients_dict().values() if c.is_Rational])
    x = sympy.expand(arg * k)
    if k > 1 and x.is_integer:
        return (1 if isinstance(g, sympy.ceiling) else -1), x, k
    return None


def _whole_windows(op: str, d: Any, bounds: dict) -> Any:
    """``k1*k2*...*ceiling(x1/k1)*ceiling(x2/k2)*... == x1*x2*...`` (``d``: one side minus the other),
    each ``x`` at least 0, as what it is: every ``x`` a multiple of its ``k`` -- ``k*ceiling(x/k)``
    is at least ``x``, equal only there -- or some ``x`` 0.  Windows padded to a whole number and
    then flattened (Swin's attention windows: ``16*ceiling(h/4)*ceiling(w/4) == h*w``) need exactly
    that.  ``!=`` is the negation.  None where ``d`` has another form.

    >>> from shapecheck.dims import symbol
    >>> h, w = symbol("h"), symbol("w")
    >>> str(_whole_windows("==", 16 * sympy.ceiling(h / 4) * sympy.ceiling(w / 4) - h * w, {h: (1, None, 1), w: (1, None, 1)}))
    '(h == 4*floor(h/4) and w == 4*floor(w/4))'
    """
    if op not in ("==", "!=") or not d.is_Add:
        return None
    for term in d.args:   # the padded product is one term, of either sign; the sizes' product, expanded, the rest
        if not term.has(sympy.ceiling, sympy.floor):
            continue
        found = _padded_product(term, d - term, bounds) or _padded_product(-term, term - d, bounds)
        if found is not None:
            return _multiples(op, *found, bounds)
    return None


def _multiples(op: str, xs: list, ks: list, bounds: dict) -> Any:
    """Every ``x`` a multiple of its ``k``, or some ``x`` that may be 0 is (``==``); the negation (``!=``),
    or None where it has no short form."""
    multiples = tuple(Rel("==", x, k * sympy.floor(x / k)) for x, k in zip(xs, ks))
    empty = tuple((Rel("==", x, 0),) for x in xs if not always_ge(x - 1, bounds))
    if op == "==":
        return AnyOf((*empty, multiples)) if empty or len(multiples) > 1 else multiples[0]
    if empty:
        return None   # not one of some x being 0 and another not a multiple: stated as it is
    return AnyOf(tuple((Rel("!=", r.lhs, r.rhs),) for r in multiples)) if len(multiples) > 1 else \
        Rel("!=", multiples[0].lhs, multiples[0].rhs)


def _padded_product(padded: Any, whole: Any, bounds: dict) -> tuple | None:
    """``(xs, ks)`` when ``padded + whole`` is ``k1*k2*...*ceiling(x1/k1)*... - x1*x2*...`` with every
    ``x`` at least 0 under ``bounds``; None otherwise."""
    coeff, factors = padded.as_coeff_mul()
    parts = [_ceiling_of(g) for g in factors]
    if not parts or any(p is None for p in parts):
        return None
    sign, xs, ks = math.prod(p[0] for p in parts), [p[1] for p in parts], [p[2] for p in parts]
    if coeff * sign != math.prod(ks) or sympy.expand(whole + math.prod(xs)) != 0:
        return None
    return (xs, ks) if all(always_ge(x, bounds) for x in xs) else None


def _shared_factor(d: Any) -> bool:
    """Whether every term of the sum ``d`` has a factor (a power's base) in common with the others."""
    def bases(t: Any) -> set:
        return {f.base if f.is_Pow else f for f in sympy.Mul.make_args(t.as_coeff_Mul()[1])}
    return bool(set.intersection(*(bases(t) for t in d.args)))


def _integral(op: str, d: Any, rel: Rel) -> Any:
    """``g*y + b op 0``, with ``y`` integer-valued and ``g`` the gcd of its integer coefficients, as
    ``y op' k`` with ``k`` the integer the rounding allows (``3*p - 5 >= 0`` is ``p >= 2``); ``rel``
    itself when there is nothing to divide or round, True or False when no integer decides it.

    >>> from shapecheck.dims import symbol
    >>> h, w = symbol("h"), symbol("w")
    >>> p = sympy.ceiling(h / 2) * sympy.ceiling(w / 2)
    >>> str(_integral(">=", 3 * p - 5, Rel(">=", 3 * p - 3, 2))), _integral("==", 2 * h - 3, None)
    ('ceiling(h/2)*ceiling(w/2) >= 2', False)
    """
    const, rest = d.as_coeff_Add()
    terms = sympy.Add.make_args(rest)
    coeffs = [t.as_coeff_Mul()[0] for t in terms]
    if rest == 0 or not const.is_Rational or not all(c.is_Integer for c in coeffs) or \
            not all(t.as_coeff_Mul()[1].is_integer for t in terms):
        return rel
    g = sympy.Integer(math.gcd(*[int(c) for c in coeffs]))
    if coeffs[0] < 0:
        g, op = -g, FLIP[op]
    if abs(g) == 1 and const.is_Integer:
        return rel
    y, k = sympy.expand(rest / g), -const / g      # y op k
    if op in ("==", "!="):
        return make_rel(op, y, k) if k.is_Integer else op == "!="
    bound = {">=": sympy.ceiling(k), ">": sympy.floor(k) + 1, "<=": sympy.floor(k), "<": sympy.ceiling(k) - 1}[op]
    return make_rel(">=" if op in (">=", ">") else "<=", y, bound)


def _holds(op: str, d: Any) -> bool:
    if undefined(d):   # 0/0 at these sizes: false (dims.undefined)
        return False
    return {"==": d == 0, "!=": d != 0, "<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0}[op]


__all__ = ["reduce_relation"]
