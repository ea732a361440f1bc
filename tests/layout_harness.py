"""Shared harness of the layout-op differential tests: one random case -> onnxruntime's run,
shapecheck's executor and shapecheck's inferred type (dims as symbols, shape tensors as
symbolic values), compared.

A case is (op, opset, inputs, attrs, valued): ``inputs`` maps input names to arrays (None for
an absent optional input); the names in ``valued`` are given to ``infer`` with their values
(axes, repeats, a target shape), every other input with symbolic dims ``d0, d1...`` -- or, for
an integer tensor of rank <= 1, concrete dims and a symbolic value ``v0, v1...``.
"""
from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import onnxruntime as ort
import sympy
from onnx import helper

import shapecheck
from shapecheck.types import ONNX_CODE_OF, TensorType, dtype_of_array
from shapecheck.dims import symbol

BF16 = np.dtype(ml_dtypes.bfloat16)


def onnx_code(arr: np.ndarray) -> int:
    return ONNX_CODE_OF[dtype_of_array(arr)]


def run_ort(op: str, opset: int, inputs: dict, attrs: dict, out_dtypes: list[str], n_out: int = 1) -> list[np.ndarray]:
    """One node in a one-node model, every given input a graph input."""
    names = [n if a is not None else "" for n, a in inputs.items()]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, [f"y{i}" for i in range(n_out)], **attrs)
    feeds = {n: a for n, a in inputs.items() if a is not None}
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, onnx_code(a), list(a.shape)) for n, a in feeds.items()],
                          [helper.make_tensor_value_info(f"y{i}", ONNX_CODE_OF[d], None) for i, d in enumerate(out_dtypes)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def symbolic_query(inputs: dict, valued: set) -> tuple[dict, dict]:
    """Type texts for ``infer`` and the substitution that maps their symbols to the case's numbers."""
    types, subs = {}, {}
    k = 0
    for name, a in inputs.items():
        if a is None:
            continue
        dt = dtype_of_array(a)
        if name in valued:
            types[name] = f"{dt}[{','.join(map(str, a.shape))}] = {json.dumps(np.asarray(a).tolist())}"
        elif dt in ("int64", "int32") and a.ndim <= 1 and a.size <= 8:
            elems = []
            for x in a.reshape(-1).tolist():
                if x >= 0:     # symbols stand for non-negative integers
                    s = f"v{k}"
                    k += 1
                    subs[symbol(s)] = int(x)
                    elems.append(s)
                else:
                    elems.append(str(x))
            body = elems[0] if a.ndim == 0 else "[" + ", ".join(elems) + "]"
            types[name] = f"{dt}[{','.join(map(str, a.shape))}] = {body}"
        else:
            dims = []
            for d in a.shape:
                s = f"d{k}"
                k += 1
                subs[symbol(s)] = int(d)
                dims.append(s)
            types[name] = f"{dt}[{','.join(dims)}]"
    return types, subs


def _num(d, subs) -> int:
    return int(d) if type(d) is int else int(sympy.sympify(d).subs(subs))


def check_inferred(t: TensorType, got: np.ndarray, subs: dict, want_value: bool) -> None:
    """The inferred type agrees with the run: dtype, every dim it states, and a value it states."""
    assert t.dtype == dtype_of_array(got), (str(t), got.dtype)
    if t.shape is not None:
        assert len(t.shape) == got.ndim, (str(t), got.shape)
        for d, n in zip(t.shape, got.shape):
            if not (isinstance(d, sympy.Basic) and any(isinstance(s, sympy.Dummy) for s in d.free_symbols)):
                assert _num(d, subs) == n, (str(t), got.shape)
    elems = t.elements()
    if elems is not None:
        for e, g in zip(elems, got.reshape(-1).tolist()):
            if not isinstance(e, sympy.Dummy):          # an element known only at run time
                assert (e if isinstance(e, bool) else _num(e, subs)) == g, (str(t), got.tolist())
    elif t.value is not None:
        np.testing.assert_array_equal(t.value, got)
    if want_value and got.ndim <= 1:
        assert elems is not None or t.value is not None, f"{t} lost the value {got.tolist()}"


def assert_same(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (ours.dtype, ours.shape, theirs.dtype, theirs.shape)
    if ours.dtype.kind == "f" or ours.dtype == BF16:
        np.testing.assert_array_equal(ours.astype(np.float64), theirs.astype(np.float64))
    else:
        np.testing.assert_array_equal(ours, theirs)


def check_case(op: str, opset: int, inputs: dict, attrs: dict, valued: set, keeps_value: bool = False) -> None:
    """execute == onnxruntime, and infer (symbolic) agrees with both."""
    ours = shapecheck.execute(op, opset, {k: v for k, v in inputs.items() if v is not None}, attrs)
    outs = list(ours.values())
    theirs = run_ort(op, opset, inputs, attrs, [dtype_of_array(o) for o in outs], len(outs))
    for o, t in zip(outs, theirs):
        assert_same(o, t)
    types, subs = symbolic_query(inputs, valued)
    r = shapecheck.infer(op, opset, types, attrs)
    assert r.status in ("valid", "conditional"), (types, r.violations)
    for (name, t), got in zip(r.outputs.items(), theirs):
        check_inferred(t, got, subs, keeps_value and any(isinstance(s, sympy.Symbol) and s.name.startswith("v") for s in subs))


def values(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    if dtype == "string":
        return np.array(rng.choice(list("abcdef"), size=shape), dtype=object).reshape(shape)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in ("int64", "int32", "int8", "int16", "uint8", "uint16", "uint32", "uint64"):
        lo = 0 if dtype.startswith("u") else -5
        return np.asarray(rng.integers(lo, 9, size=shape)).astype(dtype)
    return np.asarray(rng.integers(-16, 17, size=shape) / 4).astype(dtype)
