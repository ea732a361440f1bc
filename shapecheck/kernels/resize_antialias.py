"""Resize's antialias filter (Resize-18 and later) along one axis, for the ``resize`` kernel.

When an axis shrinks (scale < 1) in linear or cubic mode with ``antialias = 1``, the interpolation
kernel is stretched by 1/scale: the triangle (linear, support 1) or Keys' cubic (support 2, with
coefficient ``a``) is evaluated at ``scale * (i - x)`` over every input index ``i`` it reaches, and
the weights are normalized to sum 1.  As onnx.reference computes it: the window is ``2 * support /
scale`` wide (rounded as there), it starts ``ceil(x) - 1 + start`` with ``start = floor(-support /
scale) + 1``; indices outside the axis repeat the edge, or (``exclude_outside``) weigh 0 before the
weights are normalized.  A scale of 1 or more leaves the plain interpolation.

>>> import numpy as np
>>> antialias_axis(np.arange(4.), 0, np.array([0.5, 2.5]), 4, 0.5, "linear", -0.75, 0).tolist()
[0.625, 2.375]
>>> antialias_axis(np.arange(4.), 0, np.array([0.5, 2.5]), 4, 0.5, "linear", -0.75, 1).tolist()
[0.7142857142857142, 2.2857142857142856]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


def _triangle(d: np.ndarray, a: float) -> np.ndarray:
    return np.clip(1 - np.abs(d), 0, 1)


def keys_cubic(d: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic kernel with coefficient ``a`` (support 2); the plain cubic mode uses it too."""
    d = np.abs(d)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


_FILTERS = {"linear": (1, _triangle), "cubic": (2, keys_cubic)}


def antialias_axis(y: np.ndarray, axis: int, src: np.ndarray, n_in: int, scale: float, mode: str,
                   a: float, exclude_outside: int) -> np.ndarray:
    """Resample ``y`` along ``axis`` at the input coordinates ``src`` with the filter of ``mode``
    stretched by 1/``scale`` (``scale`` is clamped to at most 1)."""
    support, kernel = _FILTERS[mode]
    s = min(float(scale), 1.0)
    start = math.floor(-support / s) + 1
    taps = 2 - 2 * start
    base = np.ceil(src) - 1                      # ratio in (0, 1]: an integer coordinate leans left
    ratio = src - base
    offsets = np.arange(start, start + taps)
    w = kernel((offsets[None, :] - ratio[:, None]) * s, float(a))
    idx = base[:, None].astype(np.int64) + offsets[None, :]
    if exclude_outside:
        w = np.where((idx < 0) | (idx > n_in - 1), 0.0, w)
    total = w.sum(axis=1, keepdims=True)
    w = w / np.where(total == 0, 1.0, total)
    idx = np.clip(idx, 0, n_in - 1)
    gathered = np.take(y, idx, axis=axis)        # the axis becomes (out, taps)
    shape = [1] * axis + list(w.shape) + [1] * (y.ndim - axis - 1)
    return (gathered * w.reshape(shape)).sum(axis=axis + 1)
