"""Kernels of the normalization ops: LayerNormalization, BatchNormalization, InstanceNormalization,
GroupNormalization, RMSNormalization, MeanVarianceNormalization, LRN, and onnxruntime's
SkipLayerNormalization, SkipSimplifiedLayerNormalization and SimplifiedLayerNormalization.
Statistics are computed in float64 and cast back: the differential tests compare with onnxruntime
within a tolerance, never bit for bit.

>>> import numpy as np
>>> y, m, s = layer_norm(np.array([[1., 3.]], np.float32), np.ones(2, np.float32), None, axis=-1,
...                      epsilon=0.0, stash="float")
>>> y.tolist(), m.tolist(), s.tolist()
([[-1.0, 1.0]], [[2.0]], [[1.0]])
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import functools

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..types import numpy_dtype
from . import register


def _quiet(fn):
    """Run a kernel without numpy's floating-point warnings: an empty group's statistics are 0/0 = NaN,
    as in onnxruntime, and the spec diff's witness search runs kernels on empty tensors."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return run


def _norm_axes(ndim: int, axis: int) -> tuple[int, ...]:
    a = axis + ndim if axis < 0 else axis
    return tuple(range(a, ndim))


@register("layer_norm")
@_quiet
def layer_norm(X: np.ndarray, Scale: np.ndarray, B: np.ndarray | None, *, axis: int, epsilon: float,
               stash: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y = (X - mean) / sqrt(var + epsilon) * Scale + B over axes [axis, r); Mean and InvStdDev keep those axes as 1."""
    ax = _norm_axes(X.ndim, int(axis))
    x = X.astype(np.float64)
    mean = x.mean(axis=ax, keepdims=True)
    inv = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=ax, keepdims=True) + float(epsilon))
    y = (x - mean) * inv * Scale.astype(np.float64)
    if B is not None:
        y = y + B.astype(np.float64)
    return y.astype(X.dtype), mean.astype(numpy_dtype(stash)), inv.astype(numpy_dtype(stash))


@register("batch_norm")
@_quiet
def batch_norm(X: np.ndarray, scale: np.ndarray, B: np.ndarray, mean: np.ndarray, var: np.ndarray, *,
               epsilon: float, momentum: float, training: int, spatial: int = 1, n_out: int = 3) -> tuple:
    """Y = (X - m) / sqrt(v + epsilon) * scale + B per channel (axis 1; per activation with spatial = 0).

    In inference m, v are the given mean and var; in training the batch's mean and (biased) variance,
    and the further outputs are the running mean/var (given * momentum + batch * (1 - momentum)),
    then (``n_out`` = 5, versions 7 and 9) the batch mean and, as onnxruntime computes it, the batch's
    inverse standard deviation 1 / sqrt(var + epsilon) (the page says variance).
    """
    lead = X.ndim - 1 - (mean.ndim if int(spatial) == 0 else 1)   # trailing dims after the parameters
    shape = (1,) + mean.shape + (1,) * max(lead, 0) if X.ndim >= 2 else mean.shape
    x = X.astype(np.float64)
    if int(training):
        axes = tuple(i for i in range(X.ndim) if i == 0 or (int(spatial) and i >= 2))
        m = x.mean(axis=axes).reshape(mean.shape)
        v = x.var(axis=axes).reshape(var.shape)
    else:
        m, v = mean.astype(np.float64), var.astype(np.float64)
    y = (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + float(epsilon)) * scale.astype(np.float64).reshape(shape) \
        + B.astype(np.float64).reshape(shape)
    mom = float(momentum)
    rm = (mean.astype(np.float64) * mom + m * (1 - mom)) if int(training) else mean.astype(np.float64)
    rv = (var.astype(np.float64) * mom + v * (1 - mom)) if int(training) else var.astype(np.float64)
    saved_var = 1.0 / np.sqrt(v + float(epsilon)) if int(training) else v   # onnxruntime: the inverse std dev
    outs = (y.astype(X.dtype), rm.astype(mean.dtype), rv.astype(var.dtype), m.astype(mean.dtype), saved_var.astype(var.dtype))
    return outs[:int(n_out)]


@register("instance_norm")
@_quiet
def instance_norm(input: np.ndarray, scale: np.ndarray, B: np.ndarray, *, epsilon: float) -> np.ndarray:
    """Y = (x - mean) / sqrt(var + epsilon) * scale[c] + B[c], statistics per (n, c) over the spatial dims."""
    ax = tuple(range(2, input.ndim))
    x = input.astype(np.float64)
    shape = (1, -1) + (1,) * (input.ndim - 2)
    y = (x - x.mean(axis=ax, keepdims=True)) / np.sqrt(x.var(axis=ax, keepdims=True) + float(epsilon))
    return (y * scale.astype(np.float64).reshape(shape) + B.astype(np.float64).reshape(shape)).astype(input.dtype)


@register("group_norm")
@_quiet
def group_norm(X: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, num_groups: int, epsilon: float,
               per_channel: int) -> np.ndarray:
    """Statistics per (n, group) over the group's channels and the spatial dims; scale and bias per group
    (version 18) or per channel (``per_channel``, version 21)."""
    n, c, g = X.shape[0], X.shape[1], int(num_groups)
    x = X.astype(np.float64).reshape((n, g, -1))
    y = ((x - x.mean(axis=2, keepdims=True)) / np.sqrt(x.var(axis=2, keepdims=True) + float(epsilon)))
    if int(per_channel):
        y = y.reshape((n, c, -1))
        y = y * scale.astype(np.float64).reshape((1, c, 1)) + bias.astype(np.float64).reshape((1, c, 1))
    else:
        y = y * scale.astype(np.float64).reshape((1, g, 1)) + bias.astype(np.float64).reshape((1, g, 1))
    return y.reshape(X.shape).astype(X.dtype)


@register("rms_norm")
@_quiet
def rms_norm(X: np.ndarray, scale: np.ndarray, *, axis: int, epsilon: float) -> np.ndarray:
    """Y = X / sqrt(mean(X ** 2) + epsilon) * scale over axes [axis, r), in scale's element type."""
    ax = _norm_axes(X.ndim, int(axis))
    x = X.astype(np.float64)
    y = x / np.sqrt((x * x).mean(axis=ax, keepdims=True) + float(epsilon)) * scale.astype(np.float64)
    return y.astype(scale.dtype)


@register("mvn")
def mvn(X: np.ndarray, *, axes) -> np.ndarray:
    """(X - mean) / (sqrt(mean(X^2) - mean^2) + 1e-9) over axes (the page's function body)."""
    x = X.astype(np.float64)
    ax = tuple(int(a) + X.ndim if int(a) < 0 else int(a) for a in axes)
    with np.errstate(all="ignore"):
        mean = x.mean(axis=ax, keepdims=True)
        std = np.sqrt(np.maximum((x * x).mean(axis=ax, keepdims=True) - mean * mean, 0))
        return ((x - mean) / (std + 1e-9)).astype(X.dtype)


@register("lrn")
def lrn(X: np.ndarray, *, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    """X / (bias + alpha / size * square_sum)^beta, square_sum over the channels
    [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] of axis 1."""
    x = X.astype(np.float64)
    sq = x * x
    c = x.shape[1]
    lo, hi = (int(size) - 1) // 2, -(-(int(size) - 1) // 2)
    ssum = np.zeros_like(x)
    for i in range(c):
        ssum[:, i] = sq[:, max(0, i - lo):min(c, i + hi + 1)].sum(axis=1)
    return (x / (float(bias) + float(alpha) / int(size) * ssum) ** float(beta)).astype(X.dtype)


def _stats(x: np.ndarray, axes: tuple, epsilon: float, simplified: bool) -> tuple[np.ndarray, np.ndarray]:
    mean = np.zeros_like(x.mean(axis=axes, keepdims=True)) if simplified else x.mean(axis=axes, keepdims=True)
    inv = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + float(epsilon))
    return mean, inv


@register("skip_layer_norm")
def skip_layer_norm(input: np.ndarray, skip: np.ndarray, gamma: np.ndarray, beta: np.ndarray | None,
                    bias: np.ndarray | None, *, epsilon: float, simplified: int) -> tuple:
    """(output, mean, inv_std_var, input_skip_bias_sum): s = input + skip (+ bias), normalized over
    the last dim, times gamma (+ beta); mean and inv_std_var float. With ``simplified``
    (SkipSimplifiedLayerNormalization, which has no beta input) the normalization is RMS (mean 0)
    and ``beta`` is not read."""
    s = input.astype(np.float64) + skip.astype(np.float64)
    if bias is not None:
        s = s + bias.astype(np.float64)
    with np.errstate(all="ignore"):
        mean, inv = _stats(s, (-1,), epsilon, bool(int(simplified)))
    y = (s - mean) * inv * gamma.astype(np.float64)
    if beta is not None and not int(simplified):
        y = y + beta.astype(np.float64)
    return y.astype(input.dtype), mean.astype(np.float32), inv.astype(np.float32), s.astype(input.dtype)


@register("simplified_layer_norm")
def simplified_layer_norm(X: np.ndarray, scale: np.ndarray, *, axis: int, epsilon: float, stash: str,
                          out_type: str) -> tuple:
    """(Y, inv_std_var): X / sqrt(mean(X^2) + epsilon) * scale over dims [axis, r); Y in ``out_type``."""
    a = int(axis) + X.ndim if int(axis) < 0 else int(axis)
    with np.errstate(all="ignore"):
        _, inv = _stats(X.astype(np.float64), tuple(range(a, X.ndim)), epsilon, True)
    y = X.astype(np.float64) * inv * scale.astype(np.float64)
    return y.astype(numpy_dtype(out_type)), inv.astype(numpy_dtype(stash))


@register("lp_norm")
@_quiet
def lp_norm(input: np.ndarray, *, axis: int, p: int) -> np.ndarray:
    """input / its L1 or L2 norm along axis; a zero norm gives zeros (the page)."""
    x = input.astype(np.float64)
    norm = np.sum(np.abs(x), axis=int(axis), keepdims=True) if int(p) == 1 else \
        np.sqrt(np.sum(x * x, axis=int(axis), keepdims=True))
    return np.where(norm == 0, 0.0, x / np.where(norm == 0, 1.0, norm)).astype(input.dtype)
