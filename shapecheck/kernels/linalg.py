"""Kernels of the linear-algebra ops real exports are made of: MatMul, Gemm, Softmax,
LogSoftmax, Dropout.  Each is the plain numpy meaning of its op, every argument bound by the spec.

>>> import numpy as np
>>> matmul(np.ones((2, 1, 3, 4)), np.ones(4)).shape
(2, 1, 3)
"""
from __future__ import annotations

import numpy as np

from . import register


@register("matmul")
def matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return np.matmul(A, B).astype(A.dtype)
