"""ONNX's own backend node tests for the convolution and pooling ops, through shapecheck.

Every one-node case of Conv, ConvTranspose, MaxPool, AveragePool, LpPool, GlobalAveragePool,
GlobalMaxPool, GlobalLpPool and MaxUnpool whose tensors have element types shapecheck models runs
through ``execute`` with the node's number of outputs, which must reproduce the expected outputs
(within a float tolerance: the kernels sum in float64), and through the solver given the inputs'
types, which must give the expected output types.  The cases where ONNX's expected output is not
what onnxruntime computes are listed in ``DISAGREE`` with the reason: their values are compared with
onnxruntime's run of the same model instead (and must differ from ONNX's expected values).
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.spec.load import default_registry
from tests.layout_harness import check_inferred
from tests.node_cases import as_array, opset_of, single_op_cases, type_text
from tests.ort_kit import run_ort

OPS = ("Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
       "GlobalLpPool", "MaxUnpool")
REG = default_registry()

CASES = single_op_cases(OPS)
# ONNX's expected values that onnxruntime (and so shapecheck's kernel) does not give
DISAGREE = {
    "test_maxunpool_export_with_output_shape": "onnxruntime indexes the output_shape tensor; the test "
                                               "indexes the default output and copies it (spec note, CP8)",
}


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS) - {"GlobalLpPool"}   # ONNX has none
    assert len(CASES) >= 70


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
        if case.name in DISAGREE:
            ort = run_ort(node.op_type, opset, list(feeds.items()), attrs, [o.type.tensor_type.elem_type
                                                                           for o in case.model.graph.output])
            assert any(not np.array_equal(a, b) for a, b in zip(ort, outputs)), "ONNX's values now agree"
            outputs = ort
        for ours, expected in zip(got.values(), outputs):
            assert ours.dtype == expected.dtype and ours.shape == expected.shape, \
                (ours.dtype, ours.shape, expected.dtype, expected.shape)
            tol = 1e-2 if expected.dtype.itemsize <= 2 else 1e-4
            np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
        types = {n: type_text(a) for n, a in feeds.items()}
        result = solve(spec, types, attrs, output_count=n_out)
        assert result.status in ("valid",), result.violations
        for t, expected in zip(result.outputs.values(), outputs):
            check_inferred(t, expected, {}, False)
