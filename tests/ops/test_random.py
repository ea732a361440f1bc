"""The random ops (Bernoulli, RandomNormalLike, RandomUniformLike): only shapes, types and ranges are
compared: seeded random cases against the runtimes (values, dtypes and shapes from
``shapecheck.execute``, the solver's types on concrete and on symbolic dims) and the rules' edges,
and ONNX's own node tests (``tests/harness/node_cases.py``; the per-op quirks are
``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

import shapecheck

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import code, one_node, rng_for, run_ort, type_of


RANDOM_CASES = [(op, v, s) for op, versions in (("RandomNormalLike", (1, 22)), ("RandomUniformLike", (1, 22)),
                                                 ("Bernoulli", (15, 22))) for v in versions for s in range(3)]


@pytest.mark.parametrize("op,version,seed", RANDOM_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in RANDOM_CASES])
def test_random_ops_shapes_and_types(op, version, seed):
    """Random values: only shapes and element types are compared, with onnxruntime at the version it
    implements (run at opset 21) and with onnx.reference at version 22, which onnxruntime lacks."""
    rng = rng_for(op, version, seed)
    # onnx.reference's RandomNormalLike fails on a scalar input (randn() returns a float, MO12)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0 if version < 22 else 1, 4))))
    x = rng.uniform(0, 1, shape).astype([np.float32, np.float64][seed % 2])
    attrs: dict = {"seed": 2.0}
    out = x.dtype
    if seed == 2:
        out = np.dtype(np.int64 if op == "Bernoulli" else np.float64)
        attrs["dtype"] = code(out)
    opset = 21 if version < 22 else 22
    inputs = [("input", x)]
    if version < 22:
        want = run_ort(op, opset, inputs, attrs, [code(out)])
    else:
        want = ReferenceEvaluator(one_node(op, opset, inputs, attrs, [code(out)])).run(None, {"input": x})
    got = shapecheck.execute(op, opset, {"input": x}, attrs)["output"]
    assert got.dtype == want[0].dtype and got.shape == want[0].shape
    r = shapecheck.infer(op, opset, {"input": type_of(x)}, attrs)
    assert r.status == "valid" and r.outputs["output"].shape == want[0].shape
    if op == "Bernoulli":
        assert set(np.unique(got).tolist()) <= {0, 1}


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("random")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 3


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "random")
