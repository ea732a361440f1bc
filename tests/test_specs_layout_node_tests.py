"""ONNX's own backend node tests for the layout and conversion ops, through shapecheck.

Every one-node case of these ops whose tensors have element types shapecheck models (the
float8, int4, int2 and float4 casts are left out: shapecheck has no numpy type for them)
runs through ``execute``, which must reproduce the expected outputs exactly, and through
``infer`` given the inputs' types (and the values of small integer inputs: axes, repeats, a
target shape), which must give the expected output types.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import shapecheck
from shapecheck.registry import default_registry
from shapecheck.types import ONNX_CODES, dtype_of_array
from tests.layout_harness import assert_same, check_inferred
from tests.node_cases import node_testcases

OPS = ("Unsqueeze", "Squeeze", "Identity", "Flatten", "Transpose", "Cast", "CastLike", "ConstantOfShape", "Constant", "Tile")


def _modelled(case) -> bool:
    g = case.model.graph
    return all(v.type.HasField("tensor_type") and v.type.tensor_type.elem_type in ONNX_CODES
               for v in list(g.input) + list(g.output)) and \
        all(a.name != "to" or a.i in ONNX_CODES for a in g.node[0].attribute)


def _cases():
    mine = [c for c in node_testcases() if len(c.model.graph.node) == 1 and c.model.graph.node[0].op_type in OPS]
    return [c for c in mine if _modelled(c)], len(mine)


CASES, ALL_MINE = _cases()


def _opset(model) -> int:
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 20


def _array(a) -> np.ndarray:
    """A data set's tensor as an array (bfloat16 cases carry TensorProtos)."""
    return numpy_helper.to_array(a) if isinstance(a, TensorProto) else np.asarray(a)


def _attrs(node) -> dict:
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    return {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs, opset = _attrs(node), _opset(case.model)
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        inputs, outputs = [_array(a) for a in inputs], [_array(a) for a in outputs]
        names = [i.name for i in default_registry().resolve(node.op_type, opset).inputs]
        feeds = {names[k]: a for k, (n, a) in enumerate(zip(node.input, inputs)) if n}
        got = shapecheck.execute(node.op_type, opset, feeds, attrs)
        for (name, ours), expected in zip(got.items(), outputs):
            expected = np.asarray(expected)
            if expected.dtype.kind in "US":
                expected = expected.astype(object)
            assert_same(ours, expected)
        types = {n: (f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"
                     + (f" = {a.tolist()}" if a.dtype.kind == "i" and a.ndim <= 1 else "")) for n, a in feeds.items()}
        result = shapecheck.infer(node.op_type, opset, types, attrs)
        assert result.status == "valid", result.violations
        for t, expected in zip(result.outputs.values(), outputs):
            check_inferred(t, np.asarray(expected), {}, False)
