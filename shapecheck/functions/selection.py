"""Selection functions: sizes that depend on a tensor's values (Unique's count of distinct entries,
Compress's count of selected slices, NonZero's count of nonzero elements), and CumSum of a vector
value.  Each count is exact where the value is known (a constant), else the rule's
``otherwise(..., fresh(...))`` takes a fresh unknown dim.

>>> import numpy as np
>>> unique_count(np.array([[1, 2], [3, 1], [1, 2]]), None), unique_count(np.array([[1, 2], [3, 1], [1, 2]]), 0)
(3, 2)
>>> compress_len((1, 0, 1, 1), 3), compress_len(np.array([True, False]), 5)
(2, 1)
"""
from __future__ import annotations

from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..notation import NO_VALUE, Unknown
from ..dims import is_unknown
from .core import _elems, _is_int
from .elementwise import _one


def _known(v: Any) -> np.ndarray | None:
    """A value as an array, or None where any element is known only at run time (a symbol)."""
    if isinstance(v, Unknown) or v is None:
        return None
    if isinstance(v, np.ndarray):
        return v
    elems = v if isinstance(v, tuple) else (v,)
    if not all(isinstance(x, (int, bool, np.integer, np.bool_)) and not is_unknown(x) for x in elems):
        return None
    return np.asarray(elems)


def unique_count(v: Any, axis: Any = None) -> Any:
    """How many distinct entries (``axis`` None: elements of the flattened value; else slices
    along ``axis``) a known value has: Unique's output length. Unknown for a value known only at run time.

    >>> from shapecheck.dims import symbol
    >>> unique_count((4, 4, 2), None), unique_count((symbol("N"), 2), None).__class__.__name__
    (2, 'Unknown')
    """
    a = _known(v)
    if a is None or a.dtype.kind not in "biufcOU" or (axis is not None and not isinstance(axis, int)):
        return NO_VALUE
    if axis is None:
        return len(set(a.reshape(-1).tolist()))
    if not -a.ndim <= axis < a.ndim:
        return NO_VALUE
    moved = np.moveaxis(a, axis, 0).reshape(a.shape[axis], -1)
    return len({tuple(row) for row in moved.tolist()})


def compress_len(cond: Any, n: Any) -> Any:
    """How many of the first ``n`` entries of a known condition are true: Compress's output length
    along its axis (entries past ``n`` select nothing, as onnxruntime reads them). For a symbolic
    ``n`` every entry counts: the spec's constraint that the condition is no longer than the axis
    states that condition. Unknown for a condition known only at run time.

    >>> from shapecheck.dims import symbol
    >>> compress_len((True, False, True), symbol("N")), compress_len(None, 3).__class__.__name__
    (2, 'Unknown')
    """
    a = _known(cond)
    if a is None:
        return NO_VALUE
    flat = a.reshape(-1)
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
        flat = flat[:int(n)]
    return int(np.count_nonzero(flat))


def cumulative(v: Any, exclusive: Any = 0, reverse: Any = 0) -> Any:
    """Running sums of a vector value (CumSum of a shape tensor), exact on symbols.

    >>> from shapecheck.dims import symbol
    >>> N = symbol("N")
    >>> cumulative((N, 3, 4)), cumulative((N, 3, 4), 1, 1)
    ((N, N + 3, N + 7), (7, 4, 0))
    """
    e = _elems(v)
    if e is None or isinstance(exclusive, Unknown) or isinstance(reverse, Unknown) or not isinstance(v, tuple):
        return NO_VALUE
    seq = list(reversed(e)) if reverse else list(e)
    out, acc = [], 0
    for x in seq:
        if exclusive:
            out.append(acc)
        acc = _one("+", acc, x)
        if not exclusive:
            out.append(acc)
    return tuple(reversed(out)) if reverse else tuple(out)


def count_nonzero(v: Any) -> Any:
    """How many elements of a known value are not zero (NonZero's column count); unknown otherwise.

    >>> count_nonzero((0, 3, 5)), count_nonzero(np.array([[True, False], [True, True]]))
    (2, 3)
    """
    if isinstance(v, np.ndarray):
        return int(np.count_nonzero(v)) if v.dtype.kind in "biufc" else NO_VALUE
    e = _elems(v)
    if e is None or not all(_is_int(x) or isinstance(x, (bool, np.bool_)) for x in e):
        return NO_VALUE
    return sum(1 for x in e if x)


NOTATION = (unique_count, compress_len, cumulative, count_nonzero)
