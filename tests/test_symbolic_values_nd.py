"""Symbolic values of tensors of rank 2 and more, solver against executor.

A shape tensor reshaped to ``[4, 2]`` (torch's ``F.pad`` does this) carries its elements in
row-major order.  Every value rule that passes such a value on must keep that order or give
no value: for each op below, the solver's symbolic output value, with the dims substituted,
must equal the executor's output on the substituted inputs.  Transpose once passed the
elements on unchanged (a wrong value); these tests would catch it.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy

import shapecheck
from shapecheck.registry import default_registry
from shapecheck.types import TensorType, valued
from shapecheck.dims import symbol

N, M = symbol("N"), symbol("M")
AT = {N: 5, M: 7}


def _elems(shape):
    rng = np.random.default_rng(sum(shape))
    pool = [N, M, N + 1, 2 * M, 3]
    return tuple(pool[i] if i < len(pool) else int(rng.integers(0, 9)) for i in rng.permutation(np.prod(shape)))


def _concrete(elems, shape):
    return np.array([int(sympy.sympify(e).xreplace(AT)) for e in elems], dtype=np.int64).reshape(shape)


CASES = [
    ("Transpose", 13, {}, [(2, 3)]),
    ("Transpose", 13, {"perm": [1, 0]}, [(4, 2)]),
    ("Transpose", 13, {"perm": [2, 0, 1]}, [(2, 1, 3)]),
    ("Transpose", 13, {"perm": [0, 2, 1]}, [(1, 2, 3)]),
    ("Identity", 16, {}, [(2, 3)]),
    ("Flatten", 13, {"axis": 1}, [(2, 3)]),
    ("Squeeze", 13, {}, [(2, 1, 3), "axes=[1]"]),
    ("Unsqueeze", 13, {}, [(2, 3), "axes=[0]"]),
    ("Reshape", 14, {}, [(2, 3), "shape=[3, 2]"]),
    ("Cast", 13, {"to": 7}, [(2, 3)]),
    ("Tile", 13, {}, [(2, 3), "repeats=[2, 1]"]),
    ("Gather", 13, {"axis": 1}, [(2, 3), "indices=[2, 0]"]),
    ("Slice", 13, {}, [(4, 2), "starts=[3]", "ends=[-9223372036854775807]", "axes=[0]", "steps=[-1]"]),
    ("Slice", 13, {}, [(3, 4), "starts=[1, -1]", "ends=[3, 0]", "axes=[0, 1]", "steps=[1, -2]"]),
    ("Slice", 13, {}, [(2, 5), "starts=[1]", "ends=[100]", "axes=[-1]", "steps=[2]"]),
    ("Reshape", 14, {}, [(4, 2), "shape=[8]"]),
    ("Concat", 13, {"axis": 1}, [(2, 1), (2, 2)]),
    ("Add", 14, {}, [(2, 3), (2, 3)]),
]


def _inputs(spec, args):
    """Symbolic and concrete inputs for a spec from a case's argument list."""
    names = [i.name for i in spec.inputs]
    sym, conc = {}, {}
    shapes = [a for a in args if isinstance(a, tuple)]
    if spec.inputs[0].variadic:
        parts = [(valued("int64", s, e), _concrete(e, s)) for s in shapes for e in [_elems(s)]]
        return {names[0]: [p[0] for p in parts]}, {names[0]: [p[1] for p in parts]}
    for name, s in zip(names, shapes):
        e = _elems(s)
        sym[name], conc[name] = valued("int64", s, e), _concrete(e, s)
    for a in args:
        if isinstance(a, str):
            name, _, text = a.partition("=")
            arr = np.array(_ints(text), dtype=np.int64)
            sym[name], conc[name] = TensorType("int64", arr.shape, arr), arr
    return sym, conc


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.strip()[1:-1].split(",")]


@pytest.mark.parametrize("op, opset, attrs, args", CASES, ids=lambda x: str(x))
def test_symbolic_value_matches_the_executor(op, opset, attrs, args):
    spec = default_registry().resolve(op, opset)
    sym, conc = _inputs(spec, args)
    result = shapecheck.infer(op, opset, sym, attrs)
    assert result.status == "valid", result.violations
    want = shapecheck.execute(op, opset, conc, attrs)
    for key, t in result.outputs.items():
        got = want[key]
        assert t.shape is not None and tuple(int(sympy.sympify(d).xreplace(AT)) for d in t.shape) == got.shape
        if t.sym is not None:
            assert _concrete(t.sym, got.shape).tolist() == got.astype(np.int64).tolist(), (op, t)
        elif t.value is not None:
            assert t.value.tolist() == got.tolist(), (op, t)


def test_the_values_pass_on():
    """The cases above are not vacuous: these ops give a symbolic value of rank >= 2 or from one."""
    for op, opset, attrs, args in CASES:
        spec = default_registry().resolve(op, opset)
        sym, _ = _inputs(spec, args)
        out = shapecheck.infer(op, opset, sym, attrs).outputs
        if op in ("Transpose", "Reshape", "Slice", "Identity", "Cast"):
            assert all(t.sym is not None for t in out.values()), (op, out)


def test_transpose_reorders_a_symbolic_matrix():
    r = shapecheck.infer("Transpose", 13, {"data": valued("int64", (2, 2), (N, 1, 2, M))})
    assert r.outputs["transposed"].sym == (N, 2, 1, M)
