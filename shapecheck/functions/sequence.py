"""Sequence functions: what rules read of a sequence (``is_sequence``, ``elem_type``, ``elem``, ``len``
through ``core``) and the types the sequence ops make (``sequence_of``, ``seq_insert``, ``seq_erase``,
``seq_at``, ``split_sequence``, ``concat_sequence``); ``kind_is`` tests any value's kind.

A sequence keeps each element's own type only where it is known (a SplitToSequence of a known
split); otherwise one type that every element is, with the dims they do not share unknown.  An
unknown length stays unknown: what reads it is a run-time check, never a guess.

>>> from shapecheck.containers import parse_value_type
>>> from shapecheck.notation import as_val
>>> s = as_val("s", parse_value_type("seq(float[?,4], 2) = [float[2,4], float[3,4]]"))
>>> str(seq_insert(s, as_val("t", parse_value_type("float[5,4]")), 1))
'seq(float[?,4], 3) = [float[2,4], float[5,4], float[3,4]]'
>>> str(seq_at(s, -1).shape), str(seq_erase(s, None))
('(3, 4)', 'seq(float[2,4], 1)')
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..containers import SequenceType, TensorType, join, kind_of
from ..notation import NO_VALUE, UNKNOWN, ContainerVal, EvalError, TensorVal, Unknown, UnknownDType, as_val
from ..notation.operators import int_like
from ..dims import is_symbolic, normalize_dim, unknown_dim
from ..dims.rounding import ceiling_of
from .core import _elems

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy


def _type(x: Any) -> Any:
    """The type a value of the notation stands for (a tensor's without its contents' value)."""
    if isinstance(x, ContainerVal):
        return x.type
    if isinstance(x, TensorVal):
        return TensorType(x.dtype, x.shape, x.value, x.sym, x.bounds)
    return TensorType(None, None)


def kind_is(x: Any, kind: str) -> Any:
    """True when ``x`` is of ``kind`` (tensor, sequence, optional, map), False when it is of another,
    unknown for a value of which nothing is known (no element type, no rank: any kind).

    >>> from shapecheck.types import parse_type
    >>> kind_is(TensorVal("x", parse_type("float[2]")), "sequence"), kind_is(TensorVal("x", parse_type("?")), "tensor")
    (False, Unknown(static))
    """
    if x is None:
        return False
    k = kind_of(_type(x))
    return UNKNOWN if k is None else k == kind


def is_sequence(x: Any) -> Any:
    """``kind_is(x, "sequence")``."""
    return kind_is(x, "sequence")


def elem(x: Any) -> Any:
    """What every element of a sequence is (the element of an optional), as a value rules read
    (``rank(elem(s))``, ``elem(s).shape``); of a value of unknown kind, nothing known."""
    t = _type(x)
    inner = getattr(t, "elem", None)
    name = getattr(x, "name", "?")
    return as_val(f"{name}.elem", inner if inner is not None else TensorType(None, None))


def elem_type(x: Any) -> Any:
    """The element type of a tensor, of a sequence's tensors, of an optional's tensor or tensors;
    unknown where it is not known (of a value of unknown kind too).

    >>> from shapecheck.containers import parse_value_type
    >>> [elem_type(as_val("x", parse_value_type(t))) for t in ("int64[3]", "seq(float)", "optional(seq(bool))")]
    ['int64', 'float', 'bool']
    """
    if isinstance(x, TensorVal):
        return x.dtype if x.dtype is not None else UnknownDType(None)
    if isinstance(x, ContainerVal) and x.kind in ("sequence", "optional"):
        return elem_type(elem(x))
    raise EvalError(f"{getattr(x, 'name', x)} has no element type (a map's keys and values have theirs)")


def _length(s: Any) -> Any:
    t = _type(s)
    return t.length if isinstance(t, SequenceType) else None


def seq_length(s: Any) -> Any:
    """A sequence's length as a value (SequenceLength's output): a dim, or known only at run time."""
    n = _length(s)
    return NO_VALUE if n is None else n


def _items(s: Any) -> tuple | None:
    t = _type(s)
    return t.items if isinstance(t, SequenceType) else None


def _elem_type(s: Any) -> Any:
    t = _type(s)
    return t.elem if isinstance(t, SequenceType) else TensorType(None, None)


def sequence(elem_t: Any, length: Any = None) -> SequenceType:
    """A sequence of ``length`` elements (None or unknown: not known) that are each ``elem_t``: a
    value's type, or an element type name (the tensors' rank unknown)."""
    if isinstance(elem_t, str):
        e = TensorType(elem_t, None)
    elif isinstance(elem_t, Unknown):
        e = TensorType(None, None)
    else:
        e = _type(elem_t) if isinstance(elem_t, (TensorVal, ContainerVal)) else elem_t
    if isinstance(e, TensorType):
        e = TensorType(e.dtype, e.shape)
    n = None if length is None or isinstance(length, Unknown) else normalize_dim(length)
    return SequenceType(e, n)


def sequence_of(xs: Any) -> SequenceType:
    """The sequence of these values, in order (SequenceConstruct)."""
    if isinstance(xs, Unknown):
        return SequenceType()
    return SequenceType(None, None, tuple(_plain(_type(x)) for x in xs))


def _plain(t: Any) -> Any:
    return TensorType(t.dtype, t.shape, t.value, t.sym, t.bounds) if isinstance(t, TensorType) else t


def _position(p: Any, n: Any, extra: int) -> int | None:
    """A position value as an index into ``n + extra`` places (negative from the end), when both
    are known ints and it is in range; None otherwise."""
    e = _elems(p.value if isinstance(p, TensorVal) and p.value is not None else
               (p if not isinstance(p, TensorVal) else NO_VALUE))
    if e is None or len(e) != 1 or not int_like(e[0]) or not int_like(n):
        return None
    i = int(e[0])
    i = i + int(n) if i < 0 else i
    return i if 0 <= i < int(n) + extra else None


def seq_insert(s: Any, t: Any, position: Any = None) -> SequenceType:
    """SequenceInsert's output: ``s`` with ``t`` at ``position`` (at the end when absent)."""
    n, items, new = _length(s), _items(s), _plain(_type(t))
    length = None if n is None else normalize_dim(n + 1)
    if items is not None:
        i = len(items) if position is None else _position(position, len(items), 1)
        if i is not None:
            return SequenceType(None, None, items[:i] + (new,) + items[i:])
    base = _elem_type(s) if n != 0 else new
    return SequenceType(join(base, new, "element"), length)


