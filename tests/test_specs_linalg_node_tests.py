"""ONNX's own backend node tests for MatMul, Gemm, Softmax, LogSoftmax and Dropout, through shapecheck.

Every one-node case runs through ``execute``, which must reproduce the expected outputs (floats to
a tight tolerance; Dropout in training mode, whose values are random, in dtype and shape only), and
through ``infer`` given the inputs' types, which must give the expected output types.  Inputs are
matched to the spec's by position (the cases name them a, b, c; the page A, B, C).
"""
from __future__ import annotations


import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.registry import default_registry
from tests.node_cases import as_array, opset_of, single_op_cases, type_text

OPS = ("MatMul", "Gemm", "Softmax", "LogSoftmax", "Dropout")
REG = default_registry()


CASES = single_op_cases(OPS)


def test_every_op_has_cases():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS) and len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset = opset_of(case.model)
    spec = REG.resolve(node.op_type, opset)
    names = [d.name for d in spec.inputs]
    given = [i for i, n in enumerate(node.input) if n]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        feeds = {names[i]: as_array(a) for i, a in zip(given, inputs)}
        random = node.op_type == "Dropout" and "training_mode" in feeds and bool(feeds["training_mode"]) \
            and float(feeds.get("ratio", 0.5)) > 0
        got = list(shapecheck.execute(node.op_type, opset, feeds, attrs).values())
        result = shapecheck.infer(node.op_type, opset, {n: type_text(a) for n, a in feeds.items()}, attrs)
        assert result.status == "valid", result.violations
        inferred = [str(t) for t in result.outputs.values()]
        for g, t, want in zip(got, inferred, map(as_array, outputs)):
            assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, g.shape, want.dtype, want.shape)
            assert t == type_text(want)
            if random:
                continue
            if g.dtype.kind == "f":
                np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
            else:
                np.testing.assert_array_equal(g, want)
