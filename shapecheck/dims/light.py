"""Named dims without sympy, for the light check of a model that never computes with them.

A model's input dims are often only names (``batch``, ``max_len``) that flow through the
graph unchanged: a KV-cache update, an elementwise block, a scatter.  Checking such a model
compares names and nothing more, yet importing sympy alone takes longer than the check.  A
*light* check (``check_model(..., light=True)``, which the CLI uses) gives the model's named
dims as ``Name``s instead of sympy symbols.  A ``Name`` is equal only to the same name, and
hashes like one, so comparing, renaming and printing shapes need nothing else.

Anything more (``N + 1``, ``N < M``, turning it into a sympy expression, ordering) raises
``NeedsAlgebra``, and the check starts again with sympy symbols.  The light check therefore
gives the same report as the full one, or none at all (``tests/test_light.py`` compares the
two on every shipped model, on random small graphs and on every spec's cases).

>>> n = Name("batch")
>>> n == Name("batch"), n == 3, n.free_symbols == {n}, n.xreplace({n: Name("b")}), str(n)
(True, False, True, b, 'batch')
>>> n + 1
Traceback (most recent call last):
...
shapecheck.dims.light.NeedsAlgebra: batch: a light check does no arithmetic on dims
"""
from __future__ import annotations

from typing import Any, NoReturn


class NeedsAlgebra(BaseException):
    """A light check met a dim operation that needs sympy; the check is redone with it.

    A ``BaseException``, so that no ``except Exception`` on the way turns it into a verdict.
    """


class Name:
    """A named, non-negative integer dim, equal only to itself (see the module's text)."""

    __slots__ = ("name",)
    is_Symbol = True
    is_Dummy = False
    is_Number = is_number = is_Integer = is_Add = is_Mul = is_Pow = is_Function = False
    is_integer = is_nonnegative = True
    args: tuple = ()

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return type(other) is Name and other.name == self.name

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("Name", self.name))

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return (Name, (self.name,))

    @property
    def free_symbols(self) -> set:
        return {self}

    def xreplace(self, mapping: dict) -> Any:
        return mapping.get(self, self)

    def _needs_algebra(self, *_: Any) -> NoReturn:
        raise NeedsAlgebra(f"{self.name}: a light check does no arithmetic on dims")

    # arithmetic, order, numbers and sympy's conversion all need sympy
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _needs_algebra
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _needs_algebra
    __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = _needs_algebra
    __lt__ = __le__ = __gt__ = __ge__ = _needs_algebra
    __int__ = __index__ = __float__ = _needs_algebra
    _sympy_ = subs = expand = as_coefficients_dict = as_coeff_Mul = as_coeff_Add = _needs_algebra


__all__ = ["Name", "NeedsAlgebra"]
