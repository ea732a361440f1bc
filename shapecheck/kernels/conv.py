"""Kernels of the convolution and pooling ops: Conv, ConvTranspose, MaxPool (with Indices),
AveragePool, LpPool, the global pools and MaxUnpool.  Plain numpy over small tensors: every
window of every output position is gathered at once (shape ``(N, C, *out, *kernel)``) with a
mask of the cells inside the input; sums are taken in float64 and cast back, so the differential
tests compare with onnxruntime within a tolerance.  Output sizes and SAME pads come from
``functions/conv.py``, the functions the specs' shape rules use.

>>> import numpy as np
>>> x = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 4)
>>> conv(x, np.ones((1, 1, 3), np.float32), None).tolist()
[[[6.0, 9.0]]]
>>> max_pool(x, kernel_shape=(2,), strides=(2,)).tolist()
[[[2.0, 4.0]]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..functions.conv import pool_shape, resolve_pads, spatial, transpose_full
from . import register


def _geometry(xshape: tuple, kernel: tuple, strides, pads, dilations, auto_pad: str, ceil_mode: int = 0):
    """Per spatial axis: (h, k, s, d, pb, pe, out) with auto_pad resolved."""
    n = len(xshape)
    strides, dilations, pads = spatial(strides, n, 1), spatial(dilations, n, 1), spatial(pads, 2 * n, 0)
    sizes = pool_shape(tuple(xshape), tuple(kernel), strides, pads, dilations, auto_pad or "NOTSET", ceil_mode)
    out = []
    for i, h in enumerate(xshape):
        k, s, d = int(kernel[i]), int(strides[i]), int(dilations[i])
        pb, pe = resolve_pads(h, k, s, d, int(pads[i]), int(pads[i + n]), auto_pad or "NOTSET")
        out.append((h, k, s, d, pb, pe, max(int(sizes[i]), 0)))
    return out


def _windows(X: np.ndarray, geo: list):
    """Every window: values (N, C, *out, *kernel), the mask of cells inside the input, the mask of
    cells inside the input and its pads, and the input position of each cell per axis."""
    n = len(geo)
    index, inside, padded, positions = [], [], [], []
    for i, (h, k, s, d, pb, pe, o) in enumerate(geo):
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = o, k
        pos = (np.arange(o)[:, None] * s + np.arange(k)[None, :] * d - pb).reshape(shape)
        positions.append(pos)
        index.append(np.clip(pos, 0, max(h - 1, 0)))
        inside.append((pos >= 0) & (pos < h))
        padded.append((pos >= -pb) & (pos < h + pe))
    full = tuple(g[6] for g in geo) + tuple(g[1] for g in geo)
    vals = X[(slice(None), slice(None)) + tuple(index)] if X.size else np.zeros(X.shape[:2] + full, X.dtype)
    m_in = np.ones(full, bool)
    m_pad = np.ones(full, bool)
    for a, b in zip(inside, padded):
        m_in, m_pad = m_in & a, m_pad & b
    return vals, m_in, m_pad, positions


def _letters(n: int, start: int) -> str:
    return "".join(chr(ord("A") + start + i) for i in range(n))


@register("conv")
def conv(X: np.ndarray, W: np.ndarray, B: np.ndarray | None, *, strides=None, pads=None, dilations=None,
         group: int = 1, auto_pad: str = "NOTSET") -> np.ndarray:
    """Y[n, m] = sum over c in m's group and the window of X * W, plus B[m]; kernel from W's shape."""
    n, g = X.ndim - 2, int(group)
    geo = _geometry(X.shape[2:], W.shape[2:], strides, pads, dilations, auto_pad)
    vals, m_in, _, _ = _windows(X, geo)
    x = np.where(m_in, vals.astype(np.float64), 0.0)
    N, C, M = X.shape[0], X.shape[1], W.shape[0]
    x = x.reshape((N, g, C // g) + x.shape[2:])
    w = W.astype(np.float64).reshape((g, M // g) + W.shape[1:])
    o, k = _letters(n, 0), _letters(n, n)
    y = np.einsum(f"zgc{o}{k},gmc{k}->zgm{o}", x, w).reshape((N, M) + x.shape[3:3 + n])
    if B is not None:
        y = y + B.astype(np.float64).reshape((M,) + (1,) * n)
    return y.astype(X.dtype)


def _less_zero_point(t: np.ndarray, zp, per_channel: bool) -> np.ndarray:
    """t - zp in float64 (exact for 8-bit values); zp one value, or (per_channel) one per output channel."""
    v = t.astype(np.float64)
    if zp is None:
        return v
    z = np.asarray(zp).astype(np.float64)
    if per_channel and z.size > 1:
        return v - z.reshape((-1,) + (1,) * (t.ndim - 1))
    return v - z.reshape(-1)[0]


@register("conv_integer")
def conv_integer(x: np.ndarray, w: np.ndarray, x_zero_point, w_zero_point, *, strides=None, pads=None,
                 dilations=None, group: int = 1, auto_pad: str = "NOTSET") -> np.ndarray:
    """ConvInteger: (x - x_zero_point) convolved with (w - w_zero_point) in int32 (a padded cell adds nothing)."""
    y = conv(_less_zero_point(x, x_zero_point, False), _less_zero_point(w, w_zero_point, True), None,
             strides=strides, pads=pads, dilations=dilations, group=group, auto_pad=auto_pad)
    return np.rint(y).astype(np.int64).astype(np.int32)


@register("qlinear_conv")
def qlinear_conv(x: np.ndarray, x_scale, x_zero_point, w: np.ndarray, w_scale, w_zero_point, y_scale, y_zero_point,
                 B=None, *, strides=None, pads=None, dilations=None, group: int = 1, auto_pad: str = "NOTSET") -> np.ndarray:
    """QLinearConv: the integer convolution plus B, scaled by x_scale * w_scale / y_scale (w_scale per output
    channel when 1-D), rounded half to even, plus y_zero_point, saturated to y's type."""
    acc = conv_integer(x, w, x_zero_point, w_zero_point, strides=strides, pads=pads, dilations=dilations,
                       group=group, auto_pad=auto_pad).astype(np.float64)
    if B is not None:
        acc = acc + B.astype(np.float64).reshape((-1,) + (1,) * (x.ndim - 2))
    ws = np.asarray(w_scale, np.float64).reshape(-1)
    scale = (float(np.asarray(x_scale).reshape(-1)[0]) * (ws.reshape((-1,) + (1,) * (x.ndim - 2)) if ws.size > 1 else ws[0])
             / float(np.asarray(y_scale).reshape(-1)[0]))
    dt = np.asarray(y_zero_point).dtype
    info = np.iinfo(dt)
    y = np.rint(acc * scale) + float(np.asarray(y_zero_point).reshape(-1)[0])
    return np.clip(y, info.min, info.max).astype(dt)


