"""The estimators of ai.onnx.ml (LinearClassifier, LinearRegressor, SVMClassifier, SVMRegressor): seeded
random models against onnxruntime (values within a tolerance, labels exactly) and onnx.reference where it
agrees (runtime-findings ML11: a 1-D X, double scores)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.harness.runtime import check_containers, rng_for

ML = "ai.onnx.ml"
F = np.float32
POST = ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"]


def _floats(rng, n: int) -> list:
    return [float(v) for v in rng.standard_normal(n)]


@pytest.mark.parametrize("seed", range(4))
def test_linear_models_match_onnxruntime(seed):
    rng = rng_for("linear", seed)
    f = int(rng.integers(1, 5))
    x = rng.standard_normal((int(rng.integers(1, 4)), f)).astype(F)
    e = 1 if seed % 2 else 3
    labels = {"classlabels_ints": list(range(2 if e == 1 else e))} if seed < 2 else {"classlabels_strings": ["a", "b", "c"][:max(e, 2)]}
    attrs = {"coefficients": _floats(rng, e * f), "intercepts": _floats(rng, e), "post_transform": POST[seed], **labels}
    # onnx.reference scores a binary classifier [-s, s], onnxruntime [1 - s, s] (ML13)
    check_containers("LinearClassifier", 18, [("X", x)], attrs, n_out=2, domain=ML, reference=e > 1 and seed < 2, tol=1e-5)
    targets = 1 + seed % 2
    reg = {"coefficients": _floats(rng, targets * f), "intercepts": _floats(rng, targets), "targets": targets}
    check_containers("LinearRegressor", 18, [("X", x)], reg, domain=ML, tol=1e-5)
    check_containers("LinearRegressor", 18, [("X", x[0])], reg, domain=ML, reference=False, tol=1e-5)   # ML11


@pytest.mark.parametrize("seed", range(4))
def test_svms_match_onnxruntime(seed):
    rng = rng_for("svm", seed)
    f = 3
    x = rng.standard_normal((int(rng.integers(1, 4)), f)).astype(F)
    kernel = ["RBF", "LINEAR", "POLY", "SIGMOID"][seed]
    params = [0.5, 0.1, 2.0]
    n_cls = 2 if seed % 2 else 3
    per = [1] * n_cls
    svs = sum(per)
    attrs = {"classlabels_ints": list(range(n_cls)), "vectors_per_class": per, "support_vectors": _floats(rng, svs * f),
             "coefficients": _floats(rng, (n_cls - 1) * svs), "rho": _floats(rng, n_cls * (n_cls - 1) // 2),
             "kernel_type": kernel, "kernel_params": params}
    if seed >= 2:
        pairs = n_cls * (n_cls - 1) // 2
        attrs.update(prob_a=_floats(rng, pairs), prob_b=_floats(rng, pairs))
    # with probabilities, onnxruntime's pairwise coupling of 3 classes is not onnx.reference's (ML14)
    check_containers("SVMClassifier", 18, [("X", x)], attrs, n_out=2, domain=ML, tol=1e-4,
                     ort_values=not (seed >= 2 and n_cls == 3))
    reg = {"n_supports": 2, "support_vectors": _floats(rng, 2 * f), "coefficients": _floats(rng, 2), "rho": [0.1],
           "kernel_type": kernel, "kernel_params": params}
    check_containers("SVMRegressor", 18, [("X", x)], reg, domain=ML, tol=1e-4)
