"""ONNX's own backend node tests for the normalization ops, through shapecheck.

Every one-node case of LayerNormalization, BatchNormalization, InstanceNormalization,
GroupNormalization and RMSNormalization whose tensors have element types shapecheck models runs
through ``execute`` with the node's number of outputs, which must reproduce the expected outputs
within a float tolerance (the kernels compute statistics in float64), and through the solver given
the inputs' types, which must give the expected output types.
"""
from __future__ import annotations


import pytest

from shapecheck.registry import default_registry
from tests.node_cases import check_case, single_op_cases

OPS = ("LayerNormalization", "BatchNormalization", "InstanceNormalization", "GroupNormalization", "RMSNormalization")
REG = default_registry()


CASES = single_op_cases(OPS)


def test_node_cases_are_collected():
    assert {c.model.graph.node[0].op_type for c in CASES} == set(OPS)
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_official_node_case(case):
    check_case(case, REG)
