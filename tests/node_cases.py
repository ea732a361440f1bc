"""ONNX's own backend node tests, as the per-op node-test files use them: collected once per
file, filtered to single-node models of the ops a file covers."""
from __future__ import annotations

import warnings

import numpy as np
from onnx import TensorProto, numpy_helper

from shapecheck.types import ONNX_CODES, dtype_of_array


def single_op_cases(ops, modelled_types_only: bool = True) -> list:
    """The node test cases whose model is one node of an op in ``ops`` (optionally: only element
    types shapecheck models, which leaves out float8, int4 and the like)."""
    with warnings.catch_warnings():  # the generators of unrelated ops warn about float overflow
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.node import collect_testcases
        cases = collect_testcases()
    out = []
    for c in cases:
        g = c.model.graph
        if len(g.node) != 1 or g.node[0].op_type not in ops:
            continue
        if modelled_types_only and not all(v.type.tensor_type.elem_type in ONNX_CODES
                                           for v in list(g.input) + list(g.output)):
            continue
        out.append(c)
    return out


def opset_of(model) -> int:
    """The model's ONNX opset."""
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def as_array(a) -> np.ndarray:
    """A test case's input or output as an array."""
    return numpy_helper.to_array(a) if isinstance(a, TensorProto) else np.asarray(a)


def type_text(a: np.ndarray) -> str:
    """The shapecheck type text of an array: ``float[2,3]``."""
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"
