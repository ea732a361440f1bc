"""Preprocessing kernels (ai.onnx.ml): Binarizer, Scaler, Normalizer, Imputer, FeatureVectorizer,
ArrayFeatureExtractor, with onnxruntime's element types (Scaler, Normalizer and FeatureVectorizer give
floats whatever they are given) and its reading of a 1-D input (one row).

>>> import numpy as np
>>> scaler(np.array([[1.0, 2.0]]), (2.0,), (1.0,)).tolist(), normalizer(np.array([[3.0, 4.0]]), "L2").tolist()
([[0.0, 2.0]], [[0.6000000238418579, 0.800000011920929]])
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import register

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


@register("binarizer")
def binarizer(X: np.ndarray, threshold: float) -> np.ndarray:
    return (X > threshold).astype(X.dtype)


def _features(x: np.ndarray, per: np.ndarray) -> np.ndarray:
    """``per`` (one value per feature, or one for all) shaped to broadcast along X's feature axis."""
    if per.size == 1 or x.ndim <= 1:
        return per.reshape(-1) if per.size > 1 else per.reshape(())
    return per.reshape((1, -1) + (1,) * (x.ndim - 2))


@register("scaler")
def scaler(X: np.ndarray, scale: tuple, offset: tuple) -> np.ndarray:
    x = np.asarray(X, dtype=np.float32)
    s, o = np.asarray(scale, dtype=np.float32), np.asarray(offset, dtype=np.float32)
    return ((x - _features(x, o)) * _features(x, s)).astype(np.float32)


@register("normalizer")
def normalizer(X: np.ndarray, norm: str) -> np.ndarray:
    """Each row divided by its max, its L1 norm or its L2 norm; a row whose divisor is 0 stays as it is."""
    x = np.asarray(X, dtype=np.float32)
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    if norm == "MAX":
        div = rows.max(axis=1, keepdims=True)
    elif norm == "L1":
        div = np.abs(rows).sum(axis=1, keepdims=True)
    else:
        div = np.sqrt((rows * rows).sum(axis=1, keepdims=True))
    out = np.where(div == 0, rows, rows / np.where(div == 0, 1, div))
    return out.astype(np.float32).reshape(x.shape)


@register("imputer")
def imputer(X: np.ndarray, imputed: tuple, replaced: Any) -> np.ndarray:
    """Elements equal to ``replaced`` (NaN matches NaN) become the imputed value of their feature (the
    last axis), or the one imputed value."""
    x = np.array(X, copy=True)
    values = np.asarray(imputed, dtype=x.dtype)
    fill = np.broadcast_to(values if values.size > 1 else values.reshape(()), x.shape)
    hit = np.isnan(x) if x.dtype.kind == "f" and replaced != replaced else x == np.asarray(replaced, dtype=x.dtype)
    x[hit] = fill[hit]
    return x


@register("feature_vectorizer")
def feature_vectorizer(X: tuple, inputdimensions: tuple) -> np.ndarray:
    """The inputs side by side, each as rows of its flattened features cut or padded with zeros to its
    inputdimensions entry; a 1-D input is one row."""
    parts = []
    for x, d in zip(X, inputdimensions):
        a = np.asarray(x, dtype=np.float32)
        rows = a.reshape(1, -1) if a.ndim <= 1 else a.reshape(a.shape[0], -1)
        part = np.zeros((rows.shape[0], int(d)), dtype=np.float32)
        n = min(int(d), rows.shape[1])
        part[:, :n] = rows[:, :n]
        parts.append(part)
    return np.concatenate(parts, axis=1)


@register("array_feature_extractor")
def array_feature_extractor(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The elements at the indices along the last axis; a 1-D input gives one row."""
    idx = np.asarray(Y).reshape(-1)
    x = np.asarray(X)
    out = np.take(x, idx, axis=-1)
    return out.reshape(1, -1) if x.ndim == 1 else out
