"""The outputs of a solved query: one slot per output tensor, each with its type, shape and value."""
from __future__ import annotations

from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..containers import is_container
from ..notation import ContainerVal, EvalError, NeedInt, TensorVal, Unknown
from ..registry import Spec
from ..types import TensorType, numpy_dtype, valued
from ..dims import has_unknown, is_symbolic, normalize_dim, unknown_dim

__all__ = ["output_slots", "output_type"]


def output_slots(spec: Spec, output_count: int | None = None) -> list[tuple[str, Any, int | None]]:
    """(result key, output declaration, position among a variadic output's tensors) in node order.

    >>> from shapecheck.registry import default_registry
    >>> [k for k, _, _ in output_slots(default_registry().resolve("ScatterND", 18))]
    ['output']
    """
    fixed = [o for o in spec.outputs if not o.variadic]
    out: list[tuple[str, Any, int | None]] = [(o.name, o, None) for o in fixed]
    if spec.outputs and spec.outputs[-1].variadic:
        last = spec.outputs[-1]
        n = max((output_count if output_count is not None else len(spec.outputs)) - len(fixed), 1)
        out += [(f"{last.name}[{i}]", last, i) for i in range(n)]
    return out


def _dim(d: Any, where: str) -> Any:
    """An output dim: an int or a symbolic dim; anything else (Unknown, a float read from a float
    tensor's value, where an invalid query gave a shape input of the wrong type) is a fresh unknown.

    >>> from shapecheck.types import dim_str
    >>> [dim_str(_dim(d, "y.shape[0]")) for d in (3, -10.0)]
    ['3', '?']
    """
    d = normalize_dim(d)
    if type(d) is int or (is_symbolic(d) and not d.is_number):   # a sympy number left is not whole
        return d
    return unknown_dim(where)


def output_type(out, env) -> TensorType:
    def attempt(fn):
        try:
            return fn(env) if fn is not None else None
        except (EvalError, NeedInt):
            return None
    dt = attempt(out.type_fn)
    if isinstance(dt, ContainerVal):   # a sequence, optional or map passed on whole (OptionalGetElement)
        dt = dt.type
    if is_container(dt):               # an output that is no tensor: its type says it all
        return dt
    if isinstance(dt, TensorVal) and out.shape_fn is None:   # a tensor passed on whole: its type, no value
        return TensorType(dt.dtype, dt.shape)
    shape = attempt(out.shape_fn)
    dtype = dt if isinstance(dt, str) else None
    if isinstance(shape, tuple):   # a dim the rules cannot tell (a length known at run time) is a fresh unknown
        shape = tuple(_dim(d, f"{out.name}.shape[{i}]") for i, d in enumerate(shape))
    else:
        shape = None
    value = attempt(out.value_fn)
    if isinstance(value, np.ndarray):
        if shape is not None and value.shape == shape and dtype is not None:
            return TensorType(dtype, shape, value.astype(numpy_dtype(dtype), copy=False))
        return TensorType(dtype, shape)
    if value is None or isinstance(value, Unknown):
        return TensorType(dtype, shape, bounds=_bounds(attempt(out.bounds_fn)))
    return valued(dtype, shape, value if isinstance(value, tuple) else (value,))


def _bounds(b: Any) -> tuple | None:
    """An output's element bounds ``(lo, hi, exact)``, when its bounds rule gave two dims free of unknowns."""
    if not isinstance(b, tuple) or len(b) != 3:
        return None
    out = tuple(normalize_dim(x) for x in b[:2])
    if all(type(x) is int or (is_symbolic(x) and not x.is_number and not has_unknown(x)) for x in out):
        return out + (bool(b[2]),)
    return None
