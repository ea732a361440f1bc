"""Kernels of the layout ops: Unsqueeze, Squeeze, Identity, Flatten, Transpose, Tile, Pad,
DepthToSpace, SpaceToDepth and ReverseSequence.  Each is the plain numpy meaning of its op, every
argument bound by the spec.

>>> import numpy as np
>>> pad(np.arange(3), pads=(1, 2), mode="reflect").tolist(), depth_to_space(np.arange(8).reshape(1, 8, 1, 1), blocksize=2).shape
([1, 0, 1, 2, 1, 0], (1, 2, 2, 2))
>>> reverse_sequence(np.arange(6).reshape(3, 2), np.array([3, 1]), batch_axis=1, time_axis=0).tolist()
[[4, 1], [2, 3], [0, 5]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register
from .resize import _ints


def _axes(axes) -> tuple:
    if axes is None:
        return ()
    return tuple(int(a) for a in np.asarray(axes).reshape(-1))


@register("unsqueeze")
def unsqueeze(data: np.ndarray, *, axes) -> np.ndarray:
    return np.expand_dims(data, _axes(axes)) if _axes(axes) else data.copy()


@register("squeeze")
def squeeze(data: np.ndarray, *, axes) -> np.ndarray:
    ax = tuple(sorted({a % data.ndim for a in _axes(axes)}))   # none or empty: every 1; a repeated axis once
    return np.squeeze(data, axis=ax if ax else None).copy()


@register("identity")
def identity(input: Any) -> Any:
    """The input, copied: a tensor, a sequence (a list), an optional, a map."""
    return list(input) if isinstance(input, list) else input if not hasattr(input, "copy") else input.copy()


@register("flatten")
def flatten(input: np.ndarray, *, axis: int) -> np.ndarray:
    a = axis + input.ndim if axis < 0 else axis
    return input.reshape(int(np.prod(input.shape[:a], dtype=np.int64)), int(np.prod(input.shape[a:], dtype=np.int64)))


@register("transpose")
def transpose(data: np.ndarray, *, perm) -> np.ndarray:
    return np.transpose(data, None if perm is None else tuple(int(p) for p in perm)).copy()


@register("tile")
def tile(input: np.ndarray, repeats: Any) -> np.ndarray:
    """``repeats``: the input's array, or Tile-1's per-axis counts (a tuple of ints)."""
    return np.tile(input, tuple(int(r) for r in np.asarray(repeats).reshape(-1))) if input.ndim else input.copy()


_NP_PAD = {"constant": "constant", "reflect": "reflect", "edge": "edge", "wrap": "wrap"}


@register("pad")
def pad(data: np.ndarray, *, pads, mode: str = "constant", value=None, axes=None) -> np.ndarray:
    r = data.ndim
    p = _ints(pads)
    ax = list(range(r)) if axes is None else [a % r for a in _ints(axes)]
    n = len(ax)
    if mode not in _NP_PAD:
        raise ValueError(f"Pad mode {mode!r} is not constant, reflect, edge or wrap")
    begin, end = [0] * r, [0] * r
    for k, a in enumerate(ax):
        begin[a], end[a] = p[k], p[k + n]
    crop = tuple(slice(max(-b, 0), data.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(zip(begin, end)))
    x = data[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        zero = "" if data.dtype.kind == "O" else 0   # a string tensor pads with empty strings
        v = zero if value is None else np.asarray(value).reshape(-1)
        fill = v if np.isscalar(v) else (v[0] if v.size else zero)
        return np.pad(x, widths, mode="constant", constant_values=np.array(fill).astype(data.dtype))
    return np.pad(x, widths, mode=_NP_PAD[mode])


@register("depth_to_space")
def depth_to_space(input: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = input.shape
    b = blocksize
    if mode == "DCR":
        t = input.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = input.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, c // (b * b), h * b, w * b).copy()


@register("space_to_depth")
def space_to_depth(input: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    """Blocks of blocksize x blocksize moved into channels: offsets before the channel (DCR) or after it (CRD)."""
    n, c, h, w = input.shape
    b = blocksize
    order = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    t = input.reshape(n, c, h // b, b, w // b, b).transpose(*order)
    return t.reshape(n, c * b * b, h // b, w // b).copy()


@register("reverse_sequence")
def reverse_sequence(input: np.ndarray, sequence_lens: np.ndarray, *, batch_axis: int, time_axis: int) -> np.ndarray:
    """For each batch entry b, its first sequence_lens[b] steps along time_axis in reverse order."""
    out = input.copy()
    for b, n in enumerate(np.asarray(sequence_lens).reshape(-1).tolist()):
        idx: list = [slice(None)] * input.ndim
        idx[int(batch_axis)] = b
        idx[int(time_axis)] = slice(0, int(n))
        src = input[tuple(idx)]
        t = int(time_axis) - (1 if int(time_axis) > int(batch_axis) else 0)   # time's axis once batch is indexed
        out[tuple(idx)] = np.flip(src, axis=t)
    return out


@register("center_crop_pad")
def center_crop_pad(input_data: np.ndarray, shape: np.ndarray, *, axes=None) -> np.ndarray:
    """Each axis (of ``axes``, else all) cropped to its target size around the center (the window starts
    at floor((d - t) / 2)) or padded with zeros to it (the odd pixel on the right)."""
    r = input_data.ndim
    ax = list(range(r)) if axes is None else [int(a) % r for a in _axes(axes)]
    out = input_data
    for a, t in zip(ax, _ints(shape)):
        d = out.shape[a]
        if t < d:
            out = np.take(out, np.arange((d - t) // 2, (d - t) // 2 + t), axis=a)
        elif t > d:
            width = [(0, 0)] * r
            width[a] = ((t - d) // 2, t - d - (t - d) // 2)
            out = np.pad(out, width)
    return np.array(out, copy=True)
