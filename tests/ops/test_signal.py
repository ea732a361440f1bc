"""The signal ops (DFT, STFT, the windows, MelWeightMatrix, ImageDecoder): seeded random cases against
the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on concrete and on
symbolic dims) and ONNX's own node tests (``tests/harness/node_cases.py``; the per-op quirks are
``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import pytest

from tests.harness.node_cases import check_node_case, family_cases


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("signal")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 10


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "signal")
