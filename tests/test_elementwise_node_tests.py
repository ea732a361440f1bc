"""ONNX's own backend node tests for the elementwise ops, through shapecheck.

Each official case is a one-node model with input and output arrays: ``execute`` must give
the expected output (floats to a tolerance) and ``infer``, from the arrays' types only, the
expected output type.  Cases whose element type numpy cannot hold (bfloat16, float8, int4)
and cases of versions past opset 24 are left out.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import warnings

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.registry import default_registry
from shapecheck.types import dtype_of_array

REG = default_registry()
ELEMENTWISE_KINDS = {"binary", "variadic", "unary", "where"}
OPS = sorted({s.op for s in REG if s.semantics.get("kind") in ELEMENTWISE_KINDS})


def _opset(model) -> int:
    return min(next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), LAST_OPSET)


LAST_OPSET = 24   # the specs cover opsets up to 24; a case made at a later opset runs at 24
# what versions past 24 add, which the cases of those versions use: Mod-28 allows fmod = 0 on floats,
# Celu-28 adds float16 and double, BitShift-28 the signed types
PAST_24 = ("mod_float_edge_cases_fmod_0", "fmod_0_float", "float64_mixed_sign_fmod_0", "float32_mixed_sign_fmod_0",
           "float16_mixed_sign_fmod_0", "celu_float16", "celu_double", "bitshift_right_int", "bitshift_left_int")


def _node_modules() -> list[str]:
    """The modules of onnx's node test cases for OPS (add, less_or_equal, and_, leakyrelu...)."""
    import onnx.backend.test.case.node as pkg
    have = {m.name for m in pkgutil.iter_modules(pkg.__path__)}
    out = []
    for op in OPS:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()
        out += [f"{pkg.__name__}.{m}" for m in (op.lower(), op.lower() + "_", snake) if m in have][:1]
    return out


def _cases():
    """Only the modules of these ops are imported: collecting every node case takes tens of seconds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import onnx.backend.test.case.node as pkg
        for name in _node_modules():
            importlib.import_module(name)
        cases = list(pkg._NodeTestCases)
    out = []
    for c in cases:
        if len(c.model.graph.node) != 1 or c.model.graph.node[0].op_type not in OPS:
            continue
        arrays = [a for inputs, outputs in c.data_sets for a in list(inputs) + list(outputs)]
        if any(name in c.name for name in PAST_24):
            continue
        if any(not isinstance(a, np.ndarray) or a.dtype.kind == "V" or "bfloat16" in c.name or "float8" in c.name
               or "int4" in c.name or "float4" in c.name for a in arrays):
            continue    # element types numpy does not hold
        out.append(c)
    return out


CASES = _cases()


def test_cases_cover_the_families():
    ops = {c.model.graph.node[0].op_type for c in CASES}
    assert {"Add", "Sub", "Mul", "Div", "Mod", "Pow", "Max", "Min", "Sum", "Mean", "Equal", "Less", "Greater",
            "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not", "Where", "Neg", "Abs", "Relu", "Sqrt",
            "Gelu", "LeakyRelu", "Erf"} <= ops
    assert len(CASES) >= 150


def _type(a: np.ndarray) -> str:
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def _attrs(node) -> dict:
    values = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    return {k: v.decode() if isinstance(v, bytes) else v for k, v in values.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node, opset = case.model.graph.node[0], _opset(case.model)
    attrs, spec = _attrs(node), REG.resolve(node.op_type, opset)
    names = [i.name for i in spec.inputs]
    for inputs, outputs in case.data_sets:
        (expected,) = outputs
        feeds = {names[0]: list(inputs)} if spec.inputs[0].variadic else dict(zip(names, inputs))
        (got,) = shapecheck.execute(node.op_type, opset, feeds, attrs).values()
        assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape)
        if got.dtype.kind == "f":
            tol = 1e-3 if got.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, expected)
        types = {k: [_type(a) for a in v] if isinstance(v, list) else _type(v) for k, v in feeds.items()}
        result = shapecheck.infer(node.op_type, opset, types, attrs)
        assert result.status == "valid", [str(v) for v in result.violations]
        assert [str(t) for t in result.outputs.values()] == [_type(expected)]
