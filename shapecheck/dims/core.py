"""What a dim is, asked without sympy: ``normalize_dim`` and the ``is_*`` predicates.

Every other module of ``dims`` imports these (``rounding`` normalizes the floors it builds, the
package's face parses and prints dims); this module imports none of them.

>>> from shapecheck.dims import symbol
>>> normalize_dim(symbol("N") - symbol("N") + 3), is_unknown(symbol("N")), has_unknown(symbol("N") + 1)
(3, False, False)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard, Union

from .light import LIGHT, Name, Poly

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
from ..deferred import is_sympy

Dim = Union[int, "sympy.Expr"]


def is_runtime(d: Any) -> bool:
    """Whether ``d`` is a ``RuntimeDim`` (read off its class, so that a light check needs no sympy)."""
    return getattr(type(d), "is_runtime_dim", False)


def is_symbolic(d: Any) -> TypeGuard[sympy.Basic | Name | Poly]:
    """Whether a dim is a symbol or an expression over symbols (in a light check, a ``Name`` or a ``Poly``).

    >>> from shapecheck.dims import symbol
    >>> is_symbolic(4), is_symbolic(symbol("N") + 1), is_symbolic(Name("N")), is_symbolic(Name("N") + 1)
    (False, True, True, True)
    """
    t = type(d)
    return t in LIGHT or (t not in _PLAIN and is_sympy(d))


def is_unknown(d: Any) -> bool:
    return type(d) not in _PLAIN and is_sympy(d, "Dummy")


def has_unknown(d: Any) -> bool:
    return type(d) not in _PLAIN and is_sympy(d) and any(is_unknown(s) for s in d.free_symbols)


_PLAIN = (int, bool, Name, Poly)     # dims that are never unknown, and whose type says so without sympy


def normalize_dim(d: Any) -> Dim:
    """Collapse a constant sympy expression to a plain int."""
    if isinstance(d, (int, np.integer)):
        return int(d)
    if type(d) not in LIGHT and is_sympy(d) and d.is_Integer:
        return int(d)
    return d


def undefined(d: Any) -> bool:
    """Whether ``d`` is the number sympy gives for 0/0 or a division by 0 (``nan``, ``zoo``): a relation
    over it is false, for the runtime refuses that arithmetic (a Reshape's -1 over an empty tensor).

    >>> import sympy
    >>> undefined(sympy.Integer(0) / 0), undefined(sympy.Integer(1) / 0), undefined(sympy.Rational(1, 2)), undefined(3)
    (True, True, False, False)
    """
    return type(d) not in _PLAIN and is_sympy(d) and bool(d.is_number) and not d.is_finite   # nan's is_finite is None


__all__ = ["Dim", "is_runtime", "is_symbolic", "is_unknown", "has_unknown", "normalize_dim", "undefined"]
