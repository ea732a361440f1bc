"""What a region's types become outside it: branches joined, values carried across iterations, one
value per iteration stacked; no operator is named here (``control_flow`` knows them).

* ``merge``: what two types agree on (an If's branches): equal dims stay, others are fresh unknowns;
  sequences, optionals and maps join part by part (``containers.join``);
* ``generalized``: a value as any iteration sees it: its dtype and rank, a fresh dim per axis (a
  sequence: its elements generalized, its length unknown);
* ``carried``: a carried value after the loop: the initial value's dims where the body keeps them;
* ``outside``: a body type seen from outside (a per-iteration dim is unknown there);
* ``stacked`` and ``without``: a new axis of ``count``, axes removed.

Agreement never assumes: two dims that differ (or cannot be shown equal) give a fresh unknown.

>>> from shapecheck.types import parse_type
>>> str(merge(parse_type("float[N,4]"), parse_type("float[N,5]")))
'float[N,?]'
"""
from __future__ import annotations

from typing import Any

from ..containers import SequenceType, is_container, join, rebuilt, tensors_in
from ..dims import normalize_dim, unknown_dim, is_symbolic
from ..types import TensorType

__all__ = ["merge", "generalized", "without", "carried", "outside", "stacked", "dims_of", "same_value_type"]


def merge(a: Any, b: Any) -> Any:
    """What two types agree on: equal dims stay, others become fresh unknowns; no value."""
    if is_container(a) or is_container(b):
        return join(a, b)
    if a is None or b is None:
        return TensorType((a or b).dtype if (a or b) is not None else None, None)
    dtype = a.dtype if a.dtype == b.dtype else None
    if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
        return TensorType(dtype, None)
    return TensorType(dtype, tuple(x if x == y else unknown_dim("merged") for x, y in zip(a.shape, b.shape)))


def same_value_type(x: Any, y: Any) -> bool:
    """The same type, values aside: what a loop body hands back unchanged."""
    if is_container(x) or is_container(y):
        return type(x) is type(y) and _shape_sig(x) == _shape_sig(y)
    return (x.dtype, x.shape) == (y.dtype, y.shape) and x.shape is not None


def _shape_sig(t: Any) -> tuple:
    return (str(type(t).__name__), getattr(t, "length", None),
            tuple((x.dtype, x.shape) for x in tensors_in(t)))


def generalized(t: Any, name: str, exact: bool = False) -> Any:
    """The dtype and rank of ``t``, a fresh dim per axis (named where it stands): any iteration's
    value; with ``exact``, ``t``'s type (no value): the first iteration's.  A sequence is
    generalized element-wise, its length unknown."""
    if is_container(t):
        if exact:
            return rebuilt(t, lambda x: TensorType(x.dtype, x.shape))
        base = t.elem if isinstance(t, SequenceType) else t
        g = rebuilt(base, lambda x: generalized(x, f"{name}.elem") or TensorType(None, None),
                    lambda d: unknown_dim(f"len({name})"))
        return SequenceType(g, None) if isinstance(t, SequenceType) else g
    if exact and t is not None:
        return TensorType(t.dtype, t.shape)
    if t is None or t.shape is None:
        return None if t is None or t.dtype is None else TensorType(t.dtype, None)
    return TensorType(t.dtype, tuple(unknown_dim(f"{name}.shape[{i}]") for i in range(len(t.shape))))


def without(t: TensorType | None, axes: tuple) -> TensorType | None:
    """``t`` without ``axes`` (negative: from the end); of unknown rank where one is out of range."""
    if is_container(t):
        return TensorType(None, None)
    if t is None or t.shape is None:
        return t if t is None else TensorType(t.dtype, None)
    r = len(t.shape)
    if not all(-r <= a < r for a in axes):
        return TensorType(t.dtype, None)
    drop = {a % r for a in axes}
    return TensorType(t.dtype, tuple(d for i, d in enumerate(t.shape) if i not in drop))


def carried(initial: Any, bound: Any, final: Any, invariant: dict, body_dims: set | None = None) -> Any:
    """A carried value after the loop: the initial value's dims where the body keeps them, else unknown.

    ``invariant`` collects body dim -> initial dim for every dim the body hands back unchanged; a
    sequence, optional or map is the join of its initial value and the last body value."""
    if is_container(initial) or is_container(final):
        last = outside(final, invariant, body_dims or set())
        return join(initial, last) if final is not None else TensorType(None, None)
    if initial is None or bound is None or final is None or bound.shape is None or initial.shape is None:
        return merge(initial, final)
    if final.shape is None or len(final.shape) != len(bound.shape) or (final.dtype and final.dtype != initial.dtype):
        return TensorType(initial.dtype if final.dtype in (None, initial.dtype) else None, None)
    dims = []
    for b, f, i in zip(bound.shape, final.shape, initial.shape):
        if f == b:
            invariant[b] = i
            dims.append(i)
        else:
            dims.append(unknown_dim("loop-carried"))
    return TensorType(initial.dtype, tuple(dims))


def outside(t: Any, invariant: dict, body_dims: set) -> Any:
    """A body type seen from outside: invariant body dims become the initial ones, other body dims unknown."""
    if is_container(t):
        return rebuilt(t, lambda x: outside(x, invariant, body_dims), lambda d: _outside_dim(d, invariant, body_dims))
    if t is None or t.shape is None:
        return t
    return TensorType(t.dtype, tuple(_outside_dim(d, invariant, body_dims) for d in t.shape))


def _outside_dim(d: Any, invariant: dict, body_dims: set) -> Any:
    if is_symbolic(d) and d.free_symbols & body_dims:
        outer = set().union(*(v.free_symbols for v in invariant.values() if is_symbolic(v)))
        d = normalize_dim(d.xreplace(invariant))
        if is_symbolic(d) and d.free_symbols & (body_dims - outer):
            d = unknown_dim("per-iteration")
    return d


def stacked(t: Any, count: Any, axis: int = 0) -> TensorType:
    """``t`` stacked ``count`` times along a new ``axis`` (negative: from the end of the result)."""
    if is_container(t):
        return TensorType(None, None)
    if t is None or t.shape is None:
        return TensorType(t.dtype if t is not None else None, None)
    axis = axis + len(t.shape) + 1 if axis < 0 else axis
    if not 0 <= axis <= len(t.shape):
        return TensorType(t.dtype, None)
    return TensorType(t.dtype, t.shape[:axis] + (count,) + t.shape[axis:])


def dims_of(t: Any) -> set:
    """The symbols of ``t``'s dims (of every tensor in a sequence, optional or map)."""
    out: set = set()
    for x in tensors_in(t) if t is not None else ():
        for d in x.shape or ():
            if is_symbolic(d):
                out |= d.free_symbols
    return out
