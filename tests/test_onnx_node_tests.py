"""ONNX's own backend node tests for Scatter, ScatterElements and ScatterND, through shapecheck.

Each official case carries a one-node model (its opset and attributes) and input/output arrays.
``execute`` must reproduce the expected output exactly (floats to a tight tolerance) and
``infer``, given only the arrays' types, must infer the expected output type.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.types import dtype_of_array
from tests.node_cases import node_testcases

OPS = ("Scatter", "ScatterElements", "ScatterND")


CASES = [c for c in node_testcases() if c.model.graph.node[0].op_type in OPS]


def _opset(model) -> int:
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def test_every_scatter_family_case_is_collected():
    ops = {c.model.graph.node[0].op_type for c in CASES}
    assert ops == set(OPS) and len(CASES) >= 15


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
    opset = _opset(case.model)
    names = [i.name for i in case.model.graph.input]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        feeds = dict(zip(node.input, inputs))
        (expected,) = outputs
        got = shapecheck.execute(node.op_type, opset, feeds, attrs)["output"]
        assert got.dtype == expected.dtype and got.shape == expected.shape
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(got, expected)
        # the same query with types only: the inferred output type is the expected array's type
        types = {n: f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]" for n, a in feeds.items()}
        result = shapecheck.infer(node.op_type, opset, types, attrs)
        assert result.status == "valid", result.violations
        assert str(result.outputs["output"]) == f"{dtype_of_array(expected)}[{','.join(map(str, expected.shape))}]"
        assert names == list(node.input)


def test_scatter_at_opset_10_resolves_to_scatter_9():
    scatter = [c for c in CASES if c.model.graph.node[0].op_type == "Scatter"]
    assert scatter and all(_opset(c.model) == 10 for c in scatter)
    result = shapecheck.infer("Scatter", 10, {"data": "float[3,3]", "indices": "int64[2,3]", "updates": "float[2,3]"})
    assert result.spec == "Scatter-9" and result.status == "valid"
