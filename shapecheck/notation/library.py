"""The notation's function library: every function a rule may call, by name.

Each library module ends with a ``NOTATION`` tuple of its functions; a function's notation
name is its Python name without a leading underscore.  To add functions, write a module
beside this one with a ``NOTATION`` tuple (docstrings with doctests) and add it to
``LIBRARY_MODULES`` below.
"""
from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Callable

# one line registers a library module: its name in this tuple
LIBRARY_MODULES = ("core", "indexing", "values", "shapes", "slicing", "reduction", "layouts", "tensor_ops", "einsum", "conv",
                   "attention", "more_ops", "bounds")

LIBRARIES: tuple[ModuleType, ...] = tuple(import_module(f"{__package__}.{m}") for m in LIBRARY_MODULES)


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


FUNCTIONS: dict[str, Callable] = _table()
