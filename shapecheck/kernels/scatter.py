"""Kernels of the ONNX scatter ops (``scatter_elements``, ``scatter_nd``, and TensorScatter's KV-cache
update ``tensor_scatter``), vectorized with numpy.

No kernel loops over elements or index tuples in Python: targets become linear
indices into a flat view and reductions use ``ufunc.at``.

Duplicate targets under ``reduction = "none"``: the update that comes last in
row-major order of ``updates`` wins, which is what onnxruntime, onnx.reference
and OpenVINO do (docs/runtime-findings.md, Q7).

>>> import numpy as np
>>> scatter_elements(np.zeros((1, 5), np.float32), np.array([[1, -3]]), np.array([[1., 2.]], np.float32), axis=1)
array([[0., 1., 2., 0., 0.]], dtype=float32)
"""
from __future__ import annotations

import os
from typing import Callable, TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
else:
    from ..deferred import numpy as np

from . import register

_REDUCERS = {"add": "add", "mul": "multiply", "max": "maximum", "min": "minimum"}   # numpy ufuncs


def _strides(shape: tuple[int, ...]) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def _occurrence(lin: np.ndarray, size: int, sort: bool = True) -> np.ndarray | None:
    """For each update, how many earlier updates hit the same target; None when no target repeats.

    With ``sort=False`` only whether targets repeat is computed (any array stands for "yes").
    """
    n = lin.shape[0]
    if n <= 1:
        return None
    if size <= 8 * n:   # a count per target is cheaper than a sort when targets are few
        if np.bincount(lin, minlength=size).max() <= 1:
            return None
        if not sort:
            return lin
    order = np.argsort(lin, kind="stable")   # stable: equal targets keep the order of updates
    sl = lin[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(sl[1:], sl[:-1], out=first[1:])
    if first.all():
        return None
    pos = np.arange(n, dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = pos - np.maximum.accumulate(np.where(first, pos, 0))
    return rank


def _apply(flat: np.ndarray, lin: np.ndarray, vals: np.ndarray, reduction: str) -> None:
    """Write ``vals`` into ``flat`` (a 1-D or 2-D row view) at ``lin`` with the reduction.

    Unique targets take one fancy-indexed step.  Duplicates are applied in rounds, round r
    holding every target's r-th update, so each target sees its updates in order (as a
    sequential loop would) and each round is again unique fancy indexing.
    """
    if reduction != "none" and flat.ndim == 1:
        # one dimension: numpy's ufunc.at is fast and applies duplicates in order
        getattr(np, _REDUCERS[reduction]).at(flat, lin, vals)
        return
    rank = _occurrence(lin, flat.shape[0], sort=flat.ndim == 2 and reduction != "none")
    if reduction == "none":
        if rank is None:
            _put(flat, lin, vals)
        else:  # the last update of each target wins
            last = np.full(flat.shape[0], -1, dtype=np.int64)
            np.maximum.at(last, lin, np.arange(lin.shape[0], dtype=np.int64))
            keep = last[last >= 0]
            _put(flat, lin[keep], vals[keep])
        return
    ufunc = getattr(np, _REDUCERS[reduction])
    if rank is None:
        _combine(flat, lin, vals, ufunc)
        return
    rounds = int(rank.max()) + 1
    if flat.ndim == 1 or (rounds > 32 and flat.dtype != object):
        # many updates on few targets: ufunc.at on one dimension is faster than many rounds
        if flat.ndim == 2:
            width = flat.shape[1]
            lin = (lin[:, None] * width + np.arange(width, dtype=np.int64)).reshape(-1)
            flat, vals = flat.reshape(-1), vals.reshape(-1)
        ufunc.at(flat, lin, vals)
        return
    by_round = np.argsort(rank, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(rank, minlength=rounds))))
    for r in range(rounds):
        sel = by_round[bounds[r]:bounds[r + 1]]
        _combine(flat, lin[sel], vals[sel], ufunc)


def _combine(flat: np.ndarray, lin: np.ndarray, vals: np.ndarray, ufunc: np.ufunc) -> None:
    """``flat[lin] = ufunc(flat[lin], vals)`` for unique ``lin``, in parallel chunks when large."""
    if flat.dtype == object:
        _put(flat, lin, ufunc(np.take(flat, lin, axis=0), vals))
        return
    _in_parallel(lambda part: _put(flat, lin[part], ufunc(np.take(flat, lin[part], axis=0), vals[part]), False),
                 len(lin))


def _put(flat: np.ndarray, lin: np.ndarray, vals: np.ndarray, parallel: bool = True) -> None:
    """``flat[lin] = vals`` for unique ``lin``; whole rows move as single opaque items (3x faster)."""
    if flat.ndim == 2 and flat.dtype != object and flat.shape[1] and flat.flags.c_contiguous:
        row = np.dtype((np.void, flat.dtype.itemsize * flat.shape[1]))
        try:
            target = flat.view(row).reshape(-1)
            items = np.ascontiguousarray(vals, dtype=flat.dtype).view(row).reshape(-1)
        except (TypeError, ValueError):  # a dtype without a plain byte layout: the general path
            flat[lin] = vals
            return
        # targets are unique, so the order of writes does not matter: split them over threads
        if parallel:
            _in_parallel(lambda part: np.put(target, lin[part], items[part]), len(lin))
        else:
            np.put(target, lin, items)
        return
    flat[lin] = vals


