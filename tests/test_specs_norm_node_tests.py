"""ONNX's own backend node tests for the normalization ops, through shapecheck.

Every one-node case of LayerNormalization, BatchNormalization, InstanceNormalization,
GroupNormalization and RMSNormalization whose tensors have element types shapecheck models runs
through ``execute`` with the node's number of outputs, which must reproduce the expected outputs
within a float tolerance (the kernels compute statistics in float64), and through the solver given
the inputs' types, which must give the expected output types.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.spec.load import default_registry
from shapecheck.types import ONNX_CODES, dtype_of_array
from tests.layout_harness import check_inferred

OPS = ("LayerNormalization", "BatchNormalization", "InstanceNormalization", "GroupNormalization", "RMSNormalization")
REG = default_registry()


def _cases():
    with warnings.catch_warnings():  # the generators of unrelated ops warn about float overflow
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.node import collect_testcases
        cases = collect_testcases()
    return [c for c in cases if len(c.model.graph.node) == 1 and c.model.graph.node[0].op_type in OPS
            and all(v.type.tensor_type.elem_type in ONNX_CODES for v in list(c.model.graph.input) + list(c.model.graph.output))]


CASES = _cases()


def _opset(model) -> int:
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def _array(a) -> np.ndarray:
    return numpy_helper.to_array(a) if isinstance(a, TensorProto) else np.asarray(a)


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset, n_out = _opset(case.model), len(node.output)
    spec = REG.resolve(node.op_type, opset)
    names = [i.name for i in spec.inputs]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        inputs, outputs = [_array(a) for a in inputs], [_array(a) for a in outputs]
        feeds = {names[k]: a for k, (n, a) in enumerate(zip(node.input, inputs)) if n}
        got = shapecheck.execute(node.op_type, opset, feeds, attrs, output_count=n_out)
        assert len(got) >= len(outputs)
        for ours, expected in zip(got.values(), outputs):
            assert ours.dtype == expected.dtype and ours.shape == expected.shape, (ours.dtype, ours.shape, expected.dtype, expected.shape)
            tol = 1e-2 if expected.dtype.itemsize <= 2 else 1e-4
            np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
        types = {n: f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]" for n, a in feeds.items()}
        result = solve(spec, types, attrs, output_count=n_out)
        assert result.status == "valid", result.violations
        for t, expected in zip(result.outputs.values(), outputs):
            check_inferred(t, expected, {}, False)
