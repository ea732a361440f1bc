"""ONNX's own backend node tests for Attention (23, 24) and RotaryEmbedding (23), through shapecheck.

Every one-node case whose tensors have element types shapecheck models runs through ``execute``
with the node's outputs, which must reproduce the expected outputs within a float tolerance (the
kernels compute in float64; a masked score is -inf in both), and through the solver given the inputs'
types, which must give the expected output types (tests/node_cases.py: check_case).
"""
from __future__ import annotations

import pytest

from shapecheck.registry import default_registry
from tests.node_cases import opset_of, check_case, single_op_cases

OPS = ("Attention", "RotaryEmbedding")
REG = default_registry()
# Attention-25 (left_window_size, right_window_size) is beyond opset 24 and has no spec
CASES = [c for c in single_op_cases(OPS) if c.model.graph.node[0].domain in ("", "ai.onnx") and opset_of(c.model) <= 24]


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    check_case(case, REG)
