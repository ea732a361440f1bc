"""Training kernels (ai.onnx.preview.training): Adagrad, Adam and Momentum, one step of the optimizer
over every tensor they update, run by onnx.reference (onnxruntime has none of them).  Gradient needs the
graph it differentiates: it has no kernel.

>>> import numpy as np
>>> x, h = adagrad(np.array(0.1, np.float32), np.array(0), (np.ones(2, np.float32),) * 3, 0.0, 0.0, 1e-6)
>>> x.shape, h.tolist()
((2,), [2.0, 2.0])
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import register
from .estimators import reference

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


def _step(op: str, R: Any, T: Any, inputs: tuple, n_out: int, attrs: dict) -> tuple:
    outs = reference(op, [np.asarray(R), np.asarray(T), *inputs], attrs, n_out, 1, "ai.onnx.preview.training")
    return tuple(np.asarray(o, dtype=np.asarray(x).dtype) for o, x in zip(outs, list(inputs) * 2))


@register("adagrad")
def adagrad(R: Any, T: Any, inputs: tuple, norm_coefficient: float, decay_factor: float, epsilon: float) -> tuple:
    return _step("Adagrad", R, T, inputs, len(inputs) // 3 * 2,
                 {"norm_coefficient": norm_coefficient, "decay_factor": decay_factor, "epsilon": epsilon})


@register("adam")
def adam(R: Any, T: Any, inputs: tuple, alpha: float, beta: float, epsilon: float, norm_coefficient: float,
         norm_coefficient_post: float) -> tuple:
    return _step("Adam", R, T, inputs, len(inputs) // 4 * 3,
                 {"alpha": alpha, "beta": beta, "epsilon": epsilon, "norm_coefficient": norm_coefficient,
                  "norm_coefficient_post": norm_coefficient_post})


@register("momentum")
def momentum(R: Any, T: Any, inputs: tuple, alpha: float, beta: float, mode: str, norm_coefficient: float) -> tuple:
    return _step("Momentum", R, T, inputs, len(inputs) // 3 * 2,
                 {"alpha": alpha, "beta": beta, "mode": mode, "norm_coefficient": norm_coefficient})
