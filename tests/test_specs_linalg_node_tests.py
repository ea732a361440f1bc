"""ONNX's own backend node tests for MatMul, Gemm, Softmax, LogSoftmax and Dropout, through shapecheck.

Every one-node case runs through ``execute``, which must reproduce the expected outputs (floats to
a tight tolerance; Dropout in training mode, whose values are random, in dtype and shape only), and
through ``infer`` given the inputs' types, which must give the expected output types.  Inputs are
matched to the spec's by position (the cases name them a, b, c; the page A, B, C).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import shapecheck
from shapecheck.spec.load import default_registry
from shapecheck.types import ONNX_CODES, dtype_of_array

OPS = ("MatMul", "Gemm", "Softmax", "LogSoftmax", "Dropout")
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


def _type(a: np.ndarray) -> str:
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def test_every_op_has_cases():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS) and len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    opset = _opset(case.model)
    spec = REG.resolve(node.op_type, opset)
    names = [d.name for d in spec.inputs]
    given = [i for i, n in enumerate(node.input) if n]
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        feeds = {names[i]: _array(a) for i, a in zip(given, inputs)}
        random = node.op_type == "Dropout" and "training_mode" in feeds and bool(feeds["training_mode"]) \
            and float(feeds.get("ratio", 0.5)) > 0
        got = list(shapecheck.execute(node.op_type, opset, feeds, attrs).values())
        result = shapecheck.infer(node.op_type, opset, {n: _type(a) for n, a in feeds.items()}, attrs)
        assert result.status == "valid", result.violations
        inferred = [str(t) for t in result.outputs.values()]
        for g, t, want in zip(got, inferred, map(_array, outputs)):
            assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, g.shape, want.dtype, want.shape)
            assert t == _type(want)
            if random:
                continue
            if g.dtype.kind == "f":
                np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
            else:
                np.testing.assert_array_equal(g, want)
