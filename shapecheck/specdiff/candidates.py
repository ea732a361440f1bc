"""The candidate inputs of a spec diff's witness search: a candidate (arrays and attributes), its
cost, the arrays an example's input texts stand for, and the smaller variants the shrinker tries.

>>> c = _Cand({"x": np.array([3, 0, 4])}, {})
>>> c.cost(), [s.tensors["x"].tolist() for s in _shrink_steps(c)][:2]
((3, 2, 7), [[3], [4]])
"""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from ..registry import Spec
from ..containers import parse_value_type
from ..types import TensorType, numpy_dtype


@dataclass
class _Cand:
    tensors: dict[str, np.ndarray]
    attrs: dict[str, Any]
    kind: str = "example"      # example | attr | dtype | negate | shape
    label: str = ""

    def cost(self) -> tuple:
        """Fewer elements first, then fewer non-zero values, then smaller integers."""
        size = sum(t.size for t in self.tensors.values())
        nonzero = sum(int(np.count_nonzero(t)) for t in self.tensors.values() if t.dtype.kind != "O")
        mag = sum(int(np.abs(t.astype(np.int64)).sum()) for t in self.tensors.values() if t.dtype.kind in "iu")
        return size, nonzero, mag

    def key(self) -> tuple:
        return (tuple((n, str(t.dtype), t.shape, t.tobytes() if t.dtype.kind != "O" else repr(t.tolist()))
                      for n, t in sorted(self.tensors.items())), repr(sorted(self.attrs.items())))


_KIND_ORDER = {"attr": 0, "dtype": 1, "negate": 2, "shape": 3, "example": 4}


def _materialize(text: str, name: str) -> np.ndarray | None:
    """An example's input as an array: its value, or zeros (zero is a valid index everywhere); None for
    what is not one tensor (a sequence, an optional, a map, a variadic input's list)."""
    if not isinstance(text, str):
        return None
    t = parse_value_type(text, name)
    if not isinstance(t, TensorType) or t.dtype is None or t.shape is None:
        return None
    if t.value is not None:
        return t.value.astype(object) if t.dtype == "string" else t.value
    # symbolic dims get a small size; the shrinker makes it smaller if it can
    shape = tuple(d if type(d) is int else 2 for d in t.shape)
    arr = np.zeros(shape, numpy_dtype(t.dtype))
    return np.full(shape, "", object) if t.dtype == "string" else arr


def _cast(arr: np.ndarray, dtype: str) -> np.ndarray:
    src = arr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if src.dtype.kind == "O":
            try:
                src = src.astype(np.float64)
            except (TypeError, ValueError):
                src = np.zeros(src.shape)
        if src.dtype.kind == "c" and not dtype.startswith("complex"):
            src = src.real
        if dtype == "string":   # (a 0-d array's astype gives a Python str: kept an array)
            return np.asarray(src.astype(str), dtype=object).reshape(src.shape)
        return src.astype(numpy_dtype(dtype))


def _templates(spec: Spec) -> dict[str, np.ndarray]:
    """One materialized value per input name from the spec's examples (for one-sided inputs)."""
    out = {}
    for ex in spec.examples:
        for name, text in ex.inputs.items():
            if name not in out:
                arr = _materialize(text, name)
                if arr is not None:
                    out[name] = arr
    return out


def _shrink_steps(c: _Cand) -> Iterable[_Cand]:
    """Smaller or simpler variants: a dim size cut everywhere it occurs, one axis cut, values zeroed."""
    sizes = sorted({d for t in c.tensors.values() for d in t.shape if d > 1}, reverse=True)
    for v in sizes:
        for w in sorted({1, v // 2, v - 1}):
            for tail in (False, True):   # keep the first or the last entries (a negative index may be last)
                if 1 <= w < v:
                    yield _Cand({n: _cut_all(t, v, w, tail) for n, t in c.tensors.items()}, c.attrs, c.kind, c.label)
    for n, t in sorted(c.tensors.items()):
        for ax in range(t.ndim):
            if t.shape[ax] > 1:
                for i in (0, t.shape[ax] - 1):
                    yield _Cand({**c.tensors, n: np.take(t, [i], axis=ax)}, c.attrs, c.kind, c.label)
    for n, t in sorted(c.tensors.items()):
        if t.dtype.kind in "iufcb" and np.any(t != 0):
            yield _Cand({**c.tensors, n: np.zeros_like(t)}, c.attrs, c.kind, c.label)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield _Cand({**c.tensors, n: np.sign(t).astype(t.dtype)}, c.attrs, c.kind, c.label)


def _cut_all(t: np.ndarray, v: int, w: int, tail: bool) -> np.ndarray:
    for ax in range(t.ndim):
        if t.shape[ax] == v:
            t = np.take(t, range(v - w, v) if tail else range(w), axis=ax)
    return t


def _nonzero(c: _Cand) -> _Cand | None:
    """``c`` with each all-zero numeric tensor filled with ones instead, if it has any."""
    tensors = {n: (np.ones_like(t) if t.dtype.kind in "iufc" and t.size and not np.any(t) else t)
               for n, t in c.tensors.items()}
    if all(tensors[n] is c.tensors[n] for n in tensors):
        return None
    return dataclasses.replace(c, tensors=tensors)
