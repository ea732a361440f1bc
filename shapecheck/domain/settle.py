"""Dims simplified under what the model's conditions say about its input dims.

``bounds`` maps an input dim to ``(lo, hi, step)``: its values are ``lo, lo + step, ...`` up to
``hi`` (None: unbounded).  Under them:

* a ``Min``/``Max`` whose order is the same for every allowed value keeps only the argument
  that wins (``Min(512, seq)`` is ``seq`` once ``seq <= 512``);
* a floor of a dim that is a multiple of a step is taken out (``2*floor(h/2)`` is ``h`` once
  ``h % 2 == 0``);
* a sum of ``Min``/``Max`` of one dim that equals a plain form at every allowed value is that
  form, found by splitting off the few smallest values (``Max(0, W - 1) + Min(1, W)`` is ``W``
  for every ``W >= 0``).

Each step is an identity on the allowed values, proved, never sampled alone; ``ceilings``
rewrites ``floor((x + q - 1)/q)`` as ``ceiling(x/q)`` for reports.  ``tests/test_domain.py``
checks every rewrite against brute force.

>>> from shapecheck.dims import symbol
>>> s, h, w = symbol("seq"), symbol("h"), symbol("W")
>>> settle_dim(sympy.Min(512, s) + 1, {s: (1, 512, 1)}), settle_dim(2 * sympy.floor(h / 2), {h: (2, None, 2)})
(seq + 1, h)
>>> settle_dim(sympy.Max(0, w - 1) + sympy.Min(1, w), {w: (0, None, 1)})
W
>>> ceilings(sympy.floor((h - 1) / 32) + 1), ceilings(sympy.floor((h + 30) / 32))
(ceiling(h/32), floor(h/32 + 15/16))
"""
from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING, Any, Optional

from ..dims import normalize_dim, rebuild
from ..notation import compare_dims
from ..dims.rounding import floor_argument, polynomial_sign, provably_nonnegative
from .evaluate import SMALL_RANGE, Unsupported, compile_dim

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


Bound = tuple        # (lo, hi or None, step)
SPLIT = 8            # smallest values split off to settle a Min/Max of one dim


def settle_dim(d: Any, bounds: dict) -> Any:
    """``d`` simplified under ``bounds`` (see the module's docstring); ``d`` itself when nothing applies."""
    if type(d) is int or not hasattr(d, "free_symbols"):
        return d
    syms = {s: bounds[s] for s in d.free_symbols if s in bounds}
    if not syms:
        return d
    out = _minmax(d, syms)
    out = _residues(out, syms)
    out = _split_small(out, syms)
    return normalize_dim(out)


def _minmax(d: Any, bounds: dict) -> Any:
    """Each ``Min``/``Max`` (innermost first) without the arguments another one beats everywhere."""
    done: set = set()
    while True:
        found = [m for m in d.atoms(sympy.Min, sympy.Max)
                 if m not in done and not any(a.has(sympy.Min, sympy.Max) for a in m.args)]
        if not found:
            return d
        m = found[0]
        done.add(m)
        keep = list(m.args)
        for a in m.args:   # an argument another remaining one beats everywhere goes (of two equal ones, one stays)
            if len(keep) > 1 and any(b is not a and always_ge(b - a if isinstance(m, sympy.Max) else a - b, bounds)
                                     for b in keep):
                keep.remove(a)
        if len(keep) < len(m.args):
            d = d.xreplace({m: keep[0] if len(keep) == 1 else type(m)(*keep, evaluate=False)})
            if not hasattr(d, "atoms"):
                return d


def always_ge(gap: Any, bounds: dict) -> bool:
    """True when ``gap >= 0`` for every allowed value of its dims: each dim written from the bottom
    of its range (``lo + step*t``) or, where it has a top, from the top (``hi - step*t``)."""
    gap = sympy.sympify(gap)
    syms = [s for s in gap.free_symbols if s in bounds]
    if syms and len(syms) == len(gap.free_symbols) and rising(gap):   # least where every dim is least
        at_least = sympy.sympify(rebuild(gap, {s: bounds[s][0] for s in syms}))
        if at_least.is_Number and at_least >= 0:
            return True
    ways = [{s: _from_bottom(s, bounds[s]) for s in syms}]
    if any(bounds[s][1] is not None for s in syms):
        ways.append({s: _from_top(s, bounds[s]) if bounds[s][1] is not None else _from_bottom(s, bounds[s])
                     for s in syms})
    for way in ways:
        g = sympy.expand(rebuild(gap, way))
        if g.is_Number:
            if g >= 0:
                return True
            continue
        sign = polynomial_sign(g)   # exact for the linear gaps most Min/Max give, and fast
        if sign is not None:
            if sign:
                return True
            continue
        tried = _every_value(gap, syms, bounds) if len(syms) == len(gap.free_symbols) else None
        if tried is not None:
            return tried
        if negative_somewhere(g):
            continue
        if provably_nonnegative(g) or compare_dims(normalize_dim(g), ">=", 0) is True:
            return True
    return False


def rising(e: Any) -> bool:
    """Whether ``e`` never decreases as any of its dims grows: sums, floors and ceilings of such
    terms, each times a positive number (``ceiling(floor(h/4)/4)``, written ``-floor(-floor(h/4)/4)``).

    >>> from shapecheck.dims import symbol
    >>> h = symbol("h")
    >>> rising(-sympy.floor(-sympy.floor(h / 4) / 4) - 1), rising(sympy.floor(-h / 4)), rising(h * (h - 3))
    (True, False, False)
    """
    return _direction(e) in (0, 1)