_POOL: ThreadPoolExecutor | None = None
_PARALLEL_MIN = 1 << 16      # elements (or rows) below which threads cost more than they save


def _in_parallel(work: Callable[[slice], object], n: int) -> None:
    """Run ``work`` on slices of ``range(n)``, on several threads when n is large (numpy frees the GIL)."""
    global _POOL
    workers = min(4, os.cpu_count() or 1)
    if n < _PARALLEL_MIN or workers < 2:
        work(slice(0, n))
        return
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor   # a check that folds no large scatter needs no threads
        _POOL = ThreadPoolExecutor(workers, thread_name_prefix="shapecheck-kernel")
    step = -(-n // workers)
    list(_POOL.map(work, [slice(i, min(i + step, n)) for i in range(0, n, step)]))


def _copy(data: np.ndarray) -> np.ndarray:
    """A C-ordered copy of ``data``; large ones are copied by several threads."""
    if data.dtype == object or data.size < _PARALLEL_MIN * 16 or not data.flags.c_contiguous:
        return np.array(data, copy=True, order="C")
    out = np.empty_like(data, order="C")
    src, dst = data.reshape(-1), out.reshape(-1)
    _in_parallel(lambda part: np.copyto(dst[part], src[part]), dst.size)
    return out


@register("scatter_elements", extent=lambda data, indices, *, axis, **_: elements_extent(data, indices, axis=axis))
def scatter_elements(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int,
                     reduction: str = "none") -> np.ndarray:
    """output[.., indices[i,j,..], ..] = updates[i,j,..] on ``axis``; own position elsewhere."""
    out = _copy(data)
    if indices.size == 0:
        return out
    shape = out.shape
    strides = _strides(shape)
    idx = indices.astype(np.int64, copy=False)
    size = shape[axis]
    lin = idx * strides[axis]          # a new array: the in-place steps below do not touch indices
    if idx.min() < 0:                  # values are checked to be in [-s, s-1] already
        lin += (idx < 0) * (size * strides[axis])
    for d in range(out.ndim):
        if d == axis:
            continue
        view = [1] * out.ndim
        view[d] = indices.shape[d]
        lin += (np.arange(indices.shape[d], dtype=np.int64) * strides[d]).reshape(view)
    _apply(out.reshape(-1), lin.reshape(-1), np.ascontiguousarray(updates).reshape(-1), reduction)
    return out


@register("scatter_nd", extent=lambda data, indices, **_: nd_extent(data, indices))
def scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, reduction: str = "none") -> np.ndarray:
    """output[indices[idx]] = updates[idx] for every idx of indices.shape[:-1] (a slice when k < r)."""
    out = _copy(data)
    k = indices.shape[-1]
    rows = int(np.prod(indices.shape[:-1], dtype=np.int64))
    if rows == 0:
        return out
    lead = out.shape[:k]
    width = int(np.prod(out.shape[k:], dtype=np.int64))
    n_slices = int(np.prod(lead, dtype=np.int64))
    if k == 0:
        lin = np.zeros(rows, dtype=np.int64)
    else:
        idx = indices.reshape(rows, k).astype(np.int64, copy=False)
        dims = np.asarray(lead, dtype=np.int64)
        idx = np.where(idx < 0, idx + dims, idx)
        lin = idx @ np.asarray(_strides(lead), dtype=np.int64)
    flat = out.reshape(n_slices, width)
    vals = np.ascontiguousarray(updates).reshape(rows, width)
    if width == 1:
        _apply(flat.reshape(-1), lin, vals.reshape(-1), reduction)
    else:
        _apply(flat, lin, vals, reduction)
    return out


def elements_extent(data_shape: tuple[int, ...], indices_shape: tuple[int, ...], *, axis: int, **_) -> np.ndarray:
    """Size of the axis each entry of ``indices`` addresses: ``data.shape[axis]`` everywhere."""
    return np.full(indices_shape, data_shape[axis], dtype=np.int64)


def nd_extent(data_shape: tuple[int, ...], indices_shape: tuple[int, ...], **_) -> np.ndarray:
    """Size of the axis each entry of ``indices`` addresses: column j of a tuple indexes ``data.shape[j]``.

    >>> nd_extent((4, 5, 6), (3, 2)).tolist()
    [[4, 5], [4, 5], [4, 5]]
    """
    k = indices_shape[-1]
    return np.broadcast_to(np.asarray(data_shape[:k], dtype=np.int64), indices_shape)


@register("tensor_scatter")
def tensor_scatter(past_cache: np.ndarray, update: np.ndarray, write_indices: np.ndarray | None, *,
                   axis: int, mode: str) -> np.ndarray:
    """present[b, .., (w[b] + s) (mod M in circular mode), ..] = update[b, .., s, ..]."""
    out = np.array(past_cache, copy=True)
    batch, m, seq = past_cache.shape[0], past_cache.shape[axis], update.shape[axis]
    w = np.zeros(batch, np.int64) if write_indices is None else write_indices.astype(np.int64).reshape(batch)
    pos = w[:, None] + np.arange(seq, dtype=np.int64)[None, :]          # [batch, seq]
    if mode == "circular":
        pos %= m
    src = np.moveaxis(update, axis, 1)          # [batch, seq, ...]
    dst = np.moveaxis(out, axis, 1)             # a view of out: [batch, M, ...]
    dst[np.arange(batch)[:, None], pos] = src
    return out
