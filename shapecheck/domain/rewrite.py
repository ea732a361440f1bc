"""Equalities over several dims as rewrites of a product: what a pinned grid of positions says.

A LeViT export needs ``ceiling(h/16)*ceiling(w/16) == 16`` (its attention biases are a table over
the 16 positions of the sample); a later node then broadcasts ``batch*ceiling(h/16)*ceiling(w/16)/16``
against ``batch``, which are equal exactly where the model runs.  Sets of one dim each cannot say
that.  Where an equality's one term of highest degree is a product (``fh*fw`` in ``fh*fw + fh + fw
+ 1 == 16``), the product is what the rest makes it (``15 - fh - fw``): ``product_rule``.  Dims
that flow on after the condition are rewritten by it (``rewritten``), as one-dim facts settle
``Min(64, seq)`` once ``seq <= 64``: only where the model is valid do they matter.

>>> from shapecheck.dims import symbol
>>> from shapecheck.notation import Rel
>>> b, h, w = symbol("batch"), symbol("h"), symbol("w")
>>> rule = product_rule(Rel("==", (h + 1) * (w + 1), 16)); rule
(h*w, -h - w + 15)
>>> rewritten(b * (h + 1) * (w + 1) / 16, [rule]), rewritten(h + w, [rule])
(batch, h + w)
>>> product_rule(Rel("==", h * w, 16 * sympy.floor(h * w / 16))) is None   # a multiple: the domain's
True
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dims import normalize_dim
from ..notation import Rel

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

__all__ = ["product_rule", "rewritten"]


def _degree(t: Any) -> int:
    """How many dims (or floors and ceilings of dims) a term multiplies, powers counted."""
    out = 0
    for f in sympy.Mul.make_args(t):
        if f.is_Number:
            continue
        out += int(f.exp) if f.is_Pow and f.exp.is_Integer and f.exp > 0 else 1
    return out


def product_rule(rel: Any) -> tuple | None:
    """``(m, r)`` when ``rel`` is an equality whose one term of highest degree is ``c*m``, ``m`` a
    product of at least two factors: ``m == r`` wherever ``rel`` holds.  None otherwise."""
    if not isinstance(rel, Rel) or rel.op != "==":
        return None
    d = sympy.expand(sympy.sympify(rel.lhs) - sympy.sympify(rel.rhs))
    if not d.is_Add:
        return None
    degrees = [(_degree(t), t) for t in d.args]
    top = max(g for g, _t in degrees)
    tops = [t for g, t in degrees if g == top]
    if top < 2 or len(tops) != 1:
        return None
    c, m = tops[0].as_coeff_Mul()
    if not c.is_Rational or c == 0:
        return None
    r = sympy.expand(-(d - tops[0]) / c)
    if r.has(m) or any(f.has(*m.free_symbols) and len(f.free_symbols & m.free_symbols) > 1
                       for f in r.atoms(sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)):
        return None   # a product that comes back in what it equals (x == 16*floor(x/16)): no rewrite
    return m, r


def rewritten(d: Any, rules: list) -> Any:
    """``d`` with each rule's product replaced by what it equals, where that changes ``d``."""
    if type(d) is int or not hasattr(d, "free_symbols"):
        return d
    for m, r in rules:
        if not m.free_symbols <= d.free_symbols:
            continue
        e = sympy.expand(d)
        again = e.subs(m, r)
        if again != e:
            d = sympy.expand(again)
    return normalize_dim(d)
