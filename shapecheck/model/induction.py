"""A sequence a loop grows: its length and element type after every iteration, by induction.

TorchScript writes ``torch.stack`` over a list filled in a ``for`` loop as a Loop that carries a
sequence (``SequenceEmpty`` before it, one ``SequenceInsert`` per iteration, ``ConcatFromSequence``
after it).  The first iteration's types (``bind(exact=True)``) are no fixpoint -- the length grows --
and a carried value generalized to any iteration loses both the length and the element.

The induction, for each carried sequence:

* **the hypothesis** (``hypotheses``): the first iteration's body gives back a sequence whose
  element is ``E``; the body is checked again with that sequence bound to ``seq(E, l)``, ``l`` a
  fresh length, every other carried value generalized as before.  If that fails, a looser one:
  ``E``'s dtype and rank, each dim free (``SequenceType.free``: it stands for any value), as when a
  body appends ``x[:i]``;
* **the step** (``step``): the body gives back ``seq(E', l + k)``, ``E'`` the same as ``E`` but in its
  free dims, ``k`` free of ``l`` and of anything that changes between iterations (an int, or the
  model's own dims);
* **the base**: the initial sequence is ``l``'s first value -- its elements are ``E`` (or it is empty
  and of ``E``'s dtype).

Then every iteration sees ``seq(E, L0 + t*k)`` and the loop ends with ``seq(E, L0 + trip*k)``
(``grown``; a free dim is unknown there).  When the step fails, the forward pass checks the body again fully generalized, so a
report never rests on an unproved hypothesis.

>>> from shapecheck.types import parse_type
>>> from shapecheck.dims import symbol, unknown_dim
>>> l, E = unknown_dim("len(s)"), parse_type("float[4]")
>>> step(SequenceType(E, l), SequenceType(E, l + 1))
1
>>> str(grown(SequenceType(TensorType("float", None), 0), SequenceType(E, l), SequenceType(E, l + 1), symbol("n")))
'seq(float[4], n)'
>>> step(SequenceType(E, l), SequenceType(parse_type("float[5]"), l + 1)) is None   # the element changed
True
>>> loose = SequenceType(TensorType("float", (unknown_dim("any"),)), l)
>>> loose.free = frozenset(loose.elem.shape)
>>> str(grown(SequenceType(TensorType("float", None), 0), loose, SequenceType(E, l + 1), 5))
'seq(float[?], 5)'
"""
from __future__ import annotations

from typing import Any

from ..containers import SequenceType
from ..dims import is_symbolic, is_unknown, normalize_dim, unknown_dim
from ..types import TensorType

__all__ = ["hypotheses", "step", "grown"]


def hypotheses(pairs: list[tuple[str, str]], initial: dict[str, Any], env: dict[str, Any]) -> list[dict[str, SequenceType]]:
    """For each (body input, body output) of a carried sequence, after the first iteration's check:
    the body input bound as ``seq(E, l)`` -- ``E`` the element the first iteration gives back, ``l``
    a fresh length -- and, to try next, as ``E``'s dtype and rank with free dims.  ``initial`` maps
    each body input to the value the loop starts with; a pair whose base cannot hold gets none."""
    exact: dict[str, SequenceType] = {}
    loose: dict[str, SequenceType] = {}
    for name, result in pairs:
        first, start = env.get(result), initial.get(name)
        if not isinstance(first, SequenceType) or not isinstance(start, SequenceType) or start.length is None:
            continue
        elem = _plain(first.elem)
        if not isinstance(elem, TensorType) or elem.shape is None or not _base(start, elem, frozenset()):
            continue
        exact[name] = SequenceType(elem, unknown_dim(f"len({name})"))
        anything = TensorType(elem.dtype, tuple(unknown_dim(f"{name}.elem.shape[{i}]") for i in range(len(elem.shape))))
        if anything.shape and _base(start, anything, frozenset(anything.shape)):
            loose[name] = SequenceType(anything, unknown_dim(f"len({name})"))
            loose[name].free = frozenset(anything.shape)
    return [g for g in (exact, {**exact, **loose}) if g] if loose else [exact] if exact else []


def step(bound: Any, final: Any) -> Any:
    """``k`` when the body turned ``seq(E, l)`` into ``seq(E', l + k)``, ``E'`` the same as ``E`` but in
    ``E``'s free dims and ``k`` the same in every iteration; else None."""
    if not isinstance(bound, SequenceType) or not isinstance(final, SequenceType) or final.items:
        return None
    length = bound.length
    if not is_unknown(length) or final.length is None or not _fits(_plain(final.elem), bound.elem, bound.free):
        return None
    k = normalize_dim(final.length - length)
    if is_symbolic(k) and any(is_unknown(s) for s in k.free_symbols):
        return None   # l itself, or a size that may differ from one iteration to the next
    return k


def grown(initial: Any, bound: Any, final: Any, trip: Any) -> SequenceType | None:
    """The carried sequence after ``trip`` iterations when the induction holds: ``seq(E, L0 + trip*k)``
    (a free dim of ``E`` unknown); else None."""
    k = step(bound, final)
    if k is None or not isinstance(initial, SequenceType) or initial.length is None or bound.length == initial.length \
            or not _base(initial, bound.elem, bound.free):
        return None   # (the first iteration's own types: they prove nothing about the next)
    elem = bound.elem
    if bound.free:
        elem = TensorType(elem.dtype, tuple(unknown_dim("per-element") if d in bound.free else d for d in elem.shape))
    return SequenceType(elem, normalize_dim(initial.length + trip * k))


def _fits(t: Any, elem: TensorType, free: frozenset) -> bool:
    """``t`` is what ``elem`` says, a free dim of ``elem`` standing for any dim."""
    if not isinstance(t, TensorType) or t.dtype != elem.dtype or t.shape is None or len(t.shape) != len(elem.shape):
        return False
    return all(a == b or b in free for a, b in zip(t.shape, elem.shape))


def _base(start: SequenceType, elem: TensorType, free: frozenset) -> bool:
    """The initial sequence is a first value of ``seq(elem, l)``: empty of elem's dtype, or of elem's elements."""
    if start.length == 0:
        return start.elem.dtype in (None, elem.dtype)
    items = start.items if start.items is not None else (start.elem,)
    return all(_fits(_plain(x), elem, free) for x in items)


def _plain(t: Any) -> Any:
    return TensorType(t.dtype, t.shape) if isinstance(t, TensorType) else t
