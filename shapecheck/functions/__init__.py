"""The function library: every function a rule may call, by name (as sympy's ``functions/``).

One module per op family, named as in the family table of ``docs/design.md``: ``core`` (rank,
dtype, len, range, prod, fresh, otherwise, absent, given, ...), ``elementwise``, ``shape``,
``layout``, ``constant``, ``slicing``, ``gather``, ``scatter``, ``reduction``, ``selection``,
``detection``, ``resize``, ``linalg`` (Einsum), ``conv``, ``attention``; and ``bounds``, not a
family but what several share: the bounds of index values computed from sizes (``Range(0, seq)``
is ``[0, seq - 1]``), which the shape, gather, slicing and elementwise specs pass on; ``float_sizes``, the arithmetic of sizes held in float that the constant family's Cast keeps and the
elementwise family computes on (``math.ceil(h / 2)`` in a TorchScript export); ``reference`` writes
``docs/notation-functions.md`` from their docstrings.

Each module ends with a ``NOTATION`` tuple of its functions; a function's notation name is its
Python name without a leading underscore.  The modules are found by walking this package, so a
new family is a new module (docstrings with doctests) and nothing else; the table they make is
the one the notation's compiler calls functions from (``notation.compile.FUNCTIONS``).  The
kernels may import this library for the arithmetic they share with it (slice clamping, pool and
conv sizes, the Resize shape, NMS box selection); it never imports the kernels.
"""
from __future__ import annotations

import pkgutil
from importlib import import_module
from types import ModuleType
from typing import Callable

from ..notation.compile import FUNCTIONS

# every module lends the notation functions, but ``reference``, which documents the others
LIBRARIES: tuple[ModuleType, ...] = tuple(import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)
                                          if not m.name.startswith("_") and m.name != "reference")


def notation_name(fn: Callable) -> str:
    """The name a rule calls ``fn`` by: its Python name without a leading underscore."""
    return fn.__name__.lstrip("_")


def _table() -> dict[str, Callable]:
    out: dict[str, Callable] = {}
    for lib in LIBRARIES:
        for f in lib.NOTATION:
            name = notation_name(f)
            if name in out:
                raise ImportError(f"notation function {name}() is defined twice ({lib.__name__} and "
                                  f"{out[name].__module__})")
            out[name] = f
    return out


FUNCTIONS.update(_table())

__all__ = ["FUNCTIONS", "LIBRARIES", "notation_name"]
