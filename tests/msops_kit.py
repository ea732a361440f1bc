"""Shared helpers of the msops tests (tests/test_specs_msops_differential.py and
tests/test_specs_msops_confirm.py): one-node onnxruntime runs with a com.microsoft opset_import, and
``compare``: onnxruntime against ``shapecheck.execute`` (values) and the solver (types, concrete and
with the first input's dims as symbols).
"""
from __future__ import annotations

import zlib

import numpy as np
import onnxruntime as ort
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array
from shapecheck.dims import symbol

from .layout_harness import check_inferred
from .node_cases import type_text

ort.set_default_logger_severity(3)
REG = default_registry()
MS = "com.microsoft"


def onnx_code(dt) -> int:
    """The TensorProto code of a numpy dtype."""
    return helper.np_dtype_to_tensor_dtype(np.dtype(dt))


def run_ort(op: str, opset: int, inputs: list, attrs: dict, out_types: list, domain: str = "") -> list[np.ndarray]:
    """One-node model in onnxruntime; ``inputs`` are (name, array or None); a None out type skips that output."""
    names = [n if a is not None else "" for n, a in inputs]
    while names and not names[-1]:
        names.pop()
    vis = [helper.make_tensor_value_info(n, onnx_code(a.dtype), list(a.shape)) for n, a in inputs if a is not None]
    outs = [f"out{i}" if t is not None else "" for i, t in enumerate(out_types)]
    node = helper.make_node(op, names, outs, domain=domain, **attrs)
    graph = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(o, t, None)
                                                 for o, t in zip(outs, out_types) if o])
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=imports, ir_version=10)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {n: a for n, a in inputs if a is not None})


def compare(op: str, opset: int, inputs: list, attrs: dict, out_types: list, *, domain: str = "",
            execute: bool = True, tol: float = 1e-4) -> None:
    """onnxruntime against execute (values) and solve (types, concrete and symbolic)."""
    want = run_ort(op, opset, inputs, attrs, out_types, domain)
    feeds = {n: a for n, a in inputs if a is not None}
    spec = REG.resolve(op, opset, domain or None)
    if execute:
        got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types), domain=domain or None).values())
        got = [g for g, t in zip(got, out_types) if t is not None]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
            t = 2e-2 if w.dtype == np.float16 else tol
            low = float(np.finfo(w.dtype).min)   # MS4: onnxruntime writes a masked score as the lowest finite value
            np.testing.assert_allclose(np.maximum(g.astype(np.float64), low), np.maximum(w.astype(np.float64), low),
                                       rtol=t, atol=t)
    types = {n: type_text(a) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    wanted = [w for w in want]
    outs = [t for t, o in zip(res.outputs.values(), out_types) if o is not None]
    for t, w in zip(outs, wanted):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_text(w))
    name, arr = inputs[0]                     # again with the first input's dims as symbols
    types[name] = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status in ("valid", "conditional"), res.violations
    outs = [t for t, o in zip(res.outputs.values(), out_types) if o is not None]
    for t, w in zip(outs, wanted):
        assert t.shape is not None, str(t)
        check_inferred(t, w, {symbol(f"D{i}"): n for i, n in enumerate(arr.shape)}, False)


def seeded(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def randn(rng, shape, dt=np.float32):
    return rng.standard_normal(shape).astype(dt)
