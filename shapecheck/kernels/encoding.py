"""Encoding kernels (ai.onnx.ml): LabelEncoder, CategoryMapper, OneHotEncoder, DictVectorizer, CastMap,
ZipMap.  A map is a dict; ZipMap's output a list of dicts.  Shapes and element types are onnxruntime's
(DictVectorizer and CastMap give one row: ``[1, n]``).

>>> import numpy as np
>>> label_encoder(np.array(["a", "z"], object), ("a", "b"), (1, 2), -1, "int64").tolist()
[1, -1]
>>> one_hot_encoder(np.array([[1, 3]]), (1, 2, 3), None, 1).shape
(1, 2, 3)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..types import numpy_dtype
from . import register

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


def _key(x: Any) -> Any:
    """A value as a lookup key: a float's bits (NaN finds NaN, as onnxruntime's), a string as it is."""
    if isinstance(x, (float, np.floating)):
        return ("f", float(x)) if x == x else ("nan",)
    return x


@register("label_encoder")
def label_encoder(X: np.ndarray, keys: Any, values: Any, default: Any, out_dtype: str) -> np.ndarray:
    """Each element of ``X`` looked up in ``keys``, given the ``values`` at the same position, else ``default``."""
    if isinstance(default, np.ndarray):   # a default_tensor: its one value
        default = default.reshape(-1)[0]
    keys = np.asarray(keys).reshape(-1).tolist() if isinstance(keys, np.ndarray) else keys
    values = np.asarray(values).reshape(-1).tolist() if isinstance(values, np.ndarray) else values
    table = {_key(k): v for k, v in zip(keys, values)}
    flat = [table.get(_key(x.item() if hasattr(x, "item") else x), default) for x in np.asarray(X).reshape(-1)]
    return np.array(flat, dtype=numpy_dtype(out_dtype)).reshape(np.shape(X))


@register("category_mapper")
def category_mapper(X: np.ndarray, cats_strings: tuple, cats_int64s: tuple, default_string: str,
                    default_int64: int) -> np.ndarray:
    """Strings to their integers (default_int64 when unknown), integers to their strings."""
    if np.asarray(X).dtype.kind in "OUS":
        return label_encoder(X, cats_strings, cats_int64s, default_int64, "int64")
    return label_encoder(X, cats_int64s, cats_strings, default_string, "string")


@register("one_hot_encoder")
def one_hot_encoder(X: np.ndarray, cats_int64s: Any, cats_strings: Any, zeros: int) -> np.ndarray:
    """A last axis of one entry per category, 1 where the element is that category (numbers compared
    as integers); an unknown element is all zeros, or an error without ``zeros``."""
    cats = list(cats_int64s if cats_int64s is not None else cats_strings)
    x = np.asarray(X)
    flat = x.reshape(-1)
    if x.dtype.kind in "fiu" and cats_int64s is not None:
        flat = flat.astype(np.int64)
    pos = {c: i for i, c in enumerate(cats)}
    out = np.zeros((flat.size, len(cats)), dtype=np.float32)
    for r, v in enumerate(flat.tolist()):
        i = pos.get(v)
        if i is None and not zeros:
            raise ValueError(f"OneHotEncoder: unknown category {v!r} and zeros = 0")
        if i is not None:
            out[r, i] = 1.0
    return out.reshape(x.shape + (len(cats),))


@register("dict_vectorizer")
def dict_vectorizer(X: dict, vocabulary: tuple, out_dtype: str) -> np.ndarray:
    """One row with the map's value at each key's position in the vocabulary, 0 elsewhere (keys not in
    it are skipped)."""
    out = np.zeros((1, len(vocabulary)), dtype=numpy_dtype(out_dtype))
    if out.dtype == object:
        out[:] = ""
    pos = {k: i for i, k in enumerate(vocabulary)}
    for k, v in X.items():
        if k in pos:
            out[0, pos[k]] = v
    return out


@register("cast_map")
def cast_map(X: dict, cast_to: str, map_form: str, max_map: int) -> np.ndarray:
    """The map's values in key order as one row (DENSE), or at their keys' positions in a row of max_map
    (SPARSE); cast to float, string or int64."""
    dtype = {"TO_FLOAT": "float", "TO_STRING": "string", "TO_INT64": "int64"}[cast_to]
    items = sorted(X.items())
    if map_form == "SPARSE":
        out = np.zeros((1, max_map), dtype=numpy_dtype(dtype))
        for k, v in items:
            if 0 <= k < max_map:
                out[0, k] = _cast(v, dtype)
        return out
    return np.array([[_cast(v, dtype) for _k, v in items]], dtype=numpy_dtype(dtype)).reshape(1, len(items))


def _cast(v: Any, dtype: str) -> Any:
    if dtype == "string":   # onnxruntime writes a float as C++'s std::to_string does: six decimals
        return f"{v:f}" if isinstance(v, (float, np.floating)) else str(v)
    return float(v) if dtype == "float" else int(float(v))


@register("zip_map")
def zip_map(X: np.ndarray, labels: tuple) -> list:
    """One map per row, from the labels to the row's values."""
    rows = np.asarray(X, dtype=np.float32).reshape(-1, len(labels))
    return [{k: float(v) for k, v in zip(labels, row.tolist())} for row in rows]