def seq_erase(s: Any, position: Any = None) -> SequenceType:
    """SequenceErase's output: ``s`` without the element at ``position`` (the last when absent)."""
    n, items = _length(s), _items(s)
    if items is not None and items:
        i = len(items) - 1 if position is None else _position(position, len(items), 0)
        if i is not None:
            return SequenceType(_elem_type(s) if len(items) == 1 else None, None, items[:i] + items[i + 1:])
    length = None if n is None or (int_like(n) and n < 1) else normalize_dim(n - 1)
    return SequenceType(_elem_type(s), length)


def seq_at(s: Any, position: Any) -> Any:
    """SequenceAt's output: the element at ``position`` where the elements are known, else what
    every element is."""
    items = _items(s)
    if items:
        i = _position(position, len(items), 0)
        if i is not None:
            return as_val(f"{getattr(s, 'name', 's')}[{i}]", _plain(items[i]))
    return as_val(f"{getattr(s, 'name', 's')}.elem", _elem_type(s))


def split_sequence(x: Any, split: Any, axis: Any, keepdims: Any) -> SequenceType:
    """SplitToSequence's output: the parts of ``x`` along ``axis`` (normalized), by ``split`` (None:
    parts of 1; a scalar: parts of that size, the last what is left; a vector: those sizes)."""
    if not isinstance(x, TensorVal) or x.shape is None or not int_like(axis):
        return SequenceType(TensorType(getattr(x, "dtype", None), None))
    shape, a, dtype = x.shape, int(axis), x.dtype
    d = shape[a]
    sizes = None if split is None else _elems(split.value) if isinstance(split, TensorVal) and \
        split.value is not None else (_elems(split.sym) if isinstance(split, TensorVal) and split.sym else None)

    def part(size: Any, squeeze: bool) -> TensorType:
        return TensorType(dtype, shape[:a] + (() if squeeze else (size,)) + shape[a + 1:])

    if split is None or (isinstance(split, TensorVal) and split.shape == (0,)):   # parts of 1
        squeeze = not keepdims
        if int_like(d):
            return SequenceType(None, None, tuple(part(1, squeeze) for _ in range(int(d))))
        return SequenceType(part(1, squeeze), d)
    if isinstance(split, TensorVal) and split.shape == ():                         # a scalar split
        if sizes is None or not int_like(sizes[0]) or int(sizes[0]) < 1:   # (keepdims = 0: squeezed where it is 1)
            return SequenceType(part(unknown_dim("part"), False) if keepdims else TensorType(dtype, None), None)
        c = int(sizes[0])
        if int_like(d):
            lens = [c] * (int(d) // c) + ([int(d) % c] if int(d) % c else [])
            return SequenceType(None, None, tuple(part(k, not keepdims and k == 1) for k in lens))
        count = normalize_dim(ceiling_of(sympy.sympify(d) / c))
        return SequenceType(part(1 if c == 1 else unknown_dim("part"), c == 1 and not keepdims), count)
    if sizes is not None and all(int_like(k) or is_symbolic(k) for k in sizes):   # a vector of sizes
        return SequenceType(None, None, tuple(part(normalize_dim(k), False) for k in sizes))
    n = split.shape[0] if isinstance(split, TensorVal) and split.shape and len(split.shape) == 1 else None
    return SequenceType(part(unknown_dim("part"), False), n)


def concat_sequence(s: Any, axis: Any, new_axis: Any) -> Any:
    """ConcatFromSequence's output shape: the elements joined along ``axis`` (normalized), or stacked
    on a new ``axis`` when ``new_axis``; an unknown dim where the elements' dims are not known."""
    items, n, e = _items(s), _length(s), _elem_type(s)
    if not int_like(axis):
        return UNKNOWN
    a = int(axis)
    if items:
        shapes = [x.shape for x in items if isinstance(x, TensorType)]
        if len(shapes) != len(items) or any(sh is None for sh in shapes):
            return UNKNOWN
        first = shapes[0]
        if new_axis:
            return first[:a] + (len(items),) + first[a:]
        total: Any = 0
        for sh in shapes:
            total = normalize_dim(sympy.sympify(total) + sh[a]) if not (int_like(total) and int_like(sh[a])) \
                else total + sh[a]
        return first[:a] + (total,) + first[a + 1:]
    if not isinstance(e, TensorType) or e.shape is None:
        return UNKNOWN
    if new_axis:
        count = n if n is not None else unknown_dim("length")
        return e.shape[:a] + (count,) + e.shape[a:]
    along = normalize_dim(n * e.shape[a]) if n is not None and not _unknown(e.shape[a]) else unknown_dim("concat")
    return e.shape[:a] + (along,) + e.shape[a + 1:]


def concat_fits(s: Any, axis: Any, new_axis: Any) -> Any:
    """ConcatFromSequence's elements fit together: each has the first one's rank and its dims but on
    ``axis`` (every dim with ``new_axis``).  Where the elements are not each known, dims every element
    shares (the sequence's element type) fit, and any other is known only at run time.

    >>> from shapecheck.containers import parse_value_type
    >>> from shapecheck.notation import as_val
    >>> concat_fits(as_val("s", parse_value_type("seq(float[2,3], 2) = [float[2,3], float[4,3]]")), 0, 0)
    True
    >>> concat_fits(as_val("s", parse_value_type("seq(float[?,3])")), 0, 0), concat_fits(as_val("s", parse_value_type("seq(float[?,3])")), 1, 0)
    (True, Unknown(value))
    """
    from ..notation import and_, compare_dims
    items, e = _items(s), _elem_type(s)
    if not int_like(axis):
        return UNKNOWN
    skip = () if new_axis else (int(axis),)
    if items:
        shapes = [x.shape if isinstance(x, TensorType) else None for x in items]
        if any(sh is None for sh in shapes):
            return NO_VALUE
        r = len(shapes[0])
        if any(len(sh) != r for sh in shapes):
            return False
        return and_([compare_dims(sh[d], "==", shapes[0][d]) for sh in shapes[1:] for d in range(r) if d not in skip])
    if not isinstance(e, TensorType) or e.shape is None:
        return NO_VALUE
    return NO_VALUE if any(_unknown(d) for i, d in enumerate(e.shape) if i not in skip) else True


def _unknown(d: Any) -> bool:
    from ..dims import has_unknown
    return is_symbolic(d) and has_unknown(d)


NOTATION = (kind_is, is_sequence, elem, elem_type, seq_length, sequence, sequence_of, seq_insert, seq_erase, seq_at,
            split_sequence, concat_sequence, concat_fits)

for _f in (kind_is, is_sequence, elem, elem_type, seq_length, sequence, sequence_of, concat_sequence, concat_fits):
    _f.type_only = True   # type: ignore[attr-defined]  # reads a sequence's type, never a tensor's contents
