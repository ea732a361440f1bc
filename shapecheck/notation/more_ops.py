"""Notation functions of the issue-16 "more ops" specs: sizes that depend on a tensor's values
(Unique's count of distinct entries, Compress's count of selected slices).  Each gives the exact
count where the value is known (a constant), else the rule's ``otherwise(..., fresh(...))`` takes
a fresh unknown dim.

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

from ..types import is_unknown
from .logic import NO_VALUE, TensorVal, Unknown


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

    >>> from shapecheck.types import symbol
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

    >>> from shapecheck.types import symbol
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


def _tensor_value(t: Any) -> np.ndarray | None:
    """A constant tensor's contents (an integer vector may be held as its elements), else None."""
    if not isinstance(t, TensorVal):
        return None if t is None or isinstance(t, Unknown) else np.asarray(t)
    if t.value is not None:
        return t.value
    return _known(t.sym[0] if t.sym is not None and t.shape == () else t.sym)


def nms_count(boxes: Any, scores: Any, limit: Any, iou: Any, score: Any, center: Any) -> Any:
    """NonMaxSuppression's number of selected boxes where boxes, scores and the given limits (tensors,
    or arrays; None for an absent one) are constants: the executor's kernel counts them. Unknown otherwise.

    >>> import numpy as np
    >>> nms_count(np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1]]], np.float32), np.array([[[0.9, 0.8]]], np.float32),
    ...           np.array([3]), np.array([0.5], np.float32), None, 0)
    1
    """
    from ..kernels.more_ops2 import nms
    arrays = [_tensor_value(t) for t in (boxes, scores, limit, iou, score)]
    if arrays[0] is None or arrays[1] is None or any(t is not None and a is None
                                                     for t, a in zip((limit, iou, score), arrays[2:])):
        return NO_VALUE
    b, s = np.asarray(arrays[0]), np.asarray(arrays[1])
    if b.ndim != 3 or s.ndim != 3 or b.shape[-1:] != (4,) or s.shape[0] != b.shape[0] or s.shape[2] != b.shape[1]:
        return NO_VALUE
    opt = [None if v is None else np.asarray(v) for v in arrays[2:]]
    if any(v is not None and v.size != 1 for v in opt):
        return NO_VALUE
    return int(nms(b, s, *opt, center_point_box=int(center)).shape[0])


# the functions this module lends the notation (registered by notation/compile.py)
NOTATION = (unique_count, compress_len, nms_count,)
