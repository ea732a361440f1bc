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


# ---------------------------------------------------------------- base_values counts (runtime-findings ML18)

def _ort_runs(model, feeds) -> bool:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]).run(None, feeds)
        return True
    except Exception:  # noqa: BLE001 -- onnxruntime's refusal, at load or at run
        return False


def _base_values_model(op: str, n: int, n_base: int, ml: int, as_tensor: bool):
    """A one-tree TreeEnsembleClassifier of ``n`` labels (or TreeEnsembleRegressor of ``n`` targets) with
    ``n_base`` base values, as base_values or (ml opset 3) base_values_as_tensor over a double X."""
    from onnx import TensorProto, helper
    attrs = dict(_tree(np.random.default_rng(0), 2))
    vals = [0.1 * (i + 1) for i in range(n_base)]
    if as_tensor:
        attrs["base_values_as_tensor"] = helper.make_tensor("b", TensorProto.DOUBLE, [n_base], vals)
    elif n_base:
        attrs["base_values"] = vals
    leaves = {"treeids": [0] * 4, "nodeids": [3, 4, 5, 6], "weights": [1.0, 0.5, 0.25, 2.0]}
    if op == "TreeEnsembleClassifier":
        attrs.update(class_treeids=leaves["treeids"], class_nodeids=leaves["nodeids"],
                     class_ids=[i % n for i in range(4)], class_weights=leaves["weights"],
                     classlabels_int64s=list(range(n)))
        outs = [helper.make_tensor_value_info("Y", TensorProto.INT64, [2]),
                helper.make_tensor_value_info("Z", TensorProto.FLOAT, [2, n])]
    else:
        attrs.update(target_treeids=leaves["treeids"], target_nodeids=leaves["nodeids"],
                     target_ids=[i % n for i in range(4)], target_weights=leaves["weights"], n_targets=n)
        outs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, n])]
    elem = TensorProto.DOUBLE if as_tensor else TensorProto.FLOAT
    node = helper.make_node(op, ["X"], [o.name for o in outs], domain=ML, **attrs)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", elem, [2, 2])], outs)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, ml)],
                              ir_version=8)
    return model, {"X": np.array([[0.5, -1.0], [-0.3, 2.0]], np.float64 if as_tensor else np.float32)}


BASE_VALUE_CASES = [(op, n, b, ml, t) for op, ns in (("TreeEnsembleClassifier", (1, 2, 3, 4)), ("TreeEnsembleRegressor", (1, 2, 3)))
                    for n in ns for b in range(5) for ml, t in ((1, False), (3, False), (3, True))
                    if not (t and b == 0)]


@pytest.mark.parametrize("op,n,n_base,ml,as_tensor", BASE_VALUE_CASES)
def test_base_values_count_is_refused_where_onnxruntime_refuses_it(op, n, n_base, ml, as_tensor):
    """onnxruntime takes 0, 1 or 2 base values for a classifier of 1 or 2 labels (skl2onnx's binary
    GradientBoostingClassifier writes 1; the page wants one per class), 0 or E for E >= 3 labels, and 0 or
    n_targets for a regressor; base_values_as_tensor alike. The classifier case (2 labels, 1 value) was refuted
    by C6 before."""
    model, feeds = _base_values_model(op, n, n_base, ml, as_tensor)
    (node,) = shapecheck.check_model(model).nodes
    ran = _ort_runs(model, feeds)
    assert (node.status == "valid") is ran, (node.status, [v.constraint for v in node.violations], ran)
    if not ran:
        assert [v.constraint for v in node.violations] == ["C6"]


def test_the_binary_classifier_with_one_base_value_runs():
    """The skl2onnx export that the old C6 refused: 2 labels, 1 base value."""
    model, feeds = _base_values_model("TreeEnsembleClassifier", 2, 1, 1, False)
    assert _ort_runs(model, feeds)
    assert shapecheck.check_model(model).nodes[0].status == "valid"
