"""Small helpers to build one-off ONNX models in tests, and to run the executor in them."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import shapecheck

FLOAT, INT64, BOOL = T.FLOAT, T.INT64, T.BOOL


def vi(name: str, elem: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def const(name: str, values, dtype=np.int64) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def model(nodes, inputs, outputs, opset: int = 18, initializers=(), value_info=(), name: str = "g") -> onnx.ModelProto:
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def node(op: str, ins, outs, name: str = "", **attrs) -> onnx.NodeProto:
    return helper.make_node(op, ins, outs, name=name or outs[0] + "_node", **attrs)


def execute_expecting_warnings(op, opset, inputs, attrs):
    """``execute``, asserting it warns (W1: duplicate targets) exactly when the solver reports a warning."""
    expected = [w.constraint for w in shapecheck.infer(op, opset, inputs, attrs).warnings]
    if not expected:
        return shapecheck.execute(op, opset, inputs, attrs)   # pytest turns any ShapeCheckWarning into an error
    with pytest.warns(shapecheck.ShapeCheckWarning, match=" W1 "):
        return shapecheck.execute(op, opset, inputs, attrs)


def registry_without(*ops: str):
    """The shipped specs but those of ``ops`` (every version): a registry in which these ops have no
    spec, for the paths a node without one takes (onnx's per-node inference), now that every
    operator of onnx's registry has a spec."""
    from shapecheck.registry import LazyRegistry, load_domains, load_specs, spec_files, specs_dir
    files = [p for p in spec_files(specs_dir()) if p.stem.rsplit("-", 1)[0] not in ops]
    reg = LazyRegistry(files, load_specs)
    reg.domains = load_domains(specs_dir())
    return reg