@register("col2im")
def col2im(input: np.ndarray, image_shape: np.ndarray, block_shape: np.ndarray, *, strides=None, pads=None,
           dilations=None) -> np.ndarray:
    """Col2Im (torch's fold): each column of input [N, C * prod(block), L] is a block of values added back
    into the padded image at its position (L positions, row-major), then the pads are cut away."""
    img, blk = [int(v) for v in image_shape.reshape(-1)], [int(v) for v in block_shape.reshape(-1)]
    n = len(img)
    s = [int(v) for v in strides] if strides else [1] * n
    d = [int(v) for v in dilations] if dilations else [1] * n
    p = [int(v) for v in pads] if pads else [0] * (2 * n)
    outs = [(img[i] + p[i] + p[i + n] - d[i] * (blk[i] - 1) - 1) // s[i] + 1 for i in range(n)]
    N, C = input.shape[0], input.shape[1] // int(np.prod(blk))
    cols = input.reshape((N, C) + tuple(blk) + tuple(outs))
    padded = np.zeros((N, C) + tuple(img[i] + p[i] + p[i + n] for i in range(n)), dtype=input.dtype)
    for k in np.ndindex(*blk):
        where = tuple(slice(k[i] * d[i], k[i] * d[i] + s[i] * (outs[i] - 1) + 1, s[i]) for i in range(n))
        padded[(slice(None), slice(None)) + where] += cols[(slice(None), slice(None)) + k]
    return padded[(slice(None), slice(None)) + tuple(slice(p[i], p[i] + img[i]) for i in range(n))].copy()


def _bilinear(xg: np.ndarray, ph: np.ndarray, pw: np.ndarray) -> np.ndarray:
    """xg [N, G, c, H, W] sampled at the real positions ph, pw [N, G, P] (bilinear, zeros outside): [N, G, c, P]."""
    H, Wd = xg.shape[-2:]
    flat = xg.reshape(xg.shape[:3] + (H * Wd,)).astype(np.float64)
    out = np.zeros(xg.shape[:3] + ph.shape[-1:])
    h0, w0 = np.floor(ph), np.floor(pw)
    for dh in (0, 1):
        for dw in (0, 1):
            h, w = h0 + dh, w0 + dw
            weight = (1 - np.abs(ph - h)) * (1 - np.abs(pw - w))
            inside = (h >= 0) & (h < H) & (w >= 0) & (w < Wd)
            idx = (np.clip(h, 0, H - 1) * Wd + np.clip(w, 0, Wd - 1)).astype(np.int64)
            vals = np.take_along_axis(flat, idx[:, :, None, :], axis=3)
            out += vals * np.where(inside, weight, 0.0)[:, :, None, :]
    return out


@register("deform_conv")
def deform_conv(X: np.ndarray, W: np.ndarray, offset: np.ndarray, B, mask, *, strides=None, pads=None,
                dilations=None, group: int = 1, offset_group: int = 1) -> np.ndarray:
    """2-D deformable convolution: each kernel tap of each output position reads X bilinearly (zeros outside)
    at its regular place plus its offset (per offset group), times mask, then a grouped convolution with W
    (onnx.reference's definition)."""
    N, C, H, Wd = X.shape
    M, cg, kh, kw = W.shape
    oh, ow = offset.shape[2:]
    s, d = [int(v) for v in strides or (1, 1)], [int(v) for v in dilations or (1, 1)]
    p, og, g = [int(v) for v in pads or (0, 0, 0, 0)], int(offset_group), int(group)
    off = offset.astype(np.float64).reshape(N, og, kh, kw, 2, oh, ow)
    msk = np.ones((N, og, kh, kw, oh, ow)) if mask is None else mask.astype(np.float64).reshape(N, og, kh, kw, oh, ow)
    ph = (-p[0] + s[0] * np.arange(oh))[None, None, None, None, :, None] + \
        (d[0] * np.arange(kh))[None, None, :, None, None, None] + off[:, :, :, :, 0]
    pw = (-p[1] + s[1] * np.arange(ow))[None, None, None, None, None, :] + \
        (d[1] * np.arange(kw))[None, None, None, :, None, None] + off[:, :, :, :, 1]
    shape = (N, og, kh * kw * oh * ow)
    cols = _bilinear(X.reshape(N, og, C // og, H, Wd), ph.reshape(shape), pw.reshape(shape))
    cols = cols.reshape(N, og, C // og, kh, kw, oh, ow) * msk[:, :, None]
    cols = cols.reshape(N, g, cg, kh, kw, oh, ow)
    y = np.einsum("ngcabij,gmcab->ngmij", cols, W.astype(np.float64).reshape(g, M // g, cg, kh, kw))
    y = y.reshape(N, M, oh, ow)
    if B is not None:
        y = y + B.astype(np.float64).reshape(1, M, 1, 1)
    return y.astype(X.dtype)


@register("causal_conv_with_state")
def causal_conv_with_state(input: np.ndarray, weight: np.ndarray, bias, past_state, *,
                           activation: str) -> tuple[np.ndarray, np.ndarray]:
    """A causal depthwise 1-D convolution over past_state (zeros without it) ++ input, SiLU after it with
    activation silu or swish; present_state is the last k - 1 steps of that sequence."""
    b, c, _ = input.shape
    k = weight.shape[2]
    pad = np.zeros((b, c, k - 1), input.dtype) if past_state is None else past_state
    seq = np.concatenate([pad, input], axis=2)
    y = conv(seq, weight, bias, group=c).astype(np.float64)
    if activation in ("silu", "swish"):
        y = y / (1 + np.exp(-y))
    return y.astype(input.dtype), seq[:, :, seq.shape[2] - (k - 1):].copy()


def transpose_pads(full: int, out: int, pb: int, pe: int, auto_pad: str, given: bool) -> int:
    """The begin pad of one ConvTranspose axis (onnxruntime's placement): with output_shape the
    total ``full - out`` (no less than 0: a larger output gets zeros at the end) is split, its odd
    part at the beginning except under SAME_UPPER; without it, SAME_* split as Conv does."""
    if given or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        total = max(full - out, 0)
        return total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
    return 0 if auto_pad == "VALID" else pb


@register("conv_transpose")
def conv_transpose(X: np.ndarray, W: np.ndarray, B: np.ndarray | None, *, out_shape, strides=None, pads=None,
                   dilations=None, group: int = 1, auto_pad: str = "NOTSET", output_padding=None,
                   output_shape=None) -> np.ndarray:
    """Each input cell adds X * W[c] at position i * s + kk * d of the unpadded output; the output
    ``out_shape`` (the spec's shape rule) is then cut from it at the begin pads."""
    n, g = X.ndim - 2, int(group)
    N, C = X.shape[:2]
    M = W.shape[1] * g
    hs, ks = X.shape[2:], W.shape[2:]
    full = transpose_full(hs, ks, strides, dilations, output_padding)
    strides, dilations, pads = spatial(strides, n, 1), spatial(dilations, n, 1), spatial(pads, 2 * n, 0)
    x = X.astype(np.float64).reshape((N, g, C // g) + hs)
    w = W.astype(np.float64).reshape((g, C // g, M // g) + ks)
    o, k = _letters(n, 0), _letters(n, n)
    contrib = np.einsum(f"zgc{o},gcm{k}->zgm{o}{k}", x, w).reshape((N, M) + hs + ks)
    y = np.zeros((N, M) + tuple(full), np.float64)
    idx = []
    for i in range(n):
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = hs[i], ks[i]
        pos = np.arange(hs[i])[:, None] * strides[i] + np.arange(ks[i])[None, :] * dilations[i]
        idx.append(np.broadcast_to(pos.reshape(shape), hs + ks))
    np.add.at(y, (slice(None), slice(None), *idx), contrib)  # type: ignore[arg-type]
    out_sp = tuple(int(v) for v in tuple(out_shape)[2:])
    res = np.zeros((N, M) + out_sp, np.float64)
    src, dst = [slice(None)] * 2, [slice(None)] * 2
    for i in range(n):
        pb = transpose_pads(full[i], out_sp[i], pads[i], pads[i + n], auto_pad, output_shape is not None)
        lo, hi = max(pb, 0), min(pb + out_sp[i], full[i])
        src.append(slice(lo, max(hi, lo)))
        dst.append(slice(lo - pb, lo - pb + max(hi - lo, 0)))
    res[tuple(dst)] = y[tuple(src)]
    if B is not None:
        res = res + B.astype(np.float64).reshape((M,) + (1,) * n)
    return res.astype(X.dtype)


@register("pool")
def pool(X: np.ndarray, *, how: str, kernel_shape, strides=None, pads=None, dilations=None, auto_pad: str = "NOTSET",
         ceil_mode: int = 0, count_include_pad: int = 0, p=2, storage_order: int = 0, n_out: int = 1):
    """MaxPool (``how`` = "max"), AveragePool ("avg") or LpPool ("lp"): one kind for the pool family."""
    common = dict(kernel_shape=kernel_shape, strides=strides, pads=pads, dilations=dilations, auto_pad=auto_pad,
                  ceil_mode=ceil_mode)
    if how == "max":
        return max_pool(X, storage_order=storage_order, n_out=n_out, **common)
    if how == "avg":
        return avg_pool(X, count_include_pad=count_include_pad, **common)
    return lp_pool(X, p=p, **common)


def max_pool(X: np.ndarray, *, kernel_shape, strides=None, pads=None, dilations=None, auto_pad: str = "NOTSET",
             ceil_mode: int = 0, storage_order: int = 0, n_out: int = 1):
    """The window maximum and (second output) its flat index into X: row-major over (N, C, spatial),
    or with storage_order 1 column-major over the spatial axes; ties go to the first cell."""
    n = X.ndim - 2
    geo = _geometry(X.shape[2:], kernel_shape, strides, pads, dilations, auto_pad, int(ceil_mode))
    vals, m_in, _, _ = _windows(X, geo)
    v = np.where(m_in, vals.astype(np.float64), -np.inf)
    outs, ks = tuple(g[6] for g in geo), tuple(int(g[1]) for g in geo)
    flat = v.reshape(X.shape[:2] + outs + (int(np.prod(ks, dtype=np.int64)),))
    arg = flat.argmax(axis=-1) if flat.size else np.zeros(flat.shape[:-1], np.int64)
    y = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0].astype(X.dtype) if flat.size else \
        np.zeros(X.shape[:2] + outs, X.dtype)
    if int(n_out) < 2:
        return y
    kk = np.unravel_index(arg, ks)
    grid = np.indices(outs, dtype=np.int64)
    hs = X.shape[2:]
    index = np.zeros(arg.shape, np.int64)
    for i in (range(n - 1, -1, -1) if int(storage_order) else range(n)):   # spatial offset, in storage order
        h, k, s, d, pb, pe, o = geo[i]
        index = index * h + grid[i] * s + kk[i] * d - pb
    plane = int(np.prod(hs, dtype=np.int64))
    nc = (np.arange(X.shape[0])[:, None] * X.shape[1] + np.arange(X.shape[1])[None, :]) * plane
    index = index + nc.reshape(X.shape[:2] + (1,) * n)
    return y, index.astype(np.int64)


def avg_pool(X: np.ndarray, *, kernel_shape, strides=None, pads=None, dilations=None, auto_pad: str = "NOTSET",
             ceil_mode: int = 0, count_include_pad: int = 0) -> np.ndarray:
    """The window mean over the cells inside the input (count_include_pad: inside the input and
    its pads, so the cells a ceil_mode window reaches past the end pad never count)."""
    geo = _geometry(X.shape[2:], kernel_shape, strides, pads, dilations, auto_pad, int(ceil_mode))
    vals, m_in, m_pad, _ = _windows(X, geo)
    n = X.ndim - 2
    axes = tuple(range(2 + n, 2 + 2 * n))
    total = np.where(m_in, vals.astype(np.float64), 0.0).sum(axis=axes)
    count = (m_pad if int(count_include_pad) else m_in).sum(axis=tuple(range(n, 2 * n)))
    with np.errstate(all="ignore"):
        return (total / count).astype(X.dtype)


def lp_pool(X: np.ndarray, *, kernel_shape, p=2, strides=None, pads=None, dilations=None, auto_pad: str = "NOTSET",
            ceil_mode: int = 0) -> np.ndarray:
    """``(sum over the window of |x|^p) ^ (1/p)``; padding cells add nothing."""
    geo = _geometry(X.shape[2:], kernel_shape, strides, pads, dilations, auto_pad, int(ceil_mode))
    vals, m_in, _, _ = _windows(X, geo)
    n = X.ndim - 2
    s = np.where(m_in, np.abs(vals.astype(np.float64)) ** float(p), 0.0).sum(axis=tuple(range(2 + n, 2 + 2 * n)))
    return (s ** (1.0 / float(p))).astype(X.dtype)


@register("global_pool")
def global_pool(X: np.ndarray, *, how: str, p=2) -> np.ndarray:
    """Mean, max or Lp norm over every spatial axis, kept as 1."""
    axes = tuple(range(2, X.ndim))
    x = X.astype(np.float64)
    with np.errstate(all="ignore"):
        if how == "avg":
            y = x.mean(axis=axes, keepdims=True)
        elif how == "max":
            y = x.max(axis=axes, keepdims=True)
        else:
            y = (np.abs(x) ** float(p)).sum(axis=axes, keepdims=True) ** (1.0 / float(p))
    return y.astype(X.dtype)


@register("max_unpool")
def max_unpool(X: np.ndarray, I: np.ndarray, *, out_shape) -> np.ndarray:
    """Zeros of the output shape with X's values put at the flat positions I."""
    y = np.zeros(int(np.prod(out_shape, dtype=np.int64)), X.dtype)
    y[I.reshape(-1)] = X.reshape(-1)
    return y.reshape(tuple(int(d) for d in out_shape))
