"""Every spec, solver against executor: each query of a spec's cases that the solver finds valid is
instantiated at random dims and random data, and run.

* the executor runs, and every output has the inferred dtype and, dim by dim, the inferred shape
  evaluated at the drawn dims (an unknown or run-time dim is not compared);
* or it stops on a constraint the solver left to run time (``unchecked``: it reads values).

Nothing else may happen: no other error, no refusal of a valid query.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest
import sympy

from shapecheck.errors import ConstraintError
from shapecheck.executor import run_spec
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.containers import MapType, OptionalType, OptionalValue, SequenceType, dims_in, is_container, parse_value_type
from shapecheck.types import TensorType, numpy_dtype
from tests.harness.runtime import check_inferred
from shapecheck.dims import is_unknown

REG = default_registry()
DRAWS = 3


def _queries():
    """Per spec with a kernel, its distinct case queries: one test per spec (a test per query made 6,000
    tests of a few milliseconds, which cost more in the test runner than in the solver)."""
    for spec in REG:
        if not spec.semantics or spec.deprecated or any(i.variadic for i in spec.inputs):
            continue
        seen, cases = set(), []
        for rule in spec.constraints:
            for i, case in enumerate(rule.cases):
                key = (str(sorted((k, str(v)) for k, v in case.inputs.items())), str(case.attrs))
                if key not in seen:
                    seen.add(key)
                    cases.append((f"{rule.id}-{i}", case))
        if cases:
            yield pytest.param(spec, cases, id=spec.name)


QUERIES = list(_queries())


def _int(d, env: dict) -> int | None:
    if type(d) is int:
        return d
    v = sympy.sympify(d).xreplace(env)
    return int(v) if v.is_Integer else None


def _container(rng, t, env: dict):
    """A value of a sequence (each element's own type, or what every element is, as long as its length),
    an optional (its element, or empty where it is known to be) or a map (two entries)."""
    if isinstance(t, SequenceType):
        n = len(t.items) if t.items is not None else (_int(t.length, env) if t.length is not None else 2)
        items = [_array(rng, x, env) for x in (t.items if t.items is not None else (t.elem,) * (n or 0))]
        return None if n is None or any(x is None for x in items) else items
    if isinstance(t, OptionalType):
        inner = _array(rng, t.elem, env) if t.present is not False else None
        return None if inner is None and t.present is not False else OptionalValue(inner, t.elem)
    if isinstance(t, MapType) and t.key and isinstance(t.value_type, TensorType) and t.value_type.dtype:
        keys = ["a", "b"] if t.key == "string" else [1, 2]
        vals = _array(rng, TensorType(t.value_type.dtype, (2,)), env)
        return dict(zip(keys, list(vals)))
    return None


def _array(rng, t: TensorType, env: dict):
    if is_container(t):
        return _container(rng, t, env)
    if t.value is not None:
        return np.asarray(t.value)
    if t.dtype is None or t.shape is None:
        return None
    shape = [_int(d, env) for d in t.shape]
    if any(d is None or d < 0 for d in shape):
        return None
    dt = numpy_dtype(t.dtype)
    if t.sym is not None:
        vals = [_int(d, env) for d in t.sym]
        if any(v is None for v in vals):
            return None
        return np.asarray(vals, dtype=dt).reshape(shape)
    if t.dtype == "bool":
        return rng.random(shape) < 0.5
    if t.dtype == "string":
        return rng.choice(np.array(["1", "2.5", "-3"], dtype=object), size=shape)   # castable to numbers
    if np.issubdtype(dt, np.integer):
        return rng.integers(1, 3, size=shape).astype(dt)   # never 0: integer division by 0 fails every runtime
    return rng.standard_normal(shape).astype(dt)


def _draw(rng, types: dict) -> tuple[dict, dict] | None:
    syms = set()
    for t in types.values():
        for d in dims_in(t):
            if isinstance(d, sympy.Basic):
                syms |= d.free_symbols
    env = {s: sympy.Integer(int(rng.integers(1, 5))) for s in sorted(syms, key=str)}
    arrays = {}
    for name, t in types.items():
        a = _array(rng, t, env)
        if a is None:
            return None
        arrays[name] = a
    return arrays, env


@pytest.mark.parametrize("spec,cases", QUERIES)
def test_valid_queries_run_with_the_inferred_types(spec, cases):
    failed = []
    for label, case in cases:
        try:
            _runs_with_the_inferred_types(spec, case)
        except AssertionError as exc:
            failed.append(f"{spec.name} {label}: {exc}")
    assert not failed, "\n".join(failed)


def _runs_with_the_inferred_types(spec, case) -> None:
    types = {k: parse_value_type(v) if isinstance(v, str) else v for k, v in case.inputs.items()}
    res = solve(spec, types, case.attrs)
    if res.status != "valid" or any(t.dtype is None and not is_container(t) for t in res.outputs.values()):
        return   # not a valid query (the spec cases test its verdict), or an element type numpy lacks (float8)
    unchecked = {c.id for c in res.constraints if c.status == "unchecked"}
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()))
    for _ in range(DRAWS):
        drawn = _draw(rng, types)
        if drawn is None:
            return   # an input whose data cannot be drawn (unknown rank or dtype)
        arrays, env = drawn
        try:
            outputs, _ = run_spec(spec, arrays, case.attrs)
        except ConstraintError as exc:
            assert set(str(exc.constraint).split("+")) <= unchecked, (
                f"{spec.name} on {case.inputs} {case.attrs}: the solver proved every constraint, "
                f"the executor refused: {exc}")
            continue
        for key, t in res.outputs.items():
            got = outputs[key]
            if is_container(t):
                check_inferred(t, got, env, False)
                continue
            if t.dtype is not None:
                assert str(np.asarray(got).dtype) == str(numpy_dtype(t.dtype)) or t.dtype == "string", (key, got.dtype)
            if t.shape is None:
                continue
            assert np.ndim(got) == len(t.shape), (spec.name, key, t, np.shape(got))
            for d, g in zip(t.shape, np.shape(got)):
                if isinstance(d, sympy.Basic) and any(is_unknown(s) for s in d.free_symbols):
                    continue
                assert _int(d, env) == g, (spec.name, case.inputs, case.attrs, key, str(t), np.shape(got), env)


def test_most_specs_are_exercised():
    ran = {p.values[0].name for p in QUERIES}
    with_semantics = {s.name for s in REG if s.semantics and not s.deprecated and not any(i.variadic for i in s.inputs)}
    assert len(ran) >= 0.8 * len(with_semantics)