def _direction(e: Any) -> Optional[int]:
    """1 where ``e`` never decreases as its dims grow, -1 where it never increases, 0 for a
    number; None where neither is known."""
    if e.is_Number:
        return 0
    if e.is_Symbol:
        return 1
    if isinstance(e, (sympy.floor, sympy.ceiling)):
        return _direction(e.args[0])
    if e.is_Mul:
        c, rest = e.as_coeff_Mul()
        if rest.is_Mul:
            return None   # a product of dims may fall as one grows (its other factor negative)
        d = _direction(rest)
        return None if d is None else d * (1 if c > 0 else -1)
    if e.is_Add:
        ways = {_direction(a) for a in e.args} - {0}
        return None if None in ways or len(ways) > 1 else (ways.pop() if ways else 0)
    return None


def _every_value(gap: Any, syms: list, bounds: dict) -> Optional[bool]:
    """Whether ``gap >= 0`` at every allowed value, each one tried, where the dims' ranges hold at most
    ``SMALL_RANGE`` points together (a dynamo export's ``1 <= height <= 1024``); else None.  Exact, and a
    few milliseconds where sympy's reasoning over floors takes tens."""
    ranges, total = [], 1
    for s in syms:
        lo, hi, step = bounds[s]
        if hi is None:
            return None
        ranges.append(range(lo, hi + 1, step))
        total *= len(ranges[-1])
        if total > SMALL_RANGE:
            return None
    try:
        f = compile_dim(gap, tuple(syms))
        return all(f(p) >= 0 for p in product(*ranges))
    except (Unsupported, ZeroDivisionError, OverflowError):
        return None


def negative_somewhere(e: Any) -> bool:
    """True when ``e`` is negative with every dim 0, 1, 2, 1000 or a million: a counterexample to
    ``e >= 0``, found by evaluating (``evaluate``) rather than by sympy's assumption queries (tens of
    milliseconds on a sum with a ``Min``).

    >>> from shapecheck.dims import symbol
    >>> s = symbol("seq")
    >>> negative_somewhere(s + sympy.Min(64, 1024 - s) - 1025), negative_somewhere(1023 - s - sympy.Min(64, 1024 - s))
    (True, True)
    >>> negative_somewhere(sympy.Min(64, s + 1) - 1)
    False
    """
    syms = tuple(e.free_symbols)
    try:
        f = compile_dim(e, syms)
        return any(f((v,) * len(syms)) < 0 for v in (0, 1, 2, 1000, 10**6))
    except (Unsupported, ZeroDivisionError):
        return False


def _from_bottom(s: Any, b: Bound) -> Any:
    lo, _hi, step = b
    return lo + step * s if (lo, step) != (0, 1) else s


def _from_top(s: Any, b: Bound) -> Any:
    lo, hi, step = b
    top = lo + (hi - lo) // step * step
    return top - step * s


def _residues(d: Any, bounds: dict) -> Any:
    """Floors of a dim known to be ``lo`` modulo a step, taken out where the step divides them."""
    for s, (lo, _hi, step) in bounds.items():
        if step <= 1 or not d.has(sympy.floor, sympy.ceiling):
            continue
        t = sympy.Dummy("t", integer=True, nonnegative=True)
        there = rebuild(d, {s: lo % step + step * t})
        back = normalize_dim(rebuild(sympy.expand(there), {t: (s - lo % step) / step}))
        if type(back) is int or len(back.atoms(sympy.floor, sympy.ceiling)) < len(d.atoms(sympy.floor, sympy.ceiling)):
            d = back
            if type(d) is int:
                return d
    return d


def _split_small(d: Any, bounds: dict) -> Any:
    """Each group of terms of one dim that still holds a ``Min``/``Max``, replaced by a plain form
    that equals it from the ``k``-th allowed value on (settled there) and at each value below
    (tried one by one)."""
    if type(d) is int or not d.has(sympy.Min, sympy.Max):
        return d
    groups: dict = {}
    for term in sympy.Add.make_args(d):
        syms = term.free_symbols
        key = next(iter(syms)) if len(syms) == 1 else None
        groups.setdefault(key, []).append(term)
    for s, terms in groups.items():
        part = sympy.Add(*terms)
        if s is None or s not in bounds or not part.has(sympy.Min, sympy.Max):
            continue
        plain = _split_one(part, s, bounds[s])
        if plain is not None:
            d = sympy.expand(d - part) + plain
    return d


def _split_one(part: Any, s: Any, b: Bound) -> Optional[Any]:
    lo, hi, step = b
    try:
        f = compile_dim(part, (s,))
    except Unsupported:
        return None
    for k in range(1, SPLIT + 1):
        start = lo + k * step
        if hi is not None and start > hi:
            return None
        plain = _minmax(part, {s: (start, hi, step)})
        if plain.has(sympy.Min, sympy.Max):
            continue
        g = compile_dim(plain, (s,))
        if all(f((x,)) == g((x,)) for x in range(lo, start, step)):
            return plain
    return None


def ceilings(d: Any) -> Any:
    """``d`` with each ``floor((x + b)/q)`` whose offset is one short of a multiple of ``q`` read as
    ``ceiling(x/q)`` plus an integer, for reports (``ceiling(h/32)``, not ``floor(h/32 - 1/32) + 1``)."""
    if type(d) is int or not hasattr(d, "atoms") or not d.has(sympy.floor):
        return d
    change = {}
    for f in d.atoms(sympy.floor):
        pq = floor_argument(f)
        if pq is None:
            continue
        p, q = pq
        b = int(p.as_coeff_Add()[0])
        if (b + 1) % q == 0:
            change[f] = sympy.ceiling((p - b) / q) + (b + 1) // q - 1
    return normalize_dim(sympy.expand(d.xreplace(change))) if change else d


__all__ = ["settle_dim", "always_ge", "ceilings"]
