"""Differential checks of one spec against onnxruntime on concrete arrays.

``check_against_ort`` runs a one-node model in onnxruntime and the same query through
``shapecheck.execute`` (values, dtypes, shapes must be equal) and ``solve`` (the inferred output
types must be the run's, and valid); with ``symbolic`` it solves again with the first input's dims
as symbols and checks that every inferred dim, with the run's sizes put in, is the run's dim.
"""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import sympy
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array
from shapecheck.dims import is_unknown, symbol

REG = default_registry()


def one_node(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int]) -> bytes:
    """A model of one node; ``inputs`` are (name, array or None), None leaving an optional input out."""
    names = [n if a is not None else "" for n, a in inputs]
    while names and not names[-1]:
        names.pop()
    vis = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
           for n, a in inputs if a is not None]
    outs = [f"out{i}" for i in range(len(out_types))]
    node = helper.make_node(op, names, outs, **attrs)
    graph = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(o, t, None) for o, t in zip(outs, out_types)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8).SerializeToString()


def run_ort(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int]) -> list[np.ndarray]:
    sess = ort.InferenceSession(one_node(op, opset, inputs, attrs, out_types), providers=["CPUExecutionProvider"])
    return sess.run(None, {n: a for n, a in inputs if a is not None})


def _type(a: np.ndarray) -> str:
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def check_against_ort(op: str, opset: int, inputs: list, attrs: dict | None = None, *, n_out: int = 1,
                      out_types: list[int] | None = None, variadic: bool = False, valued: tuple = (),
                      symbolic: bool = True, fresh: bool = False) -> list[np.ndarray]:
    """Compare execute and solve with onnxruntime; ``valued`` names inputs whose values the solver sees,
    ``fresh`` allows data-dependent output dims (fresh symbols)."""
    attrs = attrs or {}
    first = helper.np_dtype_to_tensor_dtype(inputs[0][1].dtype)
    want = run_ort(op, opset, inputs, attrs, out_types or [first] * n_out)
    feeds = {n: a for n, a in inputs if a is not None}
    got = shapecheck.execute(op, opset, feeds, attrs, output_count=n_out if variadic else None)
    got_list = list(got.values())
    assert len(got_list) == len(want)
    for g, w in zip(got_list, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_array_equal(g, w)
    spec = REG.resolve(op, opset)
    types = {n: (a if n in valued else _type(a)) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=n_out if variadic else None)
    assert res.status == "valid", (res.violations, res.conditions)
    for t, w in zip(res.outputs.values(), want):
        # a data-dependent dim (NonZero's count) is a fresh symbol; every other dim is the run's
        assert t.dtype == dtype_of_array(w) and t.shape is not None and len(t.shape) == w.ndim, (str(t), _type(w))
        assert all(is_unknown(d) and fresh or d == n for d, n in zip(t.shape, w.shape)), (str(t), _type(w))
    if symbolic and inputs[0][1].ndim:
        name, arr = inputs[0]
        syms = [symbol(f"D{i}") for i in range(arr.ndim)]
        types[name] = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
        res = solve(spec, types, attrs, output_count=n_out if variadic else None)
        assert res.status in ("valid", "conditional"), res.violations
        sub = dict(zip(syms, arr.shape))
        for t, w in zip(res.outputs.values(), want):
            assert t.shape is not None and len(t.shape) == w.ndim, (str(t), w.shape)
            for d, n in zip(t.shape, w.shape):
                if isinstance(d, sympy.Basic) and any(is_unknown(s) for s in d.free_symbols):
                    continue
                assert sympy.sympify(d).xreplace(sub) == n, (str(t), w.shape, sub)
    return want
