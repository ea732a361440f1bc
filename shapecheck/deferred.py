"""sympy, imported the first time shapecheck needs it.

Importing sympy takes longer (0.3 s) than checking a small model.  A model whose symbolic
dims are only names (``batch``, ``seq``), that no node computes with, is checked without it
(``shapecheck.names``); every other check imports it on first use.  Each module writes
``from .deferred import sympy`` (under ``if not TYPE_CHECKING``, so that type checkers see the
real module) and uses ``sympy.X`` as before.

>>> lazy = Deferred("fractions")
>>> lazy.Fraction(1, 2) + 1, "Fraction" in vars(lazy)    # an attribute read is then plain
(Fraction(3, 2), True)
"""
from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator


class Deferred:
    """A module imported when one of its attributes is first read.  Each attribute read is
    kept on this object, so later reads cost what a module attribute read costs."""

    def __init__(self, module: str) -> None:
        self.__dict__["_module"] = module

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        barred = self.__dict__.get("_barred")
        if barred is not None:
            raise barred(f"{self._module}.{attr}")
        value = getattr(importlib.import_module(self._module), attr)
        self.__dict__[attr] = value
        return value

    @contextmanager
    def barred(self, error: Callable[[str], BaseException]) -> Iterator[None]:
        """Within the block, reading any attribute raises ``error(name)``, even one read before.

        A light check runs in such a block: whatever would read sympy stops it instead, so a
        light check that finishes read nothing of sympy.  The block is not for threads: a
        thread that reads the module meanwhile gets the error too.

        >>> lazy = Deferred("fractions")
        >>> _ = lazy.Fraction
        >>> with lazy.barred(LookupError):
        ...     lazy.Fraction
        Traceback (most recent call last):
        ...
        LookupError: fractions.Fraction
        >>> lazy.Fraction.__name__
        'Fraction'
        """
        read = {k: v for k, v in self.__dict__.items() if k != "_module"}
        for k in read:
            del self.__dict__[k]
        self.__dict__["_barred"] = error
        try:
            yield
        finally:
            self.__dict__.pop("_barred", None)
            self.__dict__.update(read)

    def __repr__(self) -> str:
        return f"<deferred module {self._module!r}>"


sympy: Any = Deferred("sympy")


def sympy_imported() -> bool:
    """Whether this process has imported sympy (a light check then saves nothing)."""
    return "sympy" in sys.modules


def is_sympy(obj: Any, cls: str = "Basic") -> bool:
    """``isinstance(obj, sympy.<cls>)``, answered without importing sympy (before it is imported
    nothing is a sympy object), and so also within ``sympy.barred``.

    >>> is_sympy(3), is_sympy(Deferred("sympy").Integer(3)), is_sympy(Deferred("sympy").Integer(3), "Symbol")
    (False, True, False)
    """
    module = sys.modules.get("sympy")
    return module is not None and isinstance(obj, getattr(module, cls))


__all__ = ["Deferred", "sympy", "is_sympy", "sympy_imported"]
