"""The shape pass: an onnx_ir model checked and its values given their inferred types, in place.

``infer_shapes(model)`` reads the IR directly (``frontends.onnx_ir_model``: no protobuf round
trip), runs the model check, writes every value's type and shape (``write``), puts the
``ModelReport`` (findings, input domain, coverage) under ``model.meta["shapecheck"]``, and returns
the model.  ``InferShapes`` is the same as an ``onnx_ir.passes.InPlacePass``, for a
``PassManager`` beside onnxscript's passes; its result carries the report too.

>>> import onnx_ir as ir
>>> model = infer_shapes(ir.load("examples/positions.onnx"))
>>> [(v.name, str(v.shape)) for v in model.graph.outputs]
[('hidden', '[batch,seq,16]')]
>>> model.meta["shapecheck"].domain.text()
'batch >= 1, 1 <= seq <= 64'
>>> result = InferShapes(strict=True)(ir.load("examples/pinned.onnx"))
Traceback (most recent call last):
...
shapecheck.errors.InvalidModelError: <onnx_ir.Model>: error[pinned]: model: `seq == 32`
  = the model runs only where seq == 32, though input 'x' declares seq dynamic
  = values: needed by = 'time_mix' (MatMul-13, C3 `K == K2`), from = initializer 'time.weight' float[32,32]
  = fix: re-export with seq dynamic in the graph too (the constant named above fixes it), or declare seq static: seq = 32
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import onnx_ir as ir

from ..errors import InvalidModelError
from ..frontends.onnx_ir_model import read_onnx_ir
from ..model.check import no_gc_pauses, run_checks
from ..registry import Registry, default_registry
from .write import write_types

if TYPE_CHECKING:
    from ..model import ModelReport

META_KEY = "shapecheck"   # model.meta[META_KEY]: the ModelReport of the last pass
MODEL = "<onnx_ir.Model>"


def infer_shapes(model: ir.Model, *, assume_nonempty: bool = True, strict: bool = False,
                 registry: Registry | None = None) -> ir.Model:
    """Check ``model`` and set every value's type and shape to the inferred ones, in place (every
    graph, subgraph and model-local function body); return the model.

    Symbolic dims are ``ir.SymbolicDim``s named with the model's dim names, or with the text of
    the expression (``2*seq``); unknown dims are unnamed.  ``model.meta["shapecheck"]`` holds the
    ``ModelReport``: findings, ``domain`` (for which input sizes the model is valid), coverage.
    ``assume_nonempty`` (default) takes every symbolic input dim to be at least 1; ``strict``
    raises ``InvalidModelError`` on an error finding (after the types are written).
    """
    check_and_write(model, assume_nonempty=assume_nonempty, strict=strict, registry=registry)
    return model


def check_and_write(model: ir.Model, *, assume_nonempty: bool = True, strict: bool = False,
          registry: Registry | None = None) -> tuple[ModelReport, bool]:
    """``infer_shapes``'s work: (the report, whether any value changed)."""
    if not isinstance(model, ir.Model):
        raise TypeError(f"infer_shapes() takes an onnx_ir.Model; got {type(model).__name__}")
    registry = registry or default_registry()
    with no_gc_pauses():
        read = read_onnx_ir(model, MODEL)
        report = run_checks(read.graph, registry, False, None, assume_nonempty)
        modified = write_types(read, report.types)
    model.meta[META_KEY] = report
    if strict and report.failed:
        raise InvalidModelError(first_error(report), report)
    return report, modified


def first_error(report: ModelReport) -> str:
    """The first error finding of ``report``, as ``shapecheck check`` prints it."""
    from ..report.model_text import findings
    for severity, _kind, lines, _name, _key in findings(report, quiet=True):
        if severity == "error":
            return f"{report.model}: " + "\n".join(lines)
    return f"{report.model}: the model check failed"


@dataclass
class InferShapesResult(ir.passes.PassResult):
    """A ``PassResult`` with the check's ``ModelReport``."""

    report: ModelReport | None = None


class InferShapes(ir.passes.InPlacePass):
    """``infer_shapes`` as an onnx_ir pass: ``ir.passes.PassManager([InferShapes(), ...])(model)``."""

    def __init__(self, *, assume_nonempty: bool = True, strict: bool = False, registry: Registry | None = None):
        super().__init__()
        self.assume_nonempty, self.strict, self.registry = assume_nonempty, strict, registry

    def call(self, model: ir.Model) -> InferShapesResult:
        report, modified = check_and_write(model, assume_nonempty=self.assume_nonempty, strict=self.strict,
                                 registry=self.registry)
        return InferShapesResult(model, modified, report)


__all__ = ["infer_shapes", "check_and_write", "first_error", "InferShapes", "InferShapesResult", "META_KEY"]
