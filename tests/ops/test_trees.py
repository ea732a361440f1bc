"""The tree ensembles of ai.onnx.ml (TreeEnsembleClassifier, TreeEnsembleRegressor, TreeEnsemble):
seeded random trees against onnxruntime and onnx.reference, and ONNX's own node tests
(``tests/harness/node_cases.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper

import shapecheck
from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_containers, rng_for

ML = "ai.onnx.ml"
F = np.float32


def _tree(rng, f: int) -> dict:
    """One tree of depth 2 (3 branches, 4 leaves), node ids 0..6, as the version 1/3 attributes."""
    feats = [int(v) for v in rng.integers(0, f, size=3)] + [0] * 4
    return {"nodes_treeids": [0] * 7, "nodes_nodeids": list(range(7)), "nodes_featureids": feats,
            "nodes_values": [float(v) for v in rng.standard_normal(3)] + [0.0] * 4,
            "nodes_modes": ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GT"] + ["LEAF"] * 4,
            "nodes_truenodeids": [1, 3, 5, 0, 0, 0, 0], "nodes_falsenodeids": [2, 4, 6, 0, 0, 0, 0]}


@pytest.mark.parametrize("version,seed", [(v, s) for v in (1, 3) for s in range(3)])
def test_tree_ensembles_match_the_runtimes(version, seed):
    rng = rng_for("trees", version, seed)
    f = int(rng.integers(1, 4))
    x = rng.standard_normal((int(rng.integers(1, 4)), f)).astype(F)
    tree = _tree(rng, f)
    classes = 2 + seed
    cls = {**tree, "class_treeids": [0] * 4, "class_nodeids": [3, 4, 5, 6],
           "class_ids": [int(v) for v in rng.integers(0, classes, size=4)],
           "class_weights": [float(v) for v in rng.random(4)], "classlabels_int64s": list(range(classes))}
    # two classes: onnxruntime's binary scores are not onnx.reference's (ML15)
    check_containers("TreeEnsembleClassifier", 18, [("X", x)], cls, n_out=2, domain=ML, domain_version=version,
                     tol=1e-5, ort_values=classes > 2)
    targets = 1 + seed % 2
    reg = {**tree, "target_treeids": [0] * 4, "target_nodeids": [3, 4, 5, 6],
           "target_ids": [int(v) for v in rng.integers(0, targets, size=4)],
           "target_weights": [float(v) for v in rng.standard_normal(4)], "n_targets": targets,
           "aggregate_function": ["SUM", "AVERAGE", "MAX"][seed]}
    check_containers("TreeEnsembleRegressor", 18, [("X", x)], reg, domain=ML, domain_version=version, tol=1e-5)


def test_version_5_of_the_old_tree_ensembles_is_deprecated():
    r = shapecheck.infer(f"{ML}:TreeEnsembleRegressor", 5, {"X": "float[N,2]"},
                         {**_tree(np.random.default_rng(0), 2), "n_targets": 1})
    assert r.status == "invalid" and "deprecated" in [v.constraint for v in r.violations]


@pytest.mark.parametrize("seed", range(3))
def test_tree_ensemble_matches_onnxruntime(seed):
    rng = rng_for("TreeEnsemble", seed)
    dt = [np.float32, np.float64, np.float32][seed]
    x = rng.standard_normal((int(rng.integers(1, 4)), 2)).astype(dt)
    attrs = {"aggregate_function": 1, "leaf_targetids": [0, 1, 0, 1], "n_targets": 2, "post_transform": 0,
             "leaf_weights": numpy_helper.from_array(rng.standard_normal(4).astype(dt)),
             "nodes_falseleafs": [0, 1, 1], "nodes_falsenodeids": [2, 2, 3], "nodes_featureids": [0, 1, 0],
             "nodes_modes": numpy_helper.from_array(np.array([0, 1, 3], np.uint8)),
             "nodes_splits": numpy_helper.from_array(rng.standard_normal(3).astype(dt)),
             "nodes_trueleafs": [0, 1, 1], "nodes_truenodeids": [1, 0, 1], "tree_roots": [0]}
    check_containers("TreeEnsemble", 18, [("X", x)], attrs, domain=ML, domain_version=5, tol=1e-5)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("trees")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 2


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "trees")
