"""Kernels of the activation ops: Softmax and LogSoftmax, Hardmax, Dropout, and onnxruntime's
Gelu variants (Gelu, FastGelu, QuickGelu) and BiasAdd.

>>> import numpy as np
>>> hardmax(np.array([[1, 3, 3], [2, 0, 1]], np.float32), axis=1, coerce=0).tolist()
[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from . import register
from .elementwise import unary


@register("softmax")
def softmax(input: np.ndarray, *, axis: int, coerce: int, fn: str) -> np.ndarray:
    """Softmax or LogSoftmax over ``axis``; with ``coerce`` (versions 1 and 11) over every dim from axis on."""
    a = axis + input.ndim if axis < 0 else axis
    x = input.astype(np.float64)
    axes = tuple(range(a, input.ndim)) if coerce else (a,)
    shifted = x - np.max(x, axis=axes, keepdims=True) if x.size else x
    log_sum = np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))
    out = shifted - log_sum if fn == "log_softmax" else np.exp(shifted - log_sum)
    return out.astype(input.dtype)


@register("dropout")
def dropout(data: np.ndarray, ratio, training_mode, *, mask_dtype: str, mask_fill: int) -> tuple[np.ndarray, np.ndarray]:
    """(output, mask): a copy of data out of training mode (mask all ``mask_fill``, as onnxruntime gives);
    in training mode a seeded random mask (the runtime's random values are its own)."""
    from ..types import numpy_dtype
    r = 0.5 if ratio is None else float(np.asarray(ratio))
    training = training_mode is not None and bool(np.asarray(training_mode))
    if not training or r == 0:
        return data.copy(), np.full(data.shape, bool(mask_fill) if training else mask_fill, dtype=numpy_dtype(mask_dtype))
    keep = np.random.default_rng(0).random(data.shape) >= r
    return (data * keep / (1 - r)).astype(data.dtype), keep.astype(numpy_dtype(mask_dtype))


@register("hardmax")
def hardmax(input: np.ndarray, *, axis: int, coerce: int, fn: str = "hardmax") -> np.ndarray:
    """1 at the first maximum along ``axis``, 0 elsewhere; with ``coerce`` (versions 1 and 11) the
    input is read as a 2-D matrix [prod(shape[:axis]), prod(shape[axis:])] and each row is one group."""
    x = input
    a = int(axis) + x.ndim if int(axis) < 0 else int(axis)
    if int(coerce):
        rows = int(np.prod(x.shape[:a], dtype=np.int64))
        x = x.reshape(rows, -1)
        a = 1
    out = np.zeros(x.shape, dtype=input.dtype)
    if x.size:
        idx = np.expand_dims(np.argmax(x, axis=a), a)
        np.put_along_axis(out, idx, 1, axis=a)
    return out.reshape(input.shape)


@register("contrib_gelu")
def contrib_gelu(X: np.ndarray, bias: np.ndarray | None = None, *, fn: str, alpha: float = 1.702) -> np.ndarray:
    """Gelu (erf), FastGelu (tanh approximation) or QuickGelu (x * sigmoid(alpha * x)) of X + bias."""
    x = X if bias is None else (X.astype(np.float64) + bias.astype(np.float64)).astype(X.dtype)
    if fn == "quick":
        xd = x.astype(np.float64)
        with np.errstate(all="ignore"):
            return (xd / (1.0 + np.exp(-float(alpha) * xd))).astype(X.dtype)
    return unary(x, fn="gelu", approximate="tanh" if fn == "fast" else "none")


@register("bias_add")
def bias_add(X: np.ndarray, bias: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """X + bias + skip (bias along the last dim)."""
    return (X.astype(np.float64) + bias.astype(np.float64) + skip.astype(np.float64)).astype(X.dtype)


@register("swiglu")
def swiglu(A: np.ndarray, B: np.ndarray, *, alpha: float) -> np.ndarray:
    """Y = Swish_alpha(A) * B = A * sigmoid(alpha * A) * B, computed in float64 and cast back."""
    a = A.astype(np.float64)
    with np.errstate(over="ignore"):
        y = a / (1 + np.exp(-float(alpha) * a)) * B.astype(np.float64)
    return y.astype(A.dtype)


def _nll(logp: np.ndarray, target: np.ndarray, weight, reduction: str, ignore_index) -> np.ndarray:
    """The per-sample loss -logp[n, target[n, ...], ...] * weight[target], 0 where target is ignore_index,
    then reduced: none, sum, or mean (weighted: divided by the sum of the weights of the samples counted)."""
    t = target.astype(np.int64)
    ignored = np.zeros(t.shape, bool) if ignore_index is None else t == int(ignore_index)
    safe = np.where(ignored, 0, t)
    picked = np.take_along_axis(logp, np.expand_dims(safe, 1), axis=1).squeeze(1)
    w = np.ones(t.shape) if weight is None else weight.astype(np.float64)[safe]
    w = np.where(ignored, 0.0, w)
    loss = -picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(loss.sum())
    return np.asarray(loss.sum() / w.sum()) if weight is not None or ignore_index is not None else np.asarray(loss.mean())


@register("nll_loss")
def nll_loss(input: np.ndarray, target: np.ndarray, weight, *, reduction: str, ignore_index) -> np.ndarray:
    """NegativeLogLikelihoodLoss: input holds log-probabilities [N, C, d1, ...], target classes [N, d1, ...]."""
    with np.errstate(all="ignore"):
        return _nll(input.astype(np.float64), target, weight, str(reduction), ignore_index).astype(input.dtype)


@register("softmax_cross_entropy")
def softmax_cross_entropy(scores: np.ndarray, labels: np.ndarray, weights, *, reduction: str,
                          ignore_index) -> tuple[np.ndarray, np.ndarray]:
    """SoftmaxCrossEntropyLoss: (the loss, log(softmax(scores)) along axis 1)."""
    x = scores.astype(np.float64)
    m = x.max(axis=1, keepdims=True) if x.size else x
    logp = x - m - np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))
    with np.errstate(all="ignore"):
        loss = _nll(logp, labels, weights, str(reduction), ignore_index)
    return loss.astype(scores.dtype), logp.astype(scores.dtype)
