"""Forward inference for ONNX nodes shapecheck has no spec for, from the types inferred so far.

Two steps, most precise first (control flow is ``shapecheck.model.control_flow``'s):

1. a node whose inputs are all small constants is evaluated (``onnx.reference``); Shape and
   Size are not here: their specs give their values, so conditions that depend only on shapes
   (torch's ``Equal(Size(Shape(x)), 0)``) are decided through the specs; onnx's inference
   runs on it too, as onnx.reference computes what it can without checking the node (a DFT
   axis out of range), and what that inference refuses is a finding;
2. otherwise onnx's own per-node inference runs on the inferred input types, with the
   values of constant inputs (data propagation), never on declarations.

Unknown dims travel through onnx's inference as tagged ``dim_param``s so that a tensor
passed through ``Identity`` keeps the very same unknown.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..registry import ONNX_DOMAIN, normalize_domain
from ..types import ONNX_CODE_OF, TensorType, tensor_type_of
from ..dims import dim_str, is_unknown
from .graph import ModelNode, NodeInferenceError
from .onnx_types import tensor_type_from_proto

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

_MAX_FOLD = 4096   # elements: larger constants are left to inference
ONNX_DOMAINS = frozenset({ONNX_DOMAIN, "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"})


class NodeInference:
    """Callable ``(node, env) -> {output: (TensorType, origin)} | None`` for one ONNX model, given
    its ``opset_import`` entries (``OperatorSetIdProto``s) and IR version (``of_model``)."""

    def __init__(self, opset_imports: list, ir_version: int, main: Any = ()):
        self.main = main   # the main graph's NodeProtos: a node read from it holds its index (``onnx_walk``)
        self.opset_imports = list(opset_imports)
        self.ir_version = ir_version or 8
        self.unknowns: dict[str, sympy.Dummy] = {}
        self._protos: dict[tuple, object] = {}   # (dtype, shape) -> TypeProto: each type converted once

    @classmethod
    def of_model(cls, model) -> "NodeInference":
        """The inference for the nodes of a ``ModelProto``."""
        return cls(list(model.opset_import), model.ir_version, model.graph.node)

    def proto(self, node: ModelNode) -> Any:
        """The NodeProto of ``node``: its own, or the main graph's node at its index."""
        return self.main[node.proto] if type(node.proto) is int else node.proto

    def __call__(self, node: ModelNode, env: dict[str, TensorType]) -> dict[str, tuple[TensorType, str]] | None:
        if node.domain not in ONNX_DOMAINS:   # onnx's schemas: ai.onnx, ai.onnx.ml, the preview domains
            return None
        if node.branches:   # control flow is shapecheck.model.control_flow's; another op with a
            return self._infer(node, env, lenient=True)   # subgraph (FlexAttention's score_mod) is tried
        folded = self._fold(node, env)
        inferred = self._infer(node, env)   # also for a folded node: onnx.reference does not check
        return inferred if folded is None else folded   # attributes (DFT's axis), onnx's inference does

    # -- 1. constants
    def _fold(self, node: ModelNode, env) -> dict | None:
        # Shape and Size have specs whose value rules give their values (symbolic too): no folding by op name here
        ins = [env.get(i) if i else None for i in node.inputs]
        if not ins or any(t is None or t.value is None or t.value.size > _MAX_FOLD or t.dtype == "string"
                          for t, name in zip(ins, node.inputs) if name):
            return None
        try:
            values = self._evaluate(node, {n: t.value for n, t in zip(node.inputs, ins) if n})
        except Exception:  # a node onnx.reference cannot run is left to inference
            return None
        out = {}
        for name, v in zip(node.outputs, values):
            if name and isinstance(v, np.ndarray) and v.size <= _MAX_FOLD:
                out[name] = (tensor_type_of(v), "folded")
        return out or None

    def _evaluate(self, node: ModelNode, feeds: dict[str, np.ndarray]) -> list:
        from onnx import helper
        from onnx.reference import ReferenceEvaluator
        g = helper.make_graph([self.proto(node)], "fold",
                              [helper.make_tensor_value_info(n, ONNX_CODE_OF[tensor_type_of(v).dtype], v.shape)
                               for n, v in feeds.items()],
                              [helper.make_empty_tensor_value_info(o) for o in node.outputs if o])
        m = helper.make_model(g, opset_imports=self.opset_imports)
        m.ir_version = self.ir_version
        return ReferenceEvaluator(m).run(None, feeds)

    # -- 2. onnx's per-node inference on inferred types
    def _infer(self, node: ModelNode, env, lenient: bool = False) -> dict | None:
        """onnx's inference of ``node``; what it refuses raises ``NodeInferenceError``, unless
        ``lenient`` (a node with subgraphs, which onnx's per-node inference does not see)."""
        import onnx
        from onnx import numpy_helper
        domain = "" if node.domain == ONNX_DOMAIN else node.domain
        opset = next((o.version for o in self.opset_imports if normalize_domain(o.domain) == node.domain), None)
        try:
            schema = onnx.defs.get_schema(node.op_type, opset, domain)
        except Exception:
            return None
        types, data = {}, {}
        for name in node.inputs:
            t = env.get(name) if name else None
            if t is None:
                continue
            if t.dtype is None:
                return None
            types[name] = self._type_proto(t)
            if t.value is not None and t.value.size <= _MAX_FOLD and t.dtype != "string":
                data[name] = numpy_helper.from_array(np.asarray(t.value), name)
        try:
            out = onnx.shape_inference.infer_node_outputs(schema, _with_defaults(self.proto(node), schema), types, data,
                                                          None, self.opset_imports, self.ir_version)
        except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as exc:
            # a contradiction between known facts: unknown dims travel as distinct dim_params and
            # unknown ranks without a shape, and onnx never finds those contradictory; the node
            # checked against its schema (ValidationError): input types its constraints refuse
            if lenient:
                return None
            raise NodeInferenceError(_first_line(exc)) from None
        except Exception:  # onnx could not infer this node from these types (an input type unknown, ...)
            return None
        result = {}
        for name in node.outputs:
            if name and name in out:
                result[name] = (self._from_proto(out[name], name), "onnx inference")
        return result or None

    def _type_proto(self, t: TensorType):
        key = (t.dtype, t.shape)
        proto = self._protos.get(key)
        if proto is None:
            proto = self._protos[key] = self._make_type_proto(t)
        return proto

    def _make_type_proto(self, t: TensorType):
        from onnx import helper
        shape = None
        if t.shape is not None:
            shape = []
            for d in t.shape:
                if type(d) is int:
                    shape.append(d)
                elif is_unknown(d):
                    tag = f"?{d.dummy_index}"
                    self.unknowns[tag] = d
                    shape.append(tag)
                else:
                    shape.append(dim_str(d))
        return helper.make_tensor_type_proto(ONNX_CODE_OF[t.dtype], shape)

    def _from_proto(self, tp, name: str) -> TensorType:
        t = tensor_type_from_proto(tp, name)
        if t.shape is None or not self.unknowns:
            return t
        tt = tp.tensor_type
        dims = list(t.shape)
        for i, d in enumerate(tt.shape.dim):
            if d.HasField("dim_param") and d.dim_param in self.unknowns:
                dims[i] = self.unknowns[d.dim_param]
        return TensorType(t.dtype, tuple(dims))


def _with_defaults(proto, schema):
    """``proto`` with every attribute it leaves out that has a default written in, the default: an
    absent attribute means its default, but onnx's inference can read another (STFT's onesided is
    1 on the page and in onnxruntime, 0 in onnx 1.23's inference)."""
    given = {a.name for a in proto.attribute}
    missing = [a.default_value for name, a in schema.attributes.items()
               if name not in given and a.default_value.type and a.default_value.name == name]
    if not missing:
        return proto
    copy = type(proto)()
    copy.CopyFrom(proto)
    copy.attribute.extend(missing)
    return copy


def _first_line(exc: Exception) -> str:
    """onnx's message without its ``[ShapeInferenceError]`` prefixes and trailing lines."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    while text.startswith("["):
        text = text.split("]", 1)[1].strip() if "]" in text else text[1:]
    return text[:300]
