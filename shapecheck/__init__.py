"""shapecheck: a symbolic shape and type checker for tensor operators.

Spec text -> parsed spec -> solver -> result -> report.  The public hook:

* ``infer(op, opset, inputs, attrs)`` -> ``Result`` for one operator query;
* ``execute(op, opset, inputs, attrs)`` -> output arrays, checked against the same spec;
* ``check_model(model)`` -> a report for every node of an ONNX model or OpenVINO IR
  (a path, ``ModelProto``, bytes, ``onnx_ir.Model`` or ``torch.onnx.ONNXProgram``);
* ``annotate(model)`` -> a copy with the inferred types in ``value_info``;
* ``diff(a, b)`` -> what changed between two operator versions, with witnesses.
"""
from __future__ import annotations

from .api import annotate, check_model, diff, infer
from .errors import ConstraintError, ShapeCheckError, ShapeCheckWarning, SpecError, UsageError
from .execute import execute
from .result import Finding, Result
from .types import TensorType, parse_type

__all__ = ["infer", "execute", "check_model", "annotate", "diff", "Result", "Finding", "TensorType", "parse_type",
           "ShapeCheckError", "UsageError", "SpecError", "ConstraintError", "ShapeCheckWarning", "__version__"]
__version__ = "0.1.0"
