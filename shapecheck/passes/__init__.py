"""Passes over onnx_ir models, for the pipelines that work on them (torch.onnx's exporter,
onnxscript's optimizer and rewriter).

One job per module: ``infer`` (``infer_shapes`` and the ``InferShapes`` pass: the model checked,
its report under ``model.meta["shapecheck"]``), ``write`` (inferred types and known values written
into the IR's values).  The model is read by ``frontends.onnx_ir_model``, without a protobuf
round trip.  Importing this package imports onnx_ir.
"""
from .infer import META_KEY, InferShapes, InferShapesResult, infer_shapes
from .write import VALUE_KEY

__all__ = ["infer_shapes", "InferShapes", "InferShapesResult", "META_KEY", "VALUE_KEY"]
