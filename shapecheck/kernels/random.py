"""Kernels of the random ops: Bernoulli, RandomNormal(Like), RandomUniform(Like) and Multinomial.  They draw from a
generator seeded by their ``seed`` attribute (0 without it), so only their shapes and element
types can be compared with a runtime's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..types import numpy_dtype
from . import register


def _rng(seed) -> np.random.Generator:
    return np.random.default_rng(abs(int(float(seed) * 1000)) if seed is not None else 0)


@register("random_like")
def random_like(input: np.ndarray, *, how: str, dtype: str, a: float, b: float, seed) -> np.ndarray:
    """A tensor of input's shape drawn from normal(mean a, scale b), uniform[a, b) or, for
    ``bernoulli``, 1 with input's probability; in ``dtype``."""
    rng = _rng(seed)
    v: np.ndarray
    if how == "normal":
        v = rng.normal(float(a), float(b), size=input.shape)
    elif how == "uniform":
        v = rng.uniform(float(a), float(b), size=input.shape)
    else:
        v = np.asarray(rng.random(input.shape) < input.astype(np.float64))
    return np.asarray(v).astype(numpy_dtype(dtype))


@register("random")
def random(*, shape, how: str, dtype: str, a: float, b: float, seed) -> np.ndarray:
    """RandomNormal (mean a, scale b) or RandomUniform ([a, b)) of the attribute ``shape``, in ``dtype``."""
    rng = _rng(seed)
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    v = rng.normal(float(a), float(b), size=dims) if how == "normal" else rng.uniform(float(a), float(b), size=dims)
    return np.asarray(v).astype(numpy_dtype(dtype))


@register("multinomial")
def multinomial(input: np.ndarray, *, sample_size: int, dtype: str, seed) -> np.ndarray:
    """sample_size class indices per batch row, drawn from the softmax of the row (input holds unnormalized
    log-probabilities)."""
    rng = _rng(seed)
    x = input.astype(np.float64)
    p = np.exp(x - x.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    out = np.stack([rng.choice(p.shape[1], size=int(sample_size), p=row) for row in p]) if p.shape[0] else \
        np.zeros((0, int(sample_size)))
    return out.reshape(p.shape[0], int(sample_size)).astype(numpy_dtype(dtype))
