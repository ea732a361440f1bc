"""A domain relation's text, as a user reads it: floors that are ceilings written as such
(``ceiling(h/2)``), ``x == q*floor(x/q)`` written ``x % q == 0``, the constant on the right.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dims import expr_str
from ..notation import AnyOf, Rel
from .settle import ceilings

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

__all__ = ["show", "multiple_of"]


def show(rel: Any) -> str:
    """A relation's text, with floors that are ceilings written as such, and ``x == q*floor(x/q)``
    written ``x % q == 0``.

    >>> from shapecheck.dims import symbol
    >>> b, s = symbol("batch"), symbol("seq")
    >>> show(Rel("==", b * s, 16 * sympy.floor(b * s / 16)))
    '(batch*seq) % 16 == 0'
    >>> f = sympy.floor((b - 1) / 2)
    >>> show(Rel(">=", f * f + 2 * f, 1))
    'ceiling(batch/2)**2 >= 2'
    """
    if isinstance(rel, Rel):
        multiple = multiple_of(rel)
        if multiple is not None:
            x, q = multiple
            text, by = expr_str(x), expr_str(q)
            return (f"{text if x.is_Symbol else '(' + text + ')'} % {by if type(q) is int or q.is_Symbol else '(' + by + ')'} "
                    f"{'==' if rel.op == '==' else '!='} 0")
        lhs, rhs = sympy.sympify(ceilings(rel.lhs)), sympy.sympify(ceilings(rel.rhs))
        if rhs.is_Number and lhs.is_Add:   # the constant on the right: `ceiling(h/2)*ceiling(w/2) >= 2`
            c, lhs = lhs.as_coeff_Add()
            rhs = rhs - c
        return f"{expr_str(lhs)} {rel.op} {expr_str(rhs)}"
    if isinstance(rel, AnyOf):
        return " or ".join(" and ".join(show(r) for r in conj) if len(conj) == 1 else
                           "(" + " and ".join(show(r) for r in conj) + ")" for conj in rel.alts)
    return str(rel)


def multiple_of(rel: Rel) -> tuple | None:
    """``(x, q)`` when ``rel`` is ``x == q*floor(x/q)`` (or ``!=``), either way round; ``q`` an integer
    above 1, or a product of dims (a Reshape's -1 over another input's dims: ``A*B == C*floor(A*B/C)``).

    >>> from shapecheck.dims import symbol
    >>> a, b, c = symbol("A"), symbol("B"), symbol("C")
    >>> multiple_of(Rel("==", a * b, c * sympy.floor(a * b / c))), show(Rel("==", a * b, c * sympy.floor(a * b / c)))
    ((A*B, C), '(A*B) % C == 0')
    """
    if rel.op not in ("==", "!="):
        return None
    for a, b in ((rel.lhs, rel.rhs), (rel.rhs, rel.lhs)):
        if type(b) is int or not hasattr(b, "as_coeff_Mul"):
            continue
        q, f = b.as_coeff_Mul()
        if q.is_Integer and q > 1 and isinstance(f, sympy.floor) and sympy.expand(f.args[0] * q - a) == 0:
            return sympy.sympify(a), int(q)
        if q == 1 and f.is_Mul:
            floors = [x for x in f.args if isinstance(x, sympy.floor)]
            if len(floors) == 1:
                by = f / floors[0]
                if by.free_symbols and not by.is_Number and sympy.expand(floors[0].args[0] * by - a) == 0:
                    return sympy.sympify(a), by
    return None
