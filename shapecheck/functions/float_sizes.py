"""Sizes held in float: the arithmetic TorchScript exports do on sizes in Python floats.

``math.ceil(h / 2)`` of a size ``h`` is exported as ``Ceil(Div(Cast(h, float), 2.0))``, and then
cast back to int64 for a Reshape (MobileViT's unfolding into patches).  A size cast to float keeps
its value (``constant.cast_value``) while it is below 2**24 (2**53 in double), which the check
states as an assumption of the model's domain for every node whose float output holds a size.
Under that assumption these are exact, and computed here:

* ``+ - *`` of integer-valued elements (sizes and whole numbers);
* ``/`` by a positive power of two (halving is exact in binary floating point): a rational;
* ``floor`` and ``ceil`` of those, integers again (``Cast`` back to an integer type keeps only an
  integer-valued element: a rational left is unknown there, as truncation would need its sign).

Anything else (a division by 3, a value that is not a size) is unknown: float arithmetic rounds.
Values made only of numbers are the kernels' (the node is folded), never computed here.

>>> from shapecheck.dims import symbol
>>> h = symbol("h")
>>> half = float_arith("/", (h,), 2.0); half, rounded("ceil", half), float_arith("*", rounded("ceil", half), 2.0)
((h/2,), (ceiling(h/2),), (2*ceiling(h/2),))
>>> float_arith("/", (h,), 3.0), float_arith("+", (h,), 0.5), rounded("sqrt", (h,))
(Unknown(value), Unknown(value), Unknown(value))
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dims import is_symbolic, is_unknown, normalize_dim
from ..notation import NO_VALUE
from .core import _elems

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

__all__ = ["float_arith", "rounded", "NOTATION"]


def _exact(e: Any) -> Any:
    """An element as an exact number or dim: a float that is a whole number as an int; None for a
    float that is not (its decimal digits are the runtime's rounding) or an unknown dim."""
    if isinstance(e, bool):
        return int(e)
    if isinstance(e, float):
        return int(e) if e.is_integer() else None
    if isinstance(e, int) or (is_symbolic(e) and not any(is_unknown(s) for s in e.free_symbols)):
        return e
    return None


def _whole(e: Any) -> bool:
    return isinstance(e, int) or bool(getattr(sympy.sympify(e), "is_integer", False))


def _power_of_two(e: Any) -> bool:
    return isinstance(e, int) and e > 0 and e & (e - 1) == 0


def float_arith(op: str, a: Any, b: Any) -> Any:
    """``a op b`` (``+ - * /``) on float values holding sizes, element by element with broadcasting
    (one side a scalar or of length 1), where it is exact (see the module's text); else unknown."""
    ea, eb = _elems(a), _elems(b)
    if ea is None or eb is None or op not in ("+", "-", "*", "/"):
        return NO_VALUE
    if len(ea) != len(eb) and 1 not in (len(ea), len(eb)):
        return NO_VALUE
    n = max(len(ea), len(eb))
    xs, ys = [_exact(x) for x in ea] * (n // len(ea)), [_exact(y) for y in eb] * (n // len(eb))
    if any(v is None for v in xs + ys) or not any(is_symbolic(v) for v in xs + ys):
        return NO_VALUE   # a rounded float, or numbers only (the kernels fold those)
    out = []
    for x, y in zip(xs, ys):
        if op == "/":
            if not (_power_of_two(y) and _whole(x)):
                return NO_VALUE
            out.append(normalize_dim(sympy.sympify(x) / y))
        elif not (_whole(x) and _whole(y)):
            return NO_VALUE
        else:
            out.append(normalize_dim(x + y if op == "+" else x - y if op == "-" else x * y))
    vector = isinstance(a, tuple) or isinstance(b, tuple) or getattr(a, "ndim", 0) > 0 or getattr(b, "ndim", 0) > 0
    return tuple(out) if vector else out[0]


def rounded(fn: str, x: Any) -> Any:
    """``floor`` or ``ceil`` of a float value holding sizes (halves of sizes among them), element by
    element; unknown for every other function, and for values of numbers only (the kernels')."""
    ex = _elems(x)
    if fn not in ("floor", "ceil") or ex is None:
        return NO_VALUE
    xs = [_exact(e) for e in ex]
    if any(v is None for v in xs) or not any(is_symbolic(v) for v in xs):
        return NO_VALUE
    f = sympy.floor if fn == "floor" else sympy.ceiling
    out = tuple(normalize_dim(f(v)) for v in xs)
    return out if isinstance(x, tuple) else out[0]


NOTATION = (float_arith, rounded)
