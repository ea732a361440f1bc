"""Estimator kernels (ai.onnx.ml): LinearClassifier, LinearRegressor, SVMClassifier, SVMRegressor.

Their arithmetic is onnx.reference's (``reference``: the node run by its evaluator), in the layout
onnxruntime gives: a 1-D input is one row, scores are floats whatever the input's element type,
labels int64 or strings.  ``post_transform`` is applied here for LinearRegressor and SVMRegressor,
whose onnx.reference versions know only NONE.

>>> import numpy as np
>>> linear_regressor(np.array([[1.0, 2.0]], np.float32), (1.0, 1.0), (0.5,), 1, "NONE").tolist()
[[3.5]]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import register

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


def reference(op: str, inputs: list, attrs: dict, n_out: int, version: int = 3, domain: str = "ai.onnx.ml") -> list:
    """``op`` of ``domain`` (ai.onnx.ml) at ``version`` run by onnx.reference on ``inputs`` (arrays) with
    ``attrs`` (absent ones, None, left out; arrays as tensors, subgraphs as they are)."""
    from onnx import helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
    names = [f"x{i}" for i in range(len(inputs))]
    given = {k: numpy_helper.from_array(v) if isinstance(v, np.ndarray) else list(v) if isinstance(v, tuple) else v
             for k, v in attrs.items() if v is not None}
    node = helper.make_node(op, names, [f"y{i}" for i in range(n_out)], domain=domain, **given)
    graph = helper.make_graph([node], "kernel", [helper.make_tensor_value_info(
        n, helper.np_dtype_to_tensor_dtype(np.asarray(a).dtype), None) for n, a in zip(names, inputs)],
        [helper.make_empty_tensor_value_info(f"y{i}") for i in range(n_out)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24), helper.make_opsetid(domain, version)])
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))


def rows(X: np.ndarray) -> np.ndarray:
    """An estimator's input as rows: a 1-D input is one row (onnxruntime's reading)."""
    x = np.asarray(X)
    return x.reshape(1, -1) if x.ndim == 1 else x


def labels(y: Any, strings: Any) -> np.ndarray:
    return np.asarray(y).astype(object) if strings is not None else np.asarray(y).astype(np.int64)


def post(scores: np.ndarray, transform: str) -> np.ndarray:
    """onnxruntime's post_transform of a score matrix (SOFTMAX_ZERO leaves zeros out)."""
    s = np.asarray(scores, dtype=np.float64)
    if transform == "LOGISTIC":
        s = 1.0 / (1.0 + np.exp(-s))
    elif transform in ("SOFTMAX", "SOFTMAX_ZERO"):
        keep = s != 0 if transform == "SOFTMAX_ZERO" else np.ones_like(s, dtype=bool)
        e = np.where(keep, np.exp(s - np.where(keep, s, -np.inf).max(axis=1, keepdims=True)), 0.0)
        s = e / np.where(e.sum(axis=1, keepdims=True) == 0, 1, e.sum(axis=1, keepdims=True))
    elif transform == "PROBIT":   # sqrt(2) * erfinv(2v - 1): the standard normal's quantile of v
        from statistics import NormalDist
        q = NormalDist().inv_cdf
        s = np.vectorize(lambda v: q(v) if 0 < v < 1 else float("inf") * (1 if v >= 1 else -1))(s) if s.size else s
    return s.astype(np.float32)


@register("linear_classifier")
def linear_classifier(X: np.ndarray, coefficients: tuple, intercepts: tuple, classlabels_ints: Any,
                      classlabels_strings: Any, post_transform: str, multi_class: int) -> tuple:
    x = rows(X).astype(np.float32)
    if len(intercepts) == 1 and post_transform in ("NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"):
        return _binary(x, coefficients, intercepts, classlabels_ints, classlabels_strings, post_transform)
    y, z = reference("LinearClassifier", [x], {"coefficients": list(coefficients), "intercepts": list(intercepts),
                                               "classlabels_ints": list(classlabels_ints or []) or None,
                                               "classlabels_strings": list(classlabels_strings or []) or None,
                                               "post_transform": post_transform, "multi_class": multi_class}, 2, 1)
    return labels(y, classlabels_strings), np.asarray(z, dtype=np.float32)


def _binary(x: np.ndarray, coefficients: tuple, intercepts: tuple, ints: Any, strings: Any, transform: str) -> tuple:
    """onnxruntime's binary LinearClassifier: one score s (its logistic with LOGISTIC), Z = [1 - s, s], the
    second label where s > 0 (0.5 after LOGISTIC); onnx.reference gives [-s, s] (ML13)."""
    s = x @ np.asarray(coefficients, dtype=np.float32)[:x.shape[1]] + np.float32(intercepts[0])
    threshold = 0.0
    if transform == "LOGISTIC":
        s, threshold = 1.0 / (1.0 + np.exp(-s)), 0.5
    z = np.stack([1 - s, s], axis=1).astype(np.float32)
    names = list(strings if strings is not None else ints)
    y = np.array([names[1] if v > threshold else names[0] for v in s.tolist()])
    return labels(y, strings), z


@register("linear_regressor")
def linear_regressor(X: np.ndarray, coefficients: tuple, intercepts: Any, targets: int, post_transform: str
                     ) -> np.ndarray:
    x = rows(X).astype(np.float32)
    coef = np.asarray(coefficients, dtype=np.float32).reshape(targets, -1)[:, :x.shape[1]]
    score = x @ coef.T + (np.asarray(intercepts, dtype=np.float32) if intercepts else 0)
    return post(score, post_transform)


_SVM = ("kernel_type", "kernel_params", "support_vectors", "coefficients", "rho", "post_transform")


@register("svm_classifier")
def svm_classifier(X: np.ndarray, classlabels_ints: Any, classlabels_strings: Any, vectors_per_class: Any,
                   kernel_type: str, kernel_params: Any, support_vectors: Any, coefficients: Any, rho: Any,
                   post_transform: str, prob_a: Any, prob_b: Any) -> tuple:
    x = rows(X).astype(np.float32)
    given = dict(zip(_SVM, (kernel_type, kernel_params, support_vectors, coefficients, rho, post_transform)))
    given.update(classlabels_ints=classlabels_ints, classlabels_strings=classlabels_strings,
                 vectors_per_class=vectors_per_class, prob_a=prob_a, prob_b=prob_b)
    y, z = reference("SVMClassifier", [x], {k: list(v) if isinstance(v, tuple) else v for k, v in given.items()}, 2, 1)
    return labels(y, classlabels_strings), np.asarray(z, dtype=np.float32)


@register("svm_regressor")
def svm_regressor(X: np.ndarray, n_supports: int, one_class: int, kernel_type: str, kernel_params: Any,
                  support_vectors: Any, coefficients: Any, rho: Any, post_transform: str) -> np.ndarray:
    x = rows(X).astype(np.float32)
    given = dict(zip(_SVM, (kernel_type, kernel_params, support_vectors, coefficients, rho, "NONE")))
    given.update(n_supports=n_supports, one_class=one_class)
    (y,) = reference("SVMRegressor", [x], {k: list(v) if isinstance(v, tuple) else v for k, v in given.items()}, 1, 1)
    return post(np.asarray(y).reshape(x.shape[0], -1), post_transform)
