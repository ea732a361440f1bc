"""What a frontend hands the model checker: nodes in order, and where types come from.

Frontends (ONNX, OpenVINO IR) turn a model file into a ``ModelGraph``; the checker
(``shapecheck.model.check``) runs the same forward pass over either.  Types come from three
places, kept apart because they are not equally trustworthy:

* ``sources``: graph inputs, initializers and constants -- the facts inference starts from;
* ``fallback``: what the model itself claims about the outputs of nodes shapecheck has no spec
  for, where that is all there is (an OpenVINO IR's output ports);
* ``declared``: ``value_info`` entries and declared graph outputs -- claims to be checked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import UsageError
from ..types import TensorType
from ..dims import unknown_dim


@dataclass(slots=True)
class ModelNode:
    """One node: its op, the opset of its domain, tensor names in and out, attributes."""

    name: str
    op_type: str
    domain: str
    opset: int | None
    inputs: list[str]
    outputs: list[str]
    attrs: dict[str, Any]
    scope: str = ""           # "" for the main graph, "If_0/then_branch" inside a subgraph
    location: str = ""        # where a user finds it: "node 'n3' (#3)" or "layer id=5"
    branches: dict[str, list[str]] = field(default_factory=dict)   # subgraph attribute -> its output names
    branch_inputs: dict[str, list[str]] = field(default_factory=dict)   # subgraph attribute -> its input names
    proto: Any = None         # the frontend's own node object, for its per-node inference
    version: str = ""         # the version text the model gives (an IR layer's "opset12"), when it has one
    findings: list = field(default_factory=list)   # what the frontend found wrong with the node itself


@dataclass
class Declaration:
    tensor: str
    type: TensorType
    kind: str                 # "graph output" | "value_info" | "port"


@dataclass
class ModelGraph:
    path: str
    format: str               # "onnx" | "openvino"
    nodes: list[ModelNode] = field(default_factory=list)
    sources: dict[str, TensorType] = field(default_factory=dict)
    source_kind: dict[str, str] = field(default_factory=dict)
    fallback: dict[str, TensorType] = field(default_factory=dict)
    declared: dict[str, Declaration] = field(default_factory=dict)
    opsets: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    violations: list = field(default_factory=list)   # model-level findings (a graph that is not well formed)
    proto: Any = None         # the loaded model, for annotate()
    # the scope of every subgraph -> (the node that owns it, the attribute that holds it)
    regions: dict[str, tuple[ModelNode, str]] = field(default_factory=dict)
    # the frontend's forward inference for a node without a spec: (node, types so far) ->
    # {output: (type, origin)}, or None to use ``fallback``
    infer_node: Callable[[ModelNode, dict], dict | None] | None = None


class NodeInferenceError(Exception):
    """A frontend's inference for a node without a spec found a real contradiction (onnx's message)."""


def model_file(source: Any) -> Path:
    """The path of a model file that exists and is a file, or a UsageError saying what it is instead."""
    path = Path(source)
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, not a model file (.onnx or OpenVINO .xml)")
    return path


def unknown_type(tensor: str) -> TensorType:
    """Nothing is known: element type and rank unknown."""
    return TensorType(None, None)


def fresh_dims(tensor: str, rank: int) -> tuple:
    return tuple(unknown_dim(f"{tensor}.shape[{i}]") for i in range(rank))
