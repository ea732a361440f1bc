"""``RuntimeDim``: a size known only at run time, named in reports.

Its own module because its class derives from sympy's ``Dummy``: defining it imports sympy,
which a light check (``light.py``) never does.  ``dims.runtime_dim`` makes one and
``dims.is_runtime`` recognizes one.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


class RuntimeDim(sympy.Dummy):
    """A size known only at run time (NonZero's count, a Loop's trip count).

    Unknown like any other unknown dim -- it is never equal to another dim -- but named, so
    that the report defines it with the upper bound its spec knows (``0 <= nnz_1 <= N*M``).

    >>> from shapecheck.dims import dim_str, is_unknown, symbol
    >>> n = RuntimeDim("nnz_1", 2 * symbol("N"))
    >>> dim_str(n + 1), is_unknown(n), n == RuntimeDim("nnz_1")
    ('nnz_1+1', True, False)
    """

    upper: Any
    is_runtime_dim = True           # what dims.is_runtime reads

    def __new__(cls, name: str, upper: Any = None, dummy_index: Any = None):
        obj = super().__new__(cls, name, dummy_index, integer=True, nonnegative=True)
        obj.upper = upper
        return obj

    def __getnewargs_ex__(self):
        return (self.name, self.upper, self.dummy_index), {}


__all__ = ["RuntimeDim"]
