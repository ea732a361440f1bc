"""The shape ops (Shape, Size, Reshape, Expand, Concat, Range): ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import pytest

from tests.harness.node_cases import check_node_case, family_cases


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("shape")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 35


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "shape")
