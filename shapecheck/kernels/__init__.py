"""Numpy kernels, one module per op family (the family names of ``shapecheck.functions``); the
registry maps a semantics kind to its kernel.

A spec says ``[semantics] kind = "scatter_nd"`` and binds every kernel argument by name
(``data = "data"``, ``reduction = "reduction"``); the executor evaluates those bindings
and calls ``KERNELS[kind](**arguments)``.  A kernel returns one array, or a tuple of
arrays for a spec with several outputs, in the order the spec lists them.

``EXTENTS[kind]`` (optional) tells ``verify`` the size of the axis each entry of the index
input addresses, so that it can draw in-range index values: it takes the *shapes* bound to
the kernel's tensor arguments and the other arguments.

>>> "scatter_nd" in KERNELS and "reshape" in KERNELS
True
"""
from __future__ import annotations

import pkgutil
from importlib import import_module
from typing import Callable, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

Kernel = Callable[..., "np.ndarray | tuple[np.ndarray, ...]"]

KERNELS: dict[str, Kernel] = {}
EXTENTS: dict[str, Callable[..., np.ndarray]] = {}
INDEX_ARG: dict[str, str] = {}   # kind -> the kernel argument whose values are indices (for verify)


def register(kind: str, *, extent: Callable[..., np.ndarray] | None = None, index_arg: str = "indices"):
    """Register a kernel for a semantics kind (a decorator)."""
    def deco(fn: Kernel) -> Kernel:
        if kind in KERNELS:
            raise ValueError(f"semantics kind {kind!r} registered twice")
        KERNELS[kind] = fn
        if extent is not None:
            EXTENTS[kind] = extent
            INDEX_ARG[kind] = index_arg
        return fn
    return deco


# every kernel module registers itself on import; the modules are found by walking the package
for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        import_module(f"{__name__}.{_info.name}")
