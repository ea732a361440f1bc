"""ONNX's own backend node tests for Slice, Split, TopK, NonZero, ArgMax, ArgMin, CumSum, Trilu
and the reductions through shapecheck: ``execute`` reproduces
every expected output exactly, and ``solve`` on the arrays' types (constant index inputs seen
with their values) infers the expected output types."""
from __future__ import annotations


import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array
from tests.node_cases import opset_of, single_op_cases, type_text

OPS = ("Slice", "Split", "TopK", "NonZero", "ArgMax", "ArgMin", "CumSum", "Trilu",
       "ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean")
VALUED = {"starts", "ends", "axes", "steps", "split", "K", "k", "axis"}
FRESH = {"NonZero"}   # data-dependent output dims: fresh symbols in the solver's types


CASES = single_op_cases(OPS, modelled_types_only=False)


def test_every_case_is_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS) and len(CASES) >= 15


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset = opset_of(case.model)
    spec = default_registry().resolve(node.op_type, opset)
    names = [d.name for d in spec.inputs]
    variadic = spec.outputs[-1].variadic
    for inputs, outputs in case.data_sets:
        feeds = {names[i]: a for i, (t, a) in enumerate(zip(node.input, inputs)) if t}
        got = shapecheck.execute(node.op_type, opset, feeds, attrs, output_count=len(outputs) if variadic else None)
        assert len(got) == len(outputs)
        for g, w in zip(got.values(), outputs):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
        types = {n: a if n in VALUED else type_text(a) for n, a in feeds.items()}
        result = solve(spec, types, attrs, output_count=len(outputs) if variadic else None)
        assert result.status == "valid", result.violations
        for t, w in zip(result.outputs.values(), outputs):
            if node.op_type in FRESH:
                assert t.dtype == dtype_of_array(w) and len(t.shape) == w.ndim
            else:
                assert str(t).split(" =")[0] == type_text(w)
