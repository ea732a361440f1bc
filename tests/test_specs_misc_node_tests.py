"""ONNX's own backend node tests for the spec'd ops no other node-test file takes: Concat, Expand,
Gather, GatherElements, GatherND, Range, Reshape, Shape, Size, TensorScatter and Bernoulli.

Every one-node case whose tensors have element types shapecheck models runs through ``execute``
with the node's outputs, which must reproduce the expected outputs, and through the solver given
the inputs' types, which must give the expected output types (tests/node_cases.py: check_case).
The inputs that say sizes (a target shape, a range's bounds, the write positions) are given to the
solver with their values, and the inferred shapes must then be concrete (but a float Range's
length: the spec does not track float values).  Bernoulli's values are
random: its cases are checked in element type and shape (from ``execute`` and the solver) and in
values (each 0 or 1).  The cases of what versions past 24 add (Range-27's float16 and bfloat16)
are in the allow-list of tests/test_node_test_coverage.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import shapecheck
from shapecheck.registry import default_registry
from tests.node_cases import as_array, check_case, opset_of, single_op_cases, type_text

OPS = ("Concat", "Expand", "Gather", "GatherElements", "GatherND", "Range", "Reshape", "Shape", "Size",
       "TensorScatter", "Bernoulli")
REG = default_registry()
VALUED = {"Expand": ("shape",), "Reshape": ("shape",), "Range": ("start", "limit", "delta"),
          "TensorScatter": ("write_indices",)}
RANDOM = {"Bernoulli"}   # values drawn at random: dtype, shape and the values' range are compared
# Range-27 adds float16 and bfloat16; the specs stop at 24, where Range-11 does not take them
LATER = {"test_range_float16_type_positive_delta", "test_range_bfloat16_type_positive_delta"}
CASES = [c for c in single_op_cases(OPS) if c.name not in LATER]


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 50


def _check_random(case) -> None:
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset = opset_of(case.model)
    (name,) = [i.name for i in REG.resolve(node.op_type, opset).inputs]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        (x,), (want,) = [as_array(a) for a in inputs], [as_array(a) for a in outputs]
        (got,) = shapecheck.execute(node.op_type, opset, {name: x}, attrs).values()
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
        assert set(np.unique(got.astype(np.float64)).tolist()) <= {0.0, 1.0}
        result = shapecheck.infer(node.op_type, opset, {name: type_text(x)}, attrs)
        assert result.status == "valid", result.violations
        assert [str(t) for t in result.outputs.values()] == [type_text(want)]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    op = case.model.graph.node[0].op_type
    if op in RANDOM:
        _check_random(case)
    else:
        floats = case.model.graph.input[0].type.tensor_type.elem_type in (TensorProto.FLOAT, TensorProto.DOUBLE)
        check_case(case, REG, valued=VALUED.get(op, ()), concrete=not (op == "Range" and floats))
