"""Drawing concrete instances of a symbolic query: structure (open ranks and types), dims, arrays.

Index inputs get values in range (or one out of range on purpose) from the spec's semantics
kind (``kernels.EXTENTS``); other inputs whose contents constraints read get a value the
solver accepts on the very instance.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import string

import numpy as np

from ..errors import ShapeCheckError, UsageError
from ..kernels import EXTENTS, INDEX_ARG
from ..result import Result
from ..solver import prepare_attrs, solve, spec_env
from ..notation import EvalError, NeedInt, Unknown
from ..registry import Registry, Spec
from ..types import ELEMENT_TYPES, TensorType, numpy_dtype
from ..dims import unknown_dim, is_symbolic
from .symbols import at, draw_dims, expected_type
from .oracle import ids_of, judge
from .samples import Sample

if TYPE_CHECKING:
    pass

__all__ = ["Drawer", "refuse_huge"]

_MAX_RANK = 4          # ranks drawn for inputs of unknown rank
_MAX_ELEMENTS = 1 << 24  # elements over all inputs of one drawn instance


class Drawer:
    """Draws the instances of one symbolic query: ranks and element types left open, dims, arrays."""

    def __init__(self, spec: Spec, base: dict[str, TensorType], attrs: dict, rng: np.random.Generator,
                 registry: Registry):
        self.spec, self.base, self.attrs, self.rng, self.registry = spec, base, attrs, rng, registry
        self.value_inputs = set().union(*(r.value_inputs for r in spec.constraints)) if spec.constraints else set()
        self.cache: dict[tuple, tuple[dict[str, TensorType], Result]] = {}

    # -- structure: ranks and element types left unknown by the query
    def _structure(self, intent: str) -> tuple[dict[str, TensorType], Result, dict[str, int]]:
        open_rank = [n for n, t in self.base.items() if t.shape is None]
        open_dtype = [n for n, t in self.base.items() if t.dtype is None]
        best = None
        for _ in range(30 if (open_rank or open_dtype) else 1):
            ranks = {n: int(self.rng.integers(0, _MAX_RANK + 1)) for n in open_rank}
            dtypes = {n: self._dtype_choice(n) for n in open_dtype}
            key = (tuple(sorted(ranks.items())), tuple(sorted(dtypes.items())))
            if key not in self.cache:
                types = {n: TensorType(dtypes.get(n, t.dtype),
                                       tuple(unknown_dim(f"{n}.shape[{i}]") for i in range(ranks[n]))
                                       if n in ranks else t.shape, t.value)
                         for n, t in self.base.items()}
                self.cache[key] = (types, solve(self.spec, types, self.attrs, registry=self.registry))
            types, res = self.cache[key]
            best = (types, res, {f"rank({n})": r for n, r in ranks.items()})
            if intent != "satisfy" or res.status != "invalid":
                break
        return best

    def _dtype_choice(self, name: str) -> str:
        decl = next(i for i in self.spec.inputs if i.name == name)
        choices = sorted(self.spec.types.get(decl.type, ELEMENT_TYPES))
        return str(self.rng.choice(choices))

    # -- one instance
    def sample(self, index: int, intent: str) -> Sample:
        types, res, rank_sub = self._structure(intent)
        sub, predicted, predicted_ids = draw_dims(self.rng, types, res, "satisfy" if intent == "bad-index" else intent)
        unchecked = {c.id for c in res.constraints if c.status == "unchecked"}
        shapes = {n: tuple(int(at(d, sub)) if is_symbolic(d) else d for d in t.shape)
                  for n, t in types.items()}
        refuse_huge(self.spec, {n: TensorType(t.dtype, shapes[n]) for n, t in types.items()})
        arrays: dict[str, np.ndarray] = {}
        for n, t in types.items():
            if t.value is not None:
                arrays[n] = np.asarray(t.value)
            elif n not in self.value_inputs:
                arrays[n] = _random_array(self.rng, t.dtype, shapes[n])
        values_state = self._value_arrays(types, shapes, arrays, intent)
        if predicted == "valid" and values_state != "in-range":
            predicted = "values"   # valid unless a run-time value constraint is broken (on purpose or unavoidably)
        expected = expected_type(res, sub)
        s = Sample(index, intent, {**rank_sub, **{k.name: int(v) for k, v in sorted(sub.items(), key=lambda kv: str(kv[0]))}},
                   {n: list(a.shape) for n, a in arrays.items()}, {n: types[n].dtype for n in arrays},
                   predicted, "", "", str(expected) if expected else "?", True, arrays=arrays)
        judge(self.spec, self.attrs, s, predicted_ids, unchecked, values_state, expected)
        return s

    def _value_arrays(self, types, shapes, arrays, intent: str) -> str:
        """Fill inputs whose contents constraints read; returns in-range | bad | random."""
        state = "in-range"
        pending = [n for n in types if n not in arrays]
        # scalar-like value inputs (an axis given as a tensor) first: the index range depends on them
        index_input = self._index_input()
        for n in sorted(pending, key=lambda n: n == index_input):
            t = types[n]
            if n == index_input:
                state = _worst(state, self._indices(types, shapes, arrays, intent))
                continue
            cands = [v for v in range(-4, 5) if v >= 0 or not _unsigned(t.dtype)]
            self.rng.shuffle(cands)
            arrays[n] = _filled(t.dtype, shapes[n], cands[0])
            if intent == "break":
                state = _worst(state, "random")
                continue
            for v in cands:  # ask the solver which value it accepts; the index values are not drawn yet
                arrays[n] = _filled(t.dtype, shapes[n], v)
                if not self._broken_by(types, shapes, arrays, n):
                    break
            else:
                state = _worst(state, "random")
        return state

    def _indices(self, types, shapes, arrays, intent: str) -> str:
        name = self._index_input()
        t = types[name]
        shape = shapes[name]
        extent = self._extent(types, arrays, shapes)
        if extent is None:
            arrays[name] = _as(self.rng.integers(0, 3, size=shape), t.dtype)
            return "random"
        hi = np.maximum(extent, 1)
        idx = (self.rng.random(shape) * hi).astype(np.int64)
        if extent.size and extent.min() == 0:
            state = "bad"      # an axis of size 0 leaves no valid index value
        else:
            state = "in-range"
        arrays[name] = _as(idx, t.dtype)
        if intent == "bad-index" and idx.size:
            bad = idx.copy().reshape(-1)
            pos = int(self.rng.integers(bad.size))
            bad[pos] = extent.reshape(-1)[pos] if self.rng.random() < .6 or _unsigned(t.dtype) else -extent.reshape(-1)[pos] - 1
            arrays[name] = _as(bad.reshape(shape), t.dtype)
            return "bad"
        if state == "in-range" and idx.size and not _unsigned(t.dtype) and self.rng.random() < .5:
            # negative indices only where the solver accepts them on this very instance
            neg = np.where(self.rng.random(shape) < .5, idx - extent, idx)
            before = self._violations(types, shapes, arrays)
            arrays[name] = _as(neg, t.dtype)
            if self._violations(types, shapes, arrays) - before:
                arrays[name] = _as(idx, t.dtype)
        return state

    def _extent(self, types, arrays, shapes) -> np.ndarray | None:
        """Size of the data axis each index entry addresses, from the spec's semantics parameters."""
        kind = self.spec.semantics.get("kind")
        fn = EXTENTS.get(kind)
        if fn is None:
            return None
        tt = self._types(types, arrays, shapes)
        try:
            attr_values, _ = prepare_attrs(self.spec, self.attrs)
            env = spec_env(self.spec, tt, attr_values)
            args = {}
            for key, f in self.spec.semantics_fns.items():
                bound = self.spec.kernel_inputs.get(key)
                args[key] = shapes[bound] if bound else f(env)
            if any(isinstance(v, Unknown) for v in args.values()):
                return None
            return fn(**args)
        except (EvalError, NeedInt, IndexError, TypeError, KeyError, ValueError):
            return None   # a malformed instance (axis out of range, k > r): the solver will refute it

    def _index_input(self) -> str | None:
        """The input whose values are indices: the one the spec binds to its kernel's index argument."""
        arg = INDEX_ARG.get(self.spec.semantics.get("kind", ""))
        return self.spec.kernel_inputs.get(arg) if arg else None

    def _types(self, types, arrays, shapes) -> dict[str, TensorType]:
        return {n: TensorType(types[n].dtype, shapes[n], arrays.get(n)) for n in types}

    def _violations(self, types, shapes, arrays) -> set[str]:
        tt = self._types(types, arrays, shapes)
        try:
            return ids_of(solve(self.spec, tt, self.attrs, hints=False).violations)
        except ShapeCheckError:
            return {"?"}

    def _broken_by(self, types, shapes, arrays, name: str) -> bool:
        reading = {r.id for r in self.spec.constraints if name in r.value_inputs}
        return bool(self._violations(types, shapes, arrays) & reading)


