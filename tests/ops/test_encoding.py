"""The encoding ops of ai.onnx.ml (LabelEncoder, CategoryMapper, OneHotEncoder, DictVectorizer, CastMap,
ZipMap): seeded random cases against onnxruntime (and onnx.reference where it has the op and agrees:
runtime-findings ML), and ONNX's own node tests (``tests/harness/node_cases.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper

import shapecheck
from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_containers, rng_for, run_containers

ML = "ai.onnx.ml"
WORDS = np.array(["a", "b", "c", "zz"], dtype=object)


def _strings(rng, shape):
    return rng.choice(WORDS, size=shape)


@pytest.mark.parametrize("version,seed", [(v, s) for v in (1, 2, 4) for s in range(3)])
def test_label_encoder_matches_onnxruntime(version, seed):
    rng = rng_for("LabelEncoder", version, seed)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    if version == 1:
        x = _strings(rng, shape) if seed % 2 else rng.integers(0, 4, size=shape).astype(np.int64)
        attrs = {"classes_strings": ["a", "b", "c"]}
    elif version == 2 or seed == 0:
        x = _strings(rng, shape)
        attrs = {"keys_strings": ["a", "b", "c"], "values_int64s": [5, 6, 7]}
    else:
        x = rng.integers(0, 4, size=shape).astype(np.int64)
        attrs = {"keys_tensor": numpy_helper.from_array(np.array([1, 2], np.int64)),
                 "values_tensor": numpy_helper.from_array(np.array([0.5, 1.5], np.float64 if seed == 1 else np.float32))}
    # onnx.reference has no LabelEncoder-1 and fails to read the tensor attributes of version 4 (ML6)
    check_containers("LabelEncoder", 18, [("X", x)], attrs, domain=ML, domain_version=version,
                     reference=version == 2 or (version == 4 and seed == 0))


@pytest.mark.parametrize("seed", range(3))
def test_category_mapper_and_one_hot_encoder_match_onnxruntime(seed):
    rng = rng_for("CategoryMapper", seed)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    x = _strings(rng, shape) if seed % 2 else rng.integers(0, 4, size=shape).astype(np.int64)
    cats = {"cats_strings": ["a", "b", "c"], "cats_int64s": [1, 2, 3]}
    check_containers("CategoryMapper", 18, [("X", x)], cats, domain=ML, reference=False)   # ML8
    one = {"cats_strings": ["a", "c"]} if seed % 2 else {"cats_int64s": [0, 1, 3]}
    check_containers("OneHotEncoder", 18, [("X", x)], one, domain=ML, reference=True)


@pytest.mark.parametrize("seed", range(3))
def test_maps_match_onnxruntime(seed):
    rng = rng_for("maps", seed)
    keys = [int(k) for k in rng.choice(6, size=3, replace=False)]
    m = {k: float(v) for k, v in zip(keys, rng.standard_normal(3))}
    form = {"map_form": "SPARSE", "max_map": 6} if seed % 2 else {}
    check_containers("CastMap", 18, [("X", m)], {"cast_to": ["TO_FLOAT", "TO_INT64", "TO_STRING"][seed], **form},
                     domain=ML, reference=False)   # onnx.reference has no CastMap (ML8)
    words = {w: float(v) for w, v in zip(["a", "c"], rng.standard_normal(2))}
    out = check_containers("DictVectorizer", 18, [("X", words)], {"string_vocabulary": ["a", "b", "c"]},
                           domain=ML, reference=False)
    ref = run_containers("DictVectorizer", 18, [("X", words)], {"string_vocabulary": ["a", "b", "c"]}, domain=ML,
                         reference=True)
    assert out[0].shape == (1, 3) and ref[0].shape == (3,)   # ML10: onnx.reference drops the row axis


@pytest.mark.parametrize("seed", range(3))
def test_zip_map_matches_onnxruntime(seed):
    rng = rng_for("ZipMap", seed)
    x = rng.random((int(rng.integers(0, 4)), 3)).astype(np.float32) if seed < 2 else rng.random(3).astype(np.float32)
    labels = {"classlabels_strings": ["x", "y", "z"]} if seed % 2 else {"classlabels_int64s": [0, 1, 2]}
    check_containers("ZipMap", 18, [("X", x)], labels, domain=ML, reference=False, tol=1e-6)   # ML8
    r = shapecheck.infer(f"{ML}:ZipMap", 1, {"X": "float[N,3]"}, labels)
    assert str(r.outputs["Z"]) == f"seq(map({'string' if seed % 2 else 'int64'}, float[]), N)"


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("encoding")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 4


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "encoding")
