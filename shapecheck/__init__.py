"""shapecheck: a symbolic shape and type checker for tensor operators.

Spec text -> parsed spec -> solver -> result -> report.  The public hook:

* ``infer(op, opset, inputs, attrs)`` -> ``Result`` for one operator query;
* ``execute(op, opset, inputs, attrs)`` -> output arrays, checked against the same spec;
* ``check_model(model)`` -> a report for every node of an ONNX model or OpenVINO IR
  (a path, ``ModelProto``, bytes, ``onnx_ir.Model`` or ``torch.onnx.ONNXProgram``);
* ``annotate(model)`` -> a copy with the inferred types in ``value_info``;
* ``shapecheck.passes.infer_shapes(model)`` / ``InferShapes()``: an ``onnx_ir.Model``'s values given
  their inferred types in place, as a function or an ``onnx_ir`` pass (imports onnx_ir);
* ``diff(a, b)`` -> what changed between two operator versions, with witnesses.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .errors import ConstraintError, InvalidModelError, ShapeCheckError, ShapeCheckWarning, SpecError, UsageError

if TYPE_CHECKING:   # for type checkers and readers; at run time these load on first use
    from .api import annotate, check_model, diff, infer
    from .executor import execute
    from .result import Finding, Result
    from .types import TensorType, parse_type

__all__ = ["infer", "execute", "check_model", "annotate", "diff", "Result", "Finding", "TensorType", "parse_type",
           "ShapeCheckError", "UsageError", "SpecError", "ConstraintError", "InvalidModelError", "ShapeCheckWarning",
           "__version__"]
__version__ = "0.1.0"

# name -> the module that defines it: imported on first use, so `shapecheck --version` loads no sympy
_LAZY = {"infer": "api", "check_model": "api", "annotate": "api", "diff": "api", "execute": "executor",
         "Result": "result", "Finding": "result", "TensorType": "types", "parse_type": "types"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'shapecheck' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
