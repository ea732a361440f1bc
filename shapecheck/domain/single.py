"""The exact set of values of one dim that satisfy a condition: proposed by sampling, then proved.

``truth_set(cond, s, lo, hi)`` is the set of integers ``x`` in ``[lo, hi]`` (``hi`` None:
unbounded) at which ``cond`` holds with ``s = x``, as a ``DimSet``; or None when it cannot be
proved.  Floors and ``Mod`` of ``s`` repeat with the period ``P`` of their denominators, so
each residue class ``s = lo + r + P*t`` is taken alone: there the floors are linear in ``t``.
For each class the truth value is sampled (every ``t`` up to 64, powers of two, the
condition's constants and their products), a change between two samples is found by
bisection, and then each piece is *proved* to keep its truth value: exhaustively where it is
short, else symbolically (``t = t0 + u`` with ``u >= 0``, and ``u = U - w`` from the top
for a bounded piece, the ``Min``/``Max`` settled and the relation compared by
``compare_dims``).  A piece that cannot be proved makes the answer None: nothing is claimed
that was only sampled.

>>> from shapecheck.dims import symbol
>>> from shapecheck.notation import AnyOf, Rel
>>> s, h = symbol("seq"), symbol("h")
>>> m = sympy.Min(512, s)
>>> truth_set(AnyOf(((Rel("==", m, s),), (Rel("==", m, 1),))), s, 1).text("seq")
'1 <= seq <= 512'
>>> truth_set(Rel("==", h, 2 * sympy.floor(h / 2)), h, 1).text("h"), truth_set(Rel("==", h, sympy.floor(h / 2)), h, 1)
('h % 2 == 0 and h >= 2', DimSet(pieces=()))
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..dims import normalize_dim, rebuild
from ..notation import compare_dims
from ..notation import AnyOf, Rel
from .evaluate import SMALL_RANGE, Unsupported, compile_dim, constants, denominators, holds
from .intset import DimSet, union

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

MAX_PERIOD = 64          # residue classes taken one by one at most
EXHAUST = 64             # a piece this short is proved by trying every value
_TOP = 1 << 62


@lru_cache(maxsize=4096)   # keyed by the condition (relations of normalized dims), the dim and its bounds: all it reads
def truth_set(cond: Any, s: Any, lo: int, hi: Optional[int] = None) -> Optional[DimSet]:
    """The values of ``s`` in ``[lo, hi]`` at which ``cond`` holds, proved; None if not proved."""
    try:
        f1 = holds(cond, (s,))
        period = denominators(cond)
        consts = constants(cond)
    except Unsupported:
        return None
    linear = _by_class(cond, s, f1, period, lo, hi) if period <= MAX_PERIOD else None
    if linear is not None:    # each side linear along each residue class: solved
        return linear
    if hi is not None and hi - lo <= SMALL_RANGE:      # a small range: every value tried
        try:
            return union([(x, x, 1) for x in range(lo, hi + 1) if _at(f1, x)])
        except Unsupported:
            return None
    if period > MAX_PERIOD:
        return None
    pieces = []
    for base, top in _classes(lo, hi, period):
        t = sympy.Dummy("t", integer=True, nonnegative=True)
        cond_t = _substitute(cond, s, base + period * t)
        whole = _decide(cond_t, t, top)   # the floors are linear in t: often one answer for the class
        if whole is not None:
            if whole:
                pieces.append((base, None if top is None else base + period * top, period))
            continue
        try:
            key = _key(cond_t, t)
            runs = _runs(key, top, consts, base, period)
        except Unsupported:
            return None
        for t0, t1, k in runs:
            if not _proved(cond_t, t, t0, t1, k[0], lambda x: key(x)[0]):
                return None
            if k[0]:
                pieces.append((base + period * t0, None if t1 is None else base + period * t1, period))
    return union(pieces)


def _classes(lo: int, hi: Optional[int], period: int) -> list[tuple[int, Optional[int]]]:
    """Each residue class of ``[lo, hi]`` as ``(base, top)``: its values are ``base + period*t``, ``t``
    from 0 to ``top`` (None: unbounded)."""
    return [(lo + r, None if hi is None else (hi - lo - r) // period)
            for r in range(period) if hi is None or lo + r <= hi]


def _by_class(cond: Any, s: Any, f1: Callable, period: int, lo: int, hi: Optional[int]) -> Optional[DimSet]:
    """The truth set, solved class by class, where along each residue class ``s = base + period*t``
    the condition is a relation between two linear functions of ``t`` (their slopes from ``_slope``,
    their values at ``t = 0`` computed): a relation, or relations whose sides rise alike; else None."""
    rels = [cond] if isinstance(cond, Rel) else [r for conj in cond.alts for r in conj] if isinstance(cond, AnyOf) \
        else list(cond)
    slopes = []
    for r in rels:
        a, b = _slope(r.lhs, s, period), _slope(r.rhs, s, period)
        if a is None or b is None:
            return None
        slopes.append(a - b)
    if not isinstance(cond, Rel) and any(c != 0 for c in slopes):
        return None
    try:
        gap = compile_dim(sympy.sympify(cond.lhs) - sympy.sympify(cond.rhs), (s,)) if isinstance(cond, Rel) else None
        pieces = []
        for base, top in _classes(lo, hi, period):
            if gap is None or slopes[0] == 0:
                ts = (0, top) if _at(f1, base) else None
            else:
                ts = _solve(cond.op, Fraction(gap((base,))), _fraction(slopes[0]), top)
            if ts is not None:
                pieces.append((base + period * ts[0], None if ts[1] is None else base + period * ts[1], period))
    except (Unsupported, ZeroDivisionError, OverflowError, ValueError, TypeError):
        return None
    return union(pieces)


def _fraction(x: Any) -> Fraction:
    return Fraction(x) if isinstance(x, int) else Fraction(int(x.p), int(x.q))


def _solve(op: str, g0: Fraction, c: Fraction, top: Optional[int]) -> Optional[tuple]:
    """The integers ``t`` in ``[0, top]`` with ``g0 + c*t op 0`` (``c != 0``), as ``(t0, t1)``; None if none.
    ``!=`` holds on all but one point: given up (None is never claimed for it, see the caller)."""
    if op in ("<", "<="):
        op, g0, c = {"<": ">", "<=": ">="}[op], -g0, -c
    root = -g0 / c
    if op == "==":
        lo_t = hi_t = int(root) if root.denominator == 1 else None
        if lo_t is None:
            return None
    elif op in (">=", ">"):
        strict = op == ">"
        if c > 0:
            lo_t, hi_t = (math.floor(root) + 1 if strict else math.ceil(root)), None
        else:
            lo_t, hi_t = None, (math.ceil(root) - 1 if strict else math.floor(root))
    else:
        raise Unsupported("!= along a class")
    lo_t = max(0, lo_t if lo_t is not None else 0)
    if hi_t is not None and top is not None:
        hi_t = min(hi_t, top)
    elif hi_t is None:
        hi_t = top
    return None if hi_t is not None and hi_t < lo_t else (lo_t, hi_t)


def _slope(e: Any, s: Any, period: int) -> Any:
    """How much ``e`` rises when ``s`` rises by ``period`` -- the same at every ``s`` -- or None where
    that is not so (a floor that rises by a fraction, a product of two dims, a ``Min``).

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> _slope(sympy.floor((h - 1) / 16) - 2 * sympy.floor((h - 1) / 32), h, 32), _slope(sympy.floor(h / 3), h, 32)
    (0, None)
    """
    if type(e) is int or e.is_Number:
        return 0
    if e == s:
        return period
    if e.is_Add:
        parts = [_slope(a, s, period) for a in e.args]
        return None if any(p is None for p in parts) else sum(parts)
    if e.is_Mul:
        coeff, rest = e.as_coeff_Mul()
        inner = _slope(rest, s, period) if coeff != 1 else None
        return None if inner is None else coeff * inner
    if isinstance(e, (sympy.floor, sympy.ceiling)):
        inner = _slope(e.args[0], s, period)
        return inner if inner is not None and sympy.Integer(inner) == inner else None
    return None


def _at(f1: Callable, x: int) -> bool:
    try:
        return bool(f1((x,)))
    except (ZeroDivisionError, OverflowError, ValueError, TypeError):
        raise Unsupported(f"no value at {x}") from None


def _key(cond_t: Any, t: Any) -> Callable[[int], tuple]:
    """At ``t``: the truth value, and which argument wins each ``Min``/``Max`` (where the
    condition's form changes even when its truth value does not)."""
    truth = holds(cond_t, (t,))
    atoms = sorted({m for x in _sides(cond_t) for m in _minmax(x)}, key=str)
    arms = [([compile_dim(a, (t,)) for a in m.args], isinstance(m, sympy.Max)) for m in atoms]

    def key(x: int) -> tuple:
        p = (x,)
        try:
            wins = tuple(max(range(len(fs)), key=lambda i: fs[i](p)) if is_max else
                         min(range(len(fs)), key=lambda i: fs[i](p)) for fs, is_max in arms)
            return (bool(truth(p)),) + wins
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            raise Unsupported(f"no value at {x}") from None
    return key


def _minmax(x: Any) -> set:
    return set() if type(x) is int else set(sympy.sympify(x).atoms(sympy.Min, sympy.Max))


def _sides(cond: Any) -> list:
    if isinstance(cond, Rel):
        return [cond.lhs, cond.rhs]
    rels = [r for conj in cond.alts for r in conj] if isinstance(cond, AnyOf) else list(cond)
    return [x for r in rels for x in (r.lhs, r.rhs)]


def _samples(top: Optional[int], consts: set[int], base: int, period: int) -> list[int]:
    last = _TOP if top is None else top
    pts = set(range(0, min(64, last) + 1))
    for k in range(6, 63):
        pts.update(((1 << k) - 1, 1 << k))
    big = sorted(c for c in consts if c > 1)
    marks = set(big) | {a * b for a in big for b in big}
    for c in marks:
        t = (c - base) // period
        pts.update(t + d for d in range(-2, 3))
    return sorted(p for p in pts if 0 <= p <= last)


def _runs(key: Callable[[int], tuple], top: Optional[int], consts: set[int], base: int,
          period: int) -> list[tuple]:
    """Maximal runs ``(t0, t1, key)`` of the sampled key, each change located by bisection."""
    pts = _samples(top, consts, base, period)
    vals = [key(t) for t in pts]
    runs = []
    start, cur = pts[0], vals[0]
    for (a, va), (b, vb) in zip(zip(pts, vals), zip(pts[1:], vals[1:])):
        while va != vb:
            lo, hi = a, b                     # key(lo) == va != key(hi): the first change in between
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if key(mid) == va:
                    lo = mid
                else:
                    hi = mid
            runs.append((start, lo, cur))
            start, cur = hi, key(hi)
            a, va = hi, cur
    runs.append((start, top, cur))
    return runs


def _substitute(cond: Any, s: Any, e: Any) -> Any:
    if isinstance(cond, Rel):
        return Rel(cond.op, _sub(cond.lhs, s, e), _sub(cond.rhs, s, e))
    if isinstance(cond, AnyOf):
        return AnyOf(tuple(tuple(_substitute(r, s, e) for r in conj) for conj in cond.alts))
    return tuple(_substitute(r, s, e) for r in cond)


def _sub(x: Any, s: Any, e: Any) -> Any:
    return x if type(x) is int else normalize_dim(rebuild(sympy.sympify(x), {s: e}))


def _proved(cond_t: Any, t: Any, t0: int, t1: Optional[int], value: bool, value_at: Callable) -> bool:
    """True when ``cond_t`` has the truth value ``value`` at every ``t`` in ``[t0, t1]``."""
    if t1 is not None and t1 - t0 <= EXHAUST:
        try:
            return all(value_at(x) == value for x in range(t0, t1 + 1))
        except Unsupported:
            return False
    u = sympy.Dummy("u", integer=True, nonnegative=True)
    ways = [_substitute(cond_t, t, t0 + u)]
    if t1 is not None:
        ways.append(_substitute(cond_t, t, t1 - u))
    span = None if t1 is None else t1 - t0
    return any(_decide(c, u, span) is value for c in ways)


def _decide(cond: Any, u: Any, span: Optional[int]) -> Optional[bool]:
    """The truth value of ``cond`` for every ``u`` in ``[0, span]``, where the reasoning settles it."""
    if isinstance(cond, Rel):
        lhs, rhs = _settled(cond.lhs, u, span), _settled(cond.rhs, u, span)
        got = compare_dims(lhs, cond.op, rhs)
        return got if isinstance(got, bool) else None
    alts = cond.alts if isinstance(cond, AnyOf) else (cond,)
    seen_unknown = False
    for conj in alts:
        vals = [_decide(r, u, span) for r in conj]
        if all(v is True for v in vals):
            return True
        if not any(v is False for v in vals):
            seen_unknown = True
    return None if seen_unknown else False


def _settled(x: Any, u: Any, span: Optional[int]) -> Any:
    """``x`` with each ``Min``/``Max`` whose order is the same for every ``u`` in ``[0, span]``
    replaced by the argument that wins, innermost first."""
    if type(x) is int:
        return x
    x = sympy.sympify(x)
    done: set = set()
    while True:
        found = [m for m in x.atoms(sympy.Min, sympy.Max)   # innermost: no Min/Max in its arguments
                 if m not in done and not any(a.has(sympy.Min, sympy.Max) for a in m.args)]
        if not found:
            break
        m = found[0]
        done.add(m)
        keep = list(m.args)
        for a in m.args:   # an argument another remaining one beats everywhere goes (of two equal ones, one stays)
            if len(keep) > 1 and any(b is not a and _always_ge(b - a if isinstance(m, sympy.Max) else a - b, u, span)
                                     for b in keep):
                keep.remove(a)
        if len(keep) < len(m.args):
            x = x.xreplace({m: keep[0] if len(keep) == 1 else type(m)(*keep)})
    return x if not x.is_Integer else int(x)


def _always_ge(gap: Any, u: Any, span: Optional[int]) -> bool:
    if compare_dims(sympy.expand(gap), ">=", 0) is True:
        return True
    if span is None:
        return False
    w = sympy.Dummy("w", integer=True, nonnegative=True)
    return compare_dims(sympy.expand(gap.subs(u, span - w)), ">=", 0) is True


__all__ = ["truth_set"]
