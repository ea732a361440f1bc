"""onnx's per-node inference for the nodes of an onnx_ir model that have no spec.

``onnx_forward.NodeInference`` works on ``NodeProto``s: a node the model checker hands it here
is serialized then, alone, under the tensor names the IR reader gave it (``onnx_ir_model``) and
with its attribute references resolved.  onnx is imported on the first such node: a model
whose every node has a spec is checked without it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import onnx_ir as ir

from .graph import ModelNode
from .onnx_forward import ONNX_DOMAINS, NodeInference


class IRNodeInference:
    """Callable ``(node, env) -> {output: (TensorType, origin)} | None``, as ``NodeInference`` for a
    ``ModelProto``; a ``ModelNode``'s ``proto`` is ``(ir.Node, its attributes resolved or None)``."""

    def __init__(self, model: ir.Model):
        self.opsets = dict(model.opset_imports)
        self.ir_version = model.ir_version
        self.inference: NodeInference | None = None

    def __call__(self, node: ModelNode, env: dict) -> dict | None:
        if node.domain not in ONNX_DOMAINS:   # onnx's schemas only: nothing to serialize for another domain
            return None
        if self.inference is None:
            from onnx import helper
            self.inference = NodeInference([helper.make_opsetid(d, v) for d, v in self.opsets.items()],
                                           self.ir_version)
        return self.inference(replace(node, proto=node_proto(node)), env)


def node_proto(node: ModelNode) -> Any:
    """The ``NodeProto`` of an IR node as the model checker names its tensors."""
    ir_node, resolved = node.proto
    proto = ir.serde.serialize_node(ir_node)
    del proto.input[:], proto.output[:]
    proto.input.extend(node.inputs)
    proto.output.extend(node.outputs)
    proto.name = node.name
    if resolved is not None:   # a function body's node: the call's attribute values, not references
        del proto.attribute[:]
        proto.attribute.extend(ir.serde.serialize_attribute(a) for a in resolved.values())
    return proto


__all__ = ["IRNodeInference", "node_proto"]
