"""The preprocessing ops of ai.onnx.ml (Binarizer, Scaler, Normalizer, Imputer, FeatureVectorizer,
ArrayFeatureExtractor): seeded random cases against onnxruntime and onnx.reference (where they run the
op and agree: runtime-findings ML), and ONNX's own node tests (``tests/harness/node_cases.py``)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_containers, rng_for

ML = "ai.onnx.ml"
F = np.float32


def _x(rng, rank: int = 2, dt=F):
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 5)))[2 - rank:]
    return (rng.standard_normal(shape) * 3).astype(dt)


@pytest.mark.parametrize("seed", range(4))
def test_preprocessing_ops_match_the_runtimes(seed):
    rng = rng_for("preprocessing", seed)
    rank = 1 if seed == 3 else 2
    x = _x(rng, rank)
    f = x.shape[-1]
    check_containers("Binarizer", 18, [("X", x)], {"threshold": float(rng.standard_normal())}, domain=ML)
    per = [float(v) for v in rng.standard_normal(f if seed % 2 else 1)]
    check_containers("Scaler", 18, [("X", x)], {"scale": per, "offset": per}, domain=ML, tol=1e-6)
    # onnx.reference fails on a 1-D X (ML3)
    check_containers("Normalizer", 18, [("X", x)], {"norm": ["MAX", "L1", "L2", "L2"][seed]}, domain=ML,
                     reference=rank == 2, tol=1e-6)
    holes = x.copy()
    holes[..., 0] = 0.0
    # onnx.reference's Imputer fails on a 1-D X (ML4)
    check_containers("Imputer", 18, [("X", holes)], {"imputed_value_floats": per, "replaced_value_float": 0.0},
                     domain=ML, reference=rank == 2)
    idx = rng.integers(0, f, size=int(rng.integers(1, 3))).astype(np.int64)
    check_containers("ArrayFeatureExtractor", 18, [("X", x), ("Y", idx)], {}, domain=ML)
    dims = [f, int(rng.integers(1, 4))]
    other = rng.standard_normal((x.shape[0], 2) if rank == 2 else (2,)).astype(F)
    # onnx.reference reads a 1-D input as one row per element (ML5)
    check_containers("FeatureVectorizer", 18, [("x0", x), ("x1", other)], {"inputdimensions": dims}, domain=ML,
                     reference=rank == 2)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("preprocessing")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 2


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "preprocessing")
