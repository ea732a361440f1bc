"""ONNX's own backend node tests for Attention (23, 24) and RotaryEmbedding (23), through shapecheck.

Every one-node case whose tensors have element types shapecheck models runs through ``execute``
with the node's outputs, which must reproduce the expected outputs within a float tolerance (the
kernels compute in float64; a masked score is -inf in both), and through the solver given the inputs'
types, which must give the expected output types.
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

OPS = ("Attention", "RotaryEmbedding")
REG = default_registry()
# Attention-25 (left_window_size, right_window_size) is beyond opset 24 and has no spec
CASES = [c for c in single_op_cases(OPS) if c.model.graph.node[0].domain in ("", "ai.onnx") and opset_of(c.model) <= 24]


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 60


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
        given = [k for k, n in enumerate(node.input) if n]      # the data holds the given inputs only, in order
        feeds = {names[k]: a for k, a in zip(given, inputs)}
        got = shapecheck.execute(node.op_type, opset, feeds, attrs, output_count=n_out)
        wanted = [o for o, name in zip(outputs, [o for o in node.output if o])]
        ours = [a for a, name in zip(got.values(), node.output) if name]
        for mine, expected in zip(ours, wanted):
            assert mine.dtype == expected.dtype and mine.shape == expected.shape, (mine.dtype, mine.shape, expected.dtype, expected.shape)
            tol = 1e-2 if expected.dtype.itemsize <= 2 else 1e-4
            np.testing.assert_allclose(mine.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
        types = {n: type_text(a) for n, a in feeds.items()}
        result = solve(spec, types, attrs, output_count=n_out)
        assert result.status == "valid", result.violations
        inferred = [t for t, name in zip(result.outputs.values(), node.output) if name]
        for t, expected in zip(inferred, wanted):
            check_inferred(t, expected, {}, False)
