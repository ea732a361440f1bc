"""ONNX's own backend node tests for the normalization ops, through shapecheck.

Every one-node case of LayerNormalization, BatchNormalization, InstanceNormalization,
GroupNormalization and RMSNormalization whose tensors have element types shapecheck models runs
through ``execute`` with the node's number of outputs, which must reproduce the expected outputs
within a float tolerance (the kernels compute statistics in float64), and through the solver given
the inputs' types, which must give the expected output types.
"""
from __future__ import annotations


import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.notation.load import default_registry
from tests.node_cases import as_array, opset_of, single_op_cases, type_text
from tests.layout_harness import check_inferred

OPS = ("LayerNormalization", "BatchNormalization", "InstanceNormalization", "GroupNormalization", "RMSNormalization")
REG = default_registry()


CASES = single_op_cases(OPS)


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset, n_out = opset_of(case.model), len(node.output)
    spec = REG.resolve(node.op_type, opset)
    names = [i.name for i in spec.inputs]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        inputs, outputs = [as_array(a) for a in inputs], [as_array(a) for a in outputs]
        feeds = {names[k]: a for k, (n, a) in enumerate(zip(node.input, inputs)) if n}
        got = shapecheck.execute(node.op_type, opset, feeds, attrs, output_count=n_out)
        assert len(got) >= len(outputs)
        for ours, expected in zip(got.values(), outputs):
            assert ours.dtype == expected.dtype and ours.shape == expected.shape, (ours.dtype, ours.shape, expected.dtype, expected.shape)
            tol = 1e-2 if expected.dtype.itemsize <= 2 else 1e-4
            np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
        types = {n: type_text(a) for n, a in feeds.items()}
        result = solve(spec, types, attrs, output_count=n_out)
        assert result.status == "valid", result.violations
        for t, expected in zip(result.outputs.values(), outputs):
            check_inferred(t, expected, {}, False)
