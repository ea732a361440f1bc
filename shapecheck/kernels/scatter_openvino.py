"""OpenVINO scatter kernels: ``scatter_elements_update`` (-12), ``scatter_nd_update`` (-3, -15), ``scatter_update``,
and ``slice_scatter`` (a copy of ``data`` with the Slice-8 region ``start:stop:step`` on ``axes`` set to
``updates``; the positions are ``functions/slicing.py``'s ``slice_range``).

Reductions are OpenVINO's names: sum, sub, prod, min, max, mean.  On booleans sum, sub
and prod act as OR, XOR and AND (what the CPU plugin computes).  Integer ``mean``
truncates toward zero, as the CPU plugin does (the ScatterElementsUpdate-12 page says
floor; docs/runtime-findings.md).  Updates to one target are applied in row-major
order of ``updates``; with reduction none the last one wins.

>>> import numpy as np
>>> scatter_elements_update(np.array([1, 2], np.int32), np.array([0, 0]), np.array([2, 3], np.int32),
...                         axis=0, reduction="mean", use_init_val=True).tolist()
[2, 2]
>>> slice_scatter(np.zeros(5), np.ones(2), np.array([0]), np.array([4]), np.array([2]), None).tolist()
[1.0, 0.0, 1.0, 0.0, 0.0]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..functions.slicing import slice_range
from . import register
from .scatter import elements_extent, nd_extent


def _ufunc(reduction: str, dtype: np.dtype) -> np.ufunc:
    if dtype == np.bool_:
        return {"sum": np.logical_or, "sub": np.logical_xor, "prod": np.logical_and, "mean": np.logical_or,
                "min": np.logical_and, "max": np.logical_or}[reduction]
    return {"sum": np.add, "mean": np.add, "sub": np.subtract, "prod": np.multiply,
            "min": np.minimum, "max": np.maximum}[reduction]


def _identity(reduction: str, dtype: np.dtype):
    if reduction in ("sum", "sub", "mean"):
        return 0
    if reduction == "prod":
        return 1
    info = np.finfo(dtype) if dtype.kind == "f" else (np.iinfo(dtype) if dtype.kind in "iu" else None)
    if info is None:   # bool, bfloat16
        return reduction == "min"
    return info.max if reduction == "min" else info.min


def reduce_into(out: np.ndarray, lin: np.ndarray, vals: np.ndarray, reduction: str, use_init_val: bool = True) -> None:
    """Apply ``vals`` to the flat view of ``out`` at ``lin`` (in order) with an OpenVINO reduction."""
    flat = out.reshape(-1)
    if reduction == "none":
        flat[lin] = vals       # numpy applies repeated targets in order: the last one wins
        return
    if not use_init_val:
        flat[lin] = _identity(reduction, flat.dtype)
    if reduction == "mean":
        count = np.bincount(lin, minlength=flat.size)[lin] + (1 if use_init_val else 0)
        if flat.dtype.kind in "iu":
            acc = flat.astype(np.int64)
            np.add.at(acc, lin, vals.astype(np.int64))
            q = acc[lin]
            flat[lin] = (np.sign(q) * (np.abs(q) // count)).astype(flat.dtype)   # truncate toward zero
        else:
            acc = flat.astype(np.float64)
            np.add.at(acc, lin, vals.astype(np.float64))
            flat[lin] = (acc[lin] / count).astype(flat.dtype)
        return
    _ufunc(reduction, flat.dtype).at(flat, lin, vals)


@register("scatter_elements_update", extent=lambda data, indices, *, axis, **_: elements_extent(data, indices, axis=axis))
def scatter_elements_update(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int,
                            reduction: str = "none", use_init_val: bool = True) -> np.ndarray:
    """ScatterElementsUpdate: output[.., indices[i,j,..], ..] (on axis) reduced with updates[i,j,..]."""
    out = np.array(data, copy=True, order="C")
    if indices.size == 0:
        return out
    coords: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
    idx = indices.astype(np.int64)
    coords[axis] = np.where(idx < 0, idx + data.shape[axis], idx)
    lin = np.ravel_multi_index(tuple(np.broadcast_arrays(*coords)), data.shape).reshape(-1)
    reduce_into(out, lin, np.asarray(updates).reshape(-1), reduction, bool(use_init_val))
    return out


@register("scatter_nd_update", extent=lambda data, indices, **_: nd_extent(data, indices))
def scatter_nd_update(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, reduction: str = "none") -> np.ndarray:
    """ScatterNDUpdate: output[indices[idx]] reduced with updates[idx] (a slice when k < rank)."""
    out = np.array(data, copy=True, order="C")
    k = indices.shape[-1]
    rows = int(np.prod(indices.shape[:-1], dtype=np.int64))
    if rows == 0:
        return out
    width = int(np.prod(out.shape[k:], dtype=np.int64))
    idx = indices.reshape(rows, k).astype(np.int64)
    lead = np.asarray(out.shape[:k], dtype=np.int64)
    idx = np.where(idx < 0, idx + lead, idx)
    first = np.asarray(np.ravel_multi_index(tuple(idx.T), out.shape[:k]) if k else np.zeros(rows, np.int64))
    lin = (first[:, None] * width + np.arange(width, dtype=np.int64)).reshape(-1)
    reduce_into(out, lin, np.asarray(updates).reshape(-1), reduction)
    return out


def _update_extent(data_shape, indices_shape, *, axis: int, **_) -> np.ndarray:
    return np.full(indices_shape, data_shape[axis], dtype=np.int64)


@register("scatter_update", extent=_update_extent)
def scatter_update(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int) -> np.ndarray:
    """ScatterUpdate: output[.., indices[i..], ..] = updates[.., i.., ..] (whole slices along axis)."""
    out = np.array(data, copy=True, order="C")
    idx = indices.astype(np.int64).reshape(-1)
    idx = np.where(idx < 0, idx + data.shape[axis], idx)
    lead, tail = data.shape[:axis], data.shape[axis + 1:]
    vals = np.asarray(updates).reshape(lead + (idx.size,) + tail)
    moved = np.moveaxis(out, axis, 0)
    moved[idx] = np.moveaxis(vals, axis, 0)      # repeated indices: the last one wins
    return out


@register("slice_scatter")
def slice_scatter(data: np.ndarray, updates: np.ndarray, start: np.ndarray, stop: np.ndarray, step: np.ndarray,
                  axes: np.ndarray | None) -> np.ndarray:
    """out = data; out[region] = updates, region from start/stop/step on axes (all axes in order when absent)."""
    out = np.array(data, copy=True)
    starts, stops, steps = (np.asarray(v).reshape(-1).tolist() for v in (start, stop, step))
    ax = list(range(len(starts))) if axes is None else np.asarray(axes).reshape(-1).tolist()
    region = [np.arange(n) for n in out.shape]
    for a, lo, hi, st in zip(ax, starts, stops, steps):
        # an index array keeps the positions exact (a slice object would read a stop of -1 as "the last")
        r = slice_range(out.shape[a % out.ndim], lo, hi, st)
        region[a % out.ndim] = np.arange(r.start, r.stop, r.step)
    out[np.ix_(*region)] = updates
    return out