def refuse_huge(spec: Spec, types: dict[str, TensorType]) -> None:
    """A UsageError for an instance with more elements than verify can build in memory."""
    total = 0
    for n, t in types.items():
        if t.shape is None or t.value is not None:
            continue
        count = 1
        for d in t.shape:
            count *= d if type(d) is int else 1
        total += count
        if total > _MAX_ELEMENTS:
            raise UsageError(f"verify {spec.name}: input {n} of shape {t.shape_str()} makes an instance of "
                             f"{total} or more elements, above the {_MAX_ELEMENTS} verify builds; "
                             "use smaller concrete dims or symbols (verify draws small values for them)")


def _worst(a: str, b: str) -> str:
    order = ("in-range", "random", "bad")
    return max(a, b, key=order.index)


def _unsigned(dtype: str | None) -> bool:
    return bool(dtype) and (dtype.startswith("uint") or dtype == "bool")


def _as(values: np.ndarray, dtype: str | None) -> np.ndarray:
    return np.asarray(np.asarray(values).astype(numpy_dtype(dtype) if dtype else np.int64))


def _filled(dtype: str | None, shape: tuple[int, ...], v: int) -> np.ndarray:
    return _as(np.full(shape, v), dtype)


def _random_array(rng: np.random.Generator, dtype: str | None, shape: tuple[int, ...]) -> np.ndarray:
    return np.asarray(_random_values(rng, dtype, shape))  # 0-d results of astype are numpy scalars


def _random_values(rng: np.random.Generator, dtype: str | None, shape: tuple[int, ...]):
    if dtype == "string":
        letters = np.array(list(string.ascii_lowercase), dtype=object)
        return np.asarray(rng.choice(letters, size=shape) + rng.choice(letters, size=shape), dtype=object).reshape(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    np_dt = numpy_dtype(dtype or "float")
    if np_dt.kind in "fV" or dtype == "bfloat16":
        return np.round(rng.standard_normal(shape) * 4, 2).astype(np_dt)
    if np_dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np_dt)
    if np_dt.kind == "u":
        return rng.integers(0, 10, size=shape).astype(np_dt)
    return rng.integers(-9, 10, size=shape).astype(np_dt)
