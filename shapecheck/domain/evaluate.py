"""Exact values of dim expressions and relations at integer points, fast enough to try thousands.

A dim expression (sums, products, integer powers, rationals, ``floor``, ``ceiling``, ``Min``,
``Max``, ``Mod``) is compiled once into a Python closure over exact integers and fractions;
sympy is not called per point.  Anything else raises ``Unsupported``.

>>> from shapecheck.dims import symbol
>>> h = symbol("h")
>>> f = compile_dim(sympy.floor((h - 1) / 32) + 1, (h,))
>>> [f((x,)) for x in (1, 32, 33)]
[1, 1, 2]
>>> holds(Rel("<=", sympy.Min(512, h), h), (h,))((600,))
True
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

from ..notation import AnyOf, Rel

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

Point = tuple          # one integer per symbol, in the order the compiler was given
Fn = Callable[[Point], Any]

_OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


class Unsupported(Exception):
    """An expression this evaluator does not know (a symbolic exponent, a function of tensors)."""


SMALL_RANGE = 4096   # a range of at most this many values is decided by trying each one


def _exact(x: Any) -> Any:
    return x.numerator if type(x) is Fraction and x.denominator == 1 else x


def compile_dim(e: Any, symbols: tuple) -> Fn:
    """``e`` as a function of a point (the values of ``symbols``, in order), exactly."""
    if type(e) is int:
        return lambda p: e
    index = {s: i for i, s in enumerate(symbols)}
    return _compile(sympy.sympify(e), index)


def _compile(e: Any, index: dict) -> Fn:
    if e.is_Integer:
        v = int(e)
        return lambda p: v
    if e.is_Rational:
        v = Fraction(int(e.p), int(e.q))
        return lambda p: v
    if e.is_Symbol:
        if e not in index:
            raise Unsupported(f"{e} is not a dim of the point")
        i = index[e]
        return lambda p: p[i]
    kind = type(e)
    if kind in (sympy.floor, sympy.ceiling):
        return _rounding(e, index, kind is sympy.floor)
    args = [_compile(a, index) for a in e.args]
    if e.is_Add:
        if len(args) == 2:
            a, b = args
            return lambda p: _exact(a(p) + b(p))
        return lambda p: _exact(sum(f(p) for f in args))
    if e.is_Mul:
        if len(args) == 2:
            a, b = args
            return lambda p: _exact(a(p) * b(p))
        return lambda p: _exact(math.prod(f(p) for f in args))
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        base, k = args[0], int(e.exp)
        return lambda p: base(p) ** k
    if e.is_Pow and e.exp.is_Integer:   # a dim divided by a dim (a Reshape's -1 over a symbolic part)
        base, k = args[0], -int(e.exp)
        return lambda p: _exact(Fraction(1, 1) / Fraction(base(p)) ** k)
    if kind is sympy.Min:
        return lambda p: min(f(p) for f in args)
    if kind is sympy.Max:
        return lambda p: max(f(p) for f in args)
    if kind is sympy.Mod:
        return lambda p: _exact(Fraction(args[0](p)) % Fraction(args[1](p)))
    raise Unsupported(f"{kind.__name__} in {e}")


def _rounding(e: Any, index: dict, down: bool) -> Fn:
    """``floor(x)``/``ceiling(x)`` in integers: ``x`` times the common denominator of its
    coefficients, floor-divided by it (no fraction is made per point)."""
    arg = e.args[0]
    q = math.lcm(1, *(int(c.q) for c in (t.as_coeff_Mul()[0] for t in sympy.Add.make_args(arg)) if c.is_Rational))
    inner = _compile(sympy.expand(arg * q), index) if q > 1 else _compile(arg, index)
    if down:
        return (lambda p: inner(p) // q) if q > 1 else (lambda p: math.floor(inner(p)))
    return (lambda p: -((-inner(p)) // q)) if q > 1 else (lambda p: math.ceil(inner(p)))


def holds(rel: Any, symbols: tuple) -> Callable[[Point], bool]:
    """A relation (``Rel``), a disjunction of conjunctions (``AnyOf``) or a tuple of relations (a
    conjunction) as a truth function of a point."""
    if isinstance(rel, Rel):
        lhs, rhs, op = compile_dim(rel.lhs, symbols), compile_dim(rel.rhs, symbols), _OPS[rel.op]
        return lambda p: op(lhs(p), rhs(p))
    if isinstance(rel, AnyOf):
        alts = [[holds(r, symbols) for r in conj] for conj in rel.alts]
        return lambda p: any(all(f(p) for f in conj) for conj in alts)
    if isinstance(rel, tuple):
        parts = [holds(r, symbols) for r in rel]
        return lambda p: all(f(p) for f in parts)
    raise Unsupported(f"not a relation: {rel!r}")


def _sides(rel: Any) -> list:
    if isinstance(rel, Rel):
        return [rel.lhs, rel.rhs]
    rels = [r for conj in rel.alts for r in conj] if isinstance(rel, AnyOf) else list(rel)
    return [x for r in rels for x in (r.lhs, r.rhs)]


def constants(rel: Any) -> set[int]:
    """The integers a relation mentions (numerators and denominators): where its truth may change."""
    out: set[int] = set()
    for x in _sides(rel):
        if type(x) is int:
            out.add(abs(x))
        else:
            for a in sympy.sympify(x).atoms(sympy.Rational):
                out.update((abs(int(a.p)), abs(int(a.q))))
    return out


def terms(rel: Any) -> set[int]:
    """The integers a relation holds as terms of their own: a side, an addend, an argument of ``Min``
    or ``Max`` (the 40 of ``Min(40, floor(seq/2 - 1/2) + 1)``); not a coefficient or a divisor (the
    stride in ``seq/2``, the 4 in ``4*seq``), which come from the architecture, not from a table.

    >>> from shapecheck.dims import symbol
    >>> s, n = symbol("seq"), symbol("n")
    >>> sorted(terms(Rel("==", n + 1, sympy.Max(0, sympy.Min(40, sympy.floor(s / 2 - sympy.Rational(1, 2)) + 1)))))
    [0, 1, 40]
    """
    out: set[int] = set()
    todo = [(x, True) for x in _sides(rel)]   # (expression, whether it stands as a term of its own)
    while todo:
        e, whole = todo.pop()
        if type(e) is int or getattr(e, "is_Integer", False):
            if whole:
                out.add(abs(int(e)))
        elif isinstance(e, sympy.Basic) and not e.is_Number:
            own = e.is_Add or isinstance(e, (sympy.Min, sympy.Max))
            todo.extend((a, own) for a in e.args)
    return out


def denominators(rel: Any) -> int:
    """The period of a relation's floors, ceilings and ``Mod``: past it, each is its value plus an
    integer that is linear in the dim.  A floor nested in another multiplies: ``floor(floor(s/4)/8)``
    repeats every 32.

    >>> from shapecheck.dims import symbol
    >>> s = symbol("s")
    >>> denominators(Rel("==", sympy.floor(sympy.floor(s / 4) / 8 + sympy.Rational(1, 8)), 1))
    32
    >>> denominators(Rel("==", sympy.floor(s / 2) + sympy.floor(s / 4), 3))
    4
    """
    q = 1
    for x in _sides(rel):
        if type(x) is not int:
            q = math.lcm(q, _period(sympy.sympify(x)))
    return q


def _period(e: Any) -> int:
    if not e.args:
        return int(e.q) if e.is_Rational else 1
    if isinstance(e, (sympy.floor, sympy.ceiling)):
        return _period(e.args[0])
    if isinstance(e, sympy.Mod):
        m = e.args[1]
        return _period(e.args[0]) * (abs(int(m.p)) if m.is_Rational else 1)
    inner = 1
    for a in e.args:
        if isinstance(a, (sympy.floor, sympy.ceiling, sympy.Mod)):
            inner = math.lcm(inner, _period(a))
    if e.is_Mul:   # a rational coefficient on a floor: the floor's period times the coefficient's denominator
        coeff = math.prod(int(a.q) for a in e.args if a.is_Rational)
        rest = [a for a in e.args if not a.is_Rational]
        return math.lcm(coeff * math.lcm(1, *(_period(a) for a in rest)), inner)
    return math.lcm(inner, *(_period(a) for a in e.args))


def free_dims(rel: Any) -> set:
    """The symbols of a relation."""
    return set(rel.free_symbols) if not isinstance(rel, tuple) else set().union(*(r.free_symbols for r in rel))


def holds_at(rel: Any, sizes: dict) -> bool | None:
    """Whether a relation holds at these sizes (by dim name); None when it names a dim not given (or
    known only at run time) or cannot be evaluated."""
    syms = tuple(getattr(rel, "free_symbols", ()) or ())
    if rel is None or any(s.name not in sizes for s in syms):
        return None
    try:
        return bool(holds(rel, syms)(tuple(sizes[s.name] for s in syms)))
    except (Unsupported, ZeroDivisionError):
        return None


__all__ = ["compile_dim", "holds", "holds_at", "constants", "denominators", "free_dims", "Unsupported", "SMALL_RANGE"]
