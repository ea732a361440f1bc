"""Tree ensemble kernels (ai.onnx.ml): TreeEnsembleClassifier, TreeEnsembleRegressor (versions 1, 3, 5)
and TreeEnsemble (5).  Their arithmetic is onnx.reference's (``estimators.reference``), in the layout
onnxruntime gives: scores are floats (TreeEnsemble's of its input's type), labels int64 or strings.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import register
from .estimators import labels, reference

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


@register("tree_ensemble_classifier")
def tree_ensemble_classifier(X: np.ndarray, version: int, **attrs: Any) -> tuple:
    y, z = reference("TreeEnsembleClassifier", [np.asarray(X, dtype=np.float32)], attrs, 2, min(version, 3))
    return labels(y, attrs.get("classlabels_strings")), np.asarray(z, dtype=np.float32)


@register("tree_ensemble_regressor")
def tree_ensemble_regressor(X: np.ndarray, version: int, **attrs: Any) -> np.ndarray:
    (y,) = reference("TreeEnsembleRegressor", [np.asarray(X, dtype=np.float32)], attrs, 1, min(version, 3))
    return np.asarray(y, dtype=np.float32)


@register("tree_ensemble")
def tree_ensemble(X: np.ndarray, **attrs: Any) -> np.ndarray:
    (y,) = reference("TreeEnsemble", [np.asarray(X)], attrs, 1, 5)
    return np.asarray(y, dtype=np.asarray(X).dtype)
