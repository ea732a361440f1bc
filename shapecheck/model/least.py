"""A node's unknown output dims solved again with its input dims counted from their least values.

A shape function decides signs and orders over dims it knows only to be non-negative.  A Slice that
keeps the last ``L`` rows of a table, ``L = floor(T/6 - 4/3) + 1`` (a convolution's length, read by
Shape), starts at ``-L``: at ``T = 0`` that is 1, a start from the front, so over every ``T >= 0``
the slice has no one length, and the function says it is unknown.  The pass knows more: every
input dim is at least 1 (unless ``assume_nonempty=False``), and the convolution needs ``T >= 11``
(``model.facts``).  Written as ``T = 11 + t`` with ``t >= 0``, ``L`` is at least 1, the start is
from the end, and the length is ``Min(40, L)``.  So where a node's outputs hold unknown dims it
made, the node is solved again on its inputs so written, and where that solve needs nothing (it is
valid: a condition of its own the first did not state would go unsaid), each dim the first left
unknown and the second gives is taken, written back over ``T``.  That is sound: the facts hold wherever the
model is valid, as they do for ``Facts.settle``.

>>> from shapecheck.dims import symbol
>>> T = symbol("T")
>>> forward, back = shifts({T}, {T: (11, None, 1)})
>>> x = forward[T]
>>> x, x.xreplace(back)
(T + 11, T)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..containers import dims_in
from ..dims import LIGHT, is_symbolic, is_unknown
from ..solver.unify import subst_type
from ..types import TensorType, valued

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


def _counted(name: str) -> Any:
    """A dim counted from another's least value: of a class of its own, so never equal to a model's dim
    of the same name (and never an unknown: a ``Symbol``, not a ``Dummy``)."""
    global _Counted
    if _Counted is None:
        _Counted = type("Counted", (sympy.Symbol,), {"__slots__": ()})
    return _Counted(name, integer=True, nonnegative=True)


_Counted: Any = None


def shifts(syms: set, bounds: dict) -> tuple[dict, dict]:
    """``({dim: counted + least}, {counted: dim - least})`` for each dim of ``syms`` whose least value
    in ``bounds`` (``Facts.bounds_of``: ``(lo, hi, step)``) is above 0."""
    forward, back = {}, {}
    for s in syms:
        lo = bounds.get(s, (0, None, 1))[0]
        if lo is not None and lo > 0:
            c = _counted(s.name)
            forward[s], back[c] = c + lo, s - lo
    return forward, back


def _made(d: Any, given: set) -> bool:
    """Whether ``d`` holds an unknown dim no input gave (one the solve made)."""
    return is_symbolic(d) and any(is_unknown(s) and s not in given for s in d.free_symbols)


def _merged(first: Any, second: Any, given: set, counted: set) -> Any:
    """``first`` with each dim and element it made unknown taken from ``second`` where that one is known."""
    if type(first) is not TensorType or type(second) is not TensorType:
        return first

    def better(a: Any, b: Any) -> Any:
        return b if _made(a, given) and not _made(b, given) and not (is_symbolic(b) and b.free_symbols & counted) else a

    def each(xs: tuple | None, ys: tuple | None) -> tuple | None:
        if xs is None or ys is None or len(xs) != len(ys):
            return xs
        return tuple(better(a, b) for a, b in zip(xs, ys))
    shape, bounds = each(first.shape, second.shape), each(first.bounds, second.bounds)
    sym = each(first.sym, second.elements()) if first.value is None else first.sym
    if shape == first.shape and sym == first.sym and bounds == first.bounds:
        return first
    out = valued(first.dtype, shape, sym) if sym is not None else TensorType(first.dtype, shape)
    return out if bounds is None or out.value is not None else TensorType(out.dtype, out.shape, None, out.sym, bounds)


def from_least(run: Any, spec: Any, node: Any, types: dict, items: Any, n_out: int, result: Any) -> dict:
    """``result``'s outputs, with the dims it made unknown solved again from the input dims' least
    values (``run``: the pass, whose facts and solver cache are used)."""
    facts = run.facts
    if not result.has_unknowns or not facts.active:
        return result.outputs
    inputs = [x for t in types.values() for x in (t if isinstance(t, tuple) else (t,))]
    syms: set = set()
    given: set = set()
    for x in inputs:
        for d in dims_in(x):
            if type(d) in LIGHT:
                return result.outputs   # a light check's names: it computes with none
            if is_symbolic(d):
                free = d.free_symbols
                given |= {s for s in free if is_unknown(s)}
                syms |= {s for s in free if s.is_Symbol and not is_unknown(s)}
    forward, back = shifts(syms, facts.bounds_of(syms))
    if not forward:
        return result.outputs
    moved = {k: tuple(subst_type(x, forward) for x in t) if isinstance(t, tuple) else subst_type(t, forward)
             for k, t in types.items()}
    again = run.cache.solve(spec, moved, node.attrs, items=items, opset=node.opset, unknown_attrs="finding",
                            output_count=n_out, registry=run.registry)
    if again.status != "valid":
        return result.outputs   # outputs that hold only under a condition of its own, which the first did not state
    counted = set(back)
    return {k: _merged(t, subst_type(again.outputs[k], back), given, counted) if k in again.outputs else t
            for k, t in result.outputs.items()}


__all__ = ["from_least", "shifts"]
