"""ONNX's own backend node tests for the issue-16 "more ops" specs, through shapecheck.

Every one-node case of RNN, GRU, LSTM, the ReduceL1 family and Hardmax whose tensors have element
types shapecheck models runs through ``execute`` with the node's outputs, which must reproduce the
expected outputs (within a float tolerance: the kernels compute in float64), and through the solver
given the inputs' types (constant axes inputs with their values), which must give the expected
output types.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from tests.layout_harness import check_inferred
from tests.node_cases import as_array, opset_of, single_op_cases, type_text

OPS = ("RNN", "GRU", "LSTM", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "Hardmax",
       "Unique", "Compress", "EyeLike", "ReverseSequence", "MeanVarianceNormalization", "LRN", "Det",
       "MatMulInteger", "DynamicQuantizeLinear", "QuantizeLinear", "DequantizeLinear",
       "NonMaxSuppression", "GridSample", "RoiAlign")
REG = default_registry()
VALUED = {"axes", "condition"}   # inputs the solver sees with their values (a node test's constant axes)

# Unique-28, Compress-28 and ReverseSequence-28 add bfloat16; the specs stop at opset 24 (their newest version
# below it serves opset 28), so these cases are refused by C1 (test_bfloat16_of_version_28_is_refused).
BF16_AT_28 = {"test_compress_bfloat16", "test_unique_bfloat16_sorted_without_axis", "test_reversesequence_bfloat16"}
ALL_CASES = single_op_cases(OPS)
CASES = [c for c in ALL_CASES if c.name not in BF16_AT_28]


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 70


def test_bfloat16_of_version_28_is_refused():
    cases = [c for c in ALL_CASES if c.name in BF16_AT_28]
    assert len(cases) == 3
    for case in cases:
        node = case.model.graph.node[0]
        spec = REG.resolve(node.op_type, opset_of(case.model))
        inputs = [as_array(a) for a in case.data_sets[0][0]]
        types = {i.name: type_text(a) for i, a in zip(spec.inputs, inputs)}
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        result = solve(spec, types, attrs)
        assert result.status == "invalid" and [v.constraint for v in result.violations] == ["C1"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    attrs = {k: [x.decode() for x in v] if isinstance(v, list) and v and isinstance(v[0], bytes)
             else v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
    opset = opset_of(case.model)
    spec = REG.resolve(node.op_type, opset)
    names = [i.name for i in spec.inputs]
    out_names = [o.name for o in spec.outputs]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        inputs, outputs = [as_array(a) for a in inputs], [as_array(a) for a in outputs]
        feeds = {names[k]: a for k, (n, a) in enumerate(zip(node.input, inputs)) if n}
        got = shapecheck.execute(node.op_type, opset, feeds, attrs)
        # the expected outputs are the node's given outputs, in order (an omitted Y is "")
        expected = dict(zip([out_names[k] for k, n in enumerate(node.output) if n], outputs))
        for name, want in expected.items():
            ours = got[name]
            assert ours.dtype == want.dtype and ours.shape == want.shape, (name, ours.dtype, ours.shape, want.dtype, want.shape)
            tol = 1e-2 if want.dtype.itemsize <= 2 else 1e-4
            np.testing.assert_allclose(ours.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
        types = {n: type_text(a) + (f" = {json.dumps(a.tolist())}" if n in VALUED else "") for n, a in feeds.items()}
        result = solve(spec, types, attrs)
        assert result.status == "valid", result.violations
        for name, want in expected.items():
            check_inferred(result.outputs[name], want, {}, False)
