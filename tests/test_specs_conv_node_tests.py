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

from shapecheck.registry import default_registry
from tests.node_cases import check_case, opset_of, single_op_cases
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


def _onnxruntime_instead(case):
    """For a DISAGREE case: onnxruntime's outputs, which must differ from the case's."""
    node = case.model.graph.node[0]

    def replace(feeds, attrs, outputs):
        ort = run_ort(node.op_type, opset_of(case.model), list(feeds.items()), attrs,
                      [o.type.tensor_type.elem_type for o in case.model.graph.output])
        assert any(not np.array_equal(a, b) for a, b in zip(ort, outputs)), "ONNX's values now agree"
        return ort
    return replace


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    check_case(case, REG, _onnxruntime_instead(case) if case.name in DISAGREE else None)
