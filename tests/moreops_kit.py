"""Shared harness of the issue-16 "more ops" differential tests: one random case through
onnxruntime (or onnx.reference), shapecheck.execute and the solver (on concrete dims, then with
every dim and small integer value a symbol), compared."""
from __future__ import annotations

import json
import zlib

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array

from .layout_harness import check_inferred, symbolic_query
from .ort_kit import one_node, run_ort

REG = default_registry()


def type_of(a: np.ndarray, valued: bool = False) -> str:
    text = f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"
    return f"{text} = {json.dumps(a.tolist())}" if valued else text


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def random_shape(rng: np.random.Generator, ranks: tuple[int, int], dims: tuple[int, int]) -> tuple[int, tuple]:
    """A rank drawn from [ranks) and a shape of dims drawn from [dims)."""
    rank = int(rng.integers(*ranks))
    return rank, tuple(int(d) for d in rng.integers(*dims, size=rank))


def code(dt) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dt))


def compare(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int], *, reference: bool = False,
            tol: float = 1e-4, symbolic: bool = True, valued: tuple = (), fresh: bool = False) -> list[np.ndarray]:
    """Run ``op`` in onnxruntime (or onnx.reference) and through execute and solve; outputs must agree
    (``valued``: the inputs whose values the solver sees, as a constant axes input; ``fresh``: output
    dims that depend on values, as Unique's count, may be fresh symbols)."""
    feeds = {n: a for n, a in inputs if a is not None}
    if reference:
        want = ReferenceEvaluator(one_node(op, opset, inputs, attrs, out_types)).run(None, feeds)
    else:
        want = run_ort(op, opset, inputs, attrs, out_types)
    got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types)).values())
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
        t = max(tol, 2e-2) if w.dtype == np.float16 else tol
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=t, atol=t)
    spec = REG.resolve(op, opset)
    types = {n: type_of(a, n in valued) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    for t, w in zip(res.outputs.values(), want):
        if fresh:
            check_inferred(t, w, {}, False)               # every dim it states is the run's; fresh ones are free
        else:
            assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_of(w))
    if symbolic:                                         # again with every dim (and small int value) a symbol
        types, subs = symbolic_query(dict(inputs), set(valued))
        res = solve(spec, types, attrs, output_count=len(out_types))
        assert res.status in ("valid", "conditional"), (types, res.violations)
        for t, w in zip(res.outputs.values(), want):
            check_inferred(t, w, subs, False)
    return want
