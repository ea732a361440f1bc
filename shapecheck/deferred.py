"""sympy and numpy, imported the first time shapecheck needs them.

Importing sympy takes longer (0.3 s) than checking a small model.  A model whose symbolic
dims are only names (``batch``, ``seq``), that no node computes with, is checked without it
(``shapecheck.dims.light``); every other check imports it on first use.  Each module writes
``from .deferred import sympy`` (under ``if not TYPE_CHECKING``, so that type checkers see the
real module) and uses ``sympy.X`` as before.  numpy is deferred the same way (``from
.deferred import numpy as np``): importing it, and onnx with it, costs as much again, and a
model with no constant values to fold reads neither (``frontends/onnx_proto.py``).

>>> lazy = Deferred("fractions")
>>> lazy.Fraction(1, 2) + 1, "Fraction" in vars(lazy)    # an attribute read is then plain
(Fraction(3, 2), True)
"""
from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator


class _NotImported:
    """Stands for a class of a module not imported yet: nothing is an instance of it."""


class Deferred:
    """A module imported when one of its attributes is first read.  Each attribute read is
    kept on this object, so later reads cost what a module attribute read costs.

    ``classes`` names the module's classes that are only asked about (``isinstance(x,
    np.ndarray)``): until the module is imported, no object is one of them, so reading them
    answers ``_NotImported`` and imports nothing.

    >>> lazy = Deferred("wave", classes={"Error"})    # a module the doctests never import
    >>> isinstance(ValueError(), (int, lazy.Error)), "wave" in sys.modules
    (False, False)
    """

    def __init__(self, module: str, classes: frozenset[str] | set[str] = frozenset()) -> None:
        self.__dict__["_module"] = module
        self.__dict__["_classes"] = frozenset(classes)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        barred = self.__dict__.get("_barred")
        if barred is not None:
            raise barred(f"{self._module}.{attr}")
        if attr in self._classes and self._module not in sys.modules:
            return _NotImported
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
        read = {k: v for k, v in self.__dict__.items() if k not in ("_module", "_classes")}
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
# the numpy classes shapecheck only asks about (isinstance) while it may not have imported numpy
numpy: Any = Deferred("numpy", classes={"ndarray", "generic", "integer", "signedinteger", "unsignedinteger",
                                        "floating", "bool_", "number", "complexfloating", "str_", "bytes_"})


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


__all__ = ["Deferred", "sympy", "numpy", "is_sympy", "sympy_imported"]
