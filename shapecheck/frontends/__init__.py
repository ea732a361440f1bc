"""Frontends: a model file -> a ``ModelGraph`` (nodes in order, and where types come from).

One job per module: ``graph`` (what a frontend hands the model checker: ``ModelGraph``,
``ModelNode``, ``Declaration``), ``onnx_model`` (an ONNX model read), ``onnx_write`` (an annotated copy written),
``onnx_proto`` (its protobuf parsed without importing onnx), ``onnx_types`` (ONNX protos <->
types), ``onnx_functions`` (model-local functions inlined), ``onnx_forward`` (onnx's own
inference for nodes without a spec), ``onnx_ir_model`` (an onnx_ir model read from its objects,
no protobuf round trip), ``onnx_ir_types`` (onnx_ir values, tensors, attributes -> types),
``onnx_ir_forward`` (onnx's per-node inference for an onnx_ir node), ``openvino_ir`` (OpenVINO IR),
``wellformed`` (is the graph a graph at all).

``onnx_forward``, ``openvino_ir`` and the ``onnx_ir_*`` modules import numpy (and onnx_ir) when
they are imported: they are not re-exported here, so that reading a model without constant values
imports neither numpy nor onnx.
"""
from .graph import Declaration, ModelGraph, ModelNode, NodeInferenceError, model_file
from .onnx_model import Loaded, load_model, read_onnx
from .onnx_write import annotate_proto, write_annotated
from .onnx_proto import is_protobuf_file, parse_model
from .wellformed import check_wellformed

__all__ = ["ModelGraph", "ModelNode", "Declaration", "NodeInferenceError", "model_file", "Loaded", "load_model",
           "read_onnx", "write_annotated", "annotate_proto", "is_protobuf_file", "parse_model", "check_wellformed"]
