"""ONNX's own backend node tests for the tensor ops, through shapecheck.

Every one-node case of Pad, Resize, Upsample, DepthToSpace, SpaceToDepth, Einsum, OneHot and Clip
whose tensors have element types shapecheck models runs through the solver given the inputs'
types (and the values of the inputs that say sizes: pads, scales, sizes, depth, axes), which must
give the expected output types and shapes, and through ``execute``, which must reproduce the
expected outputs (within a float tolerance for interpolation and sums), Resize's four antialias
cases too (a test keeps them among the cases run).  A case stamped with an opset past 24 (this
project's range) runs at 24, except the cases of what later versions add.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.solver import solve
from shapecheck.registry import default_registry
from tests.layout_harness import check_inferred
from tests.node_cases import as_array, opset_of, single_op_cases, type_text

OPS = ("Pad", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Einsum", "OneHot", "Clip")
REG = default_registry()
LAST = 24   # this project's range: a case stamped with a later opset runs at 24 ...
# ... except the cases of what later versions add: bfloat16 Einsum and OneHot, SpaceToDepth's mode (28)
LATER = {"test_einsum_batch_matmul_bfloat16", "test_einsum_sum_bfloat16", "test_einsum_transpose_bfloat16",
         "test_onehot_with_bfloat16_values", "test_spacetodepth_dcr_mode_example", "test_spacetodepth_crd_mode_example"}
ALL = single_op_cases(OPS)
CASES = [c for c in ALL if c.name not in LATER]
VALUED = {"pads", "scales", "sizes", "depth", "axes", "roi", "constant_value", "min", "max"}


def _attrs(node) -> dict:
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


# Resize's antialias cases (once checked by the solver alone; now run like the others)
ANTIALIAS = {c.name for c in CASES
             if c.model.graph.node[0].op_type == "Resize" and _attrs(c.model.graph.node[0]).get("antialias", 0)}


def test_node_cases_are_collected():
    assert LATER <= {c.name for c in ALL} and all(opset_of(c.model) > LAST for c in ALL if c.name in LATER)
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 70
    assert ANTIALIAS == {f"test_resize_downsample_{g}_{m}_antialias" for g in ("scales", "sizes") for m in ("linear", "cubic")}


def _feeds(spec, node, inputs):
    names = [i.name for i in spec.inputs]
    if spec.inputs and spec.inputs[0].variadic:
        return {names[0]: list(inputs)}
    arrays = iter(inputs)   # a case's data holds the given inputs only: an empty name takes none
    return {names[k]: next(arrays) for k, n in enumerate(node.input) if n}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    node = case.model.graph.node[0]
    attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in _attrs(node).items()}
    opset = min(opset_of(case.model), LAST)
    spec = REG.resolve(node.op_type, opset)
    assert case.data_sets, "the case has no data"
    for inputs, outputs in case.data_sets:
        inputs, outputs = [as_array(a) for a in inputs], [as_array(a) for a in outputs]
        feeds = _feeds(spec, node, inputs)
        types = {n: ([type_text(x) for x in a] if isinstance(a, list) else a if n in VALUED else type_text(a))
                 for n, a in feeds.items()}
        result = solve(spec, types, attrs)
        assert result.status == "valid", (result.violations, result.conditions)
        for t, expected in zip(result.outputs.values(), outputs):
            check_inferred(t, expected, {}, False)
            assert t.shape == expected.shape, (str(t), expected.shape)
        got = list(shapecheck.execute(node.op_type, opset, feeds, attrs).values())
        for ours, expected in zip(got, outputs):
            assert ours.dtype == expected.dtype and ours.shape == expected.shape, (ours.dtype, ours.shape, expected.dtype, expected.shape)
            if expected.dtype.kind == "f":
                np.testing.assert_allclose(ours.astype(np.float64), expected.astype(np.float64), rtol=1e-4, atol=1e-4)
            else:
                np.testing.assert_array_equal(ours, expected)
