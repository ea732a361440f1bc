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

import heapq
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

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
    where: str = ""           # where a user finds it, as the frontend says it ("layer id=5"); else see ``location``
    branches: Mapping[str, list[str]] = field(default_factory=dict)   # subgraph attribute -> its output names
    branch_inputs: Mapping[str, list[str]] = field(default_factory=dict)   # subgraph attribute -> its input names
    proto: Any = None         # what the frontend's per-node inference finds the node by (an ONNX node's index)
    version: str = ""         # the version text the model gives (an IR layer's "opset12"), when it has one
    findings: list | tuple = field(default_factory=list)   # what the frontend found wrong with the node itself
    index: int = -1           # the node's number in reading order, which ``location`` names where ``where`` is ""

    @property
    def location(self) -> str:
        """Where a user finds the node: ``node 'n3' (#3)`` or ``layer id=5``.  Made when asked: a
        decoder's 60k nodes each had one made while read, and few are ever named.

        >>> ModelNode("n3", "Relu", "", 18, ["x"], ["y"], {}, index=3).location
        "node 'n3' (#3)"
        """
        return self.where or (f"node {self.name!r} (#{self.index})" if self.index >= 0 else "")


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
    # each node's outputs as the main graph lists them, in its order (an ONNX reader's, for ``annotate``,
    # which writes their types in that order: the names are the ones the types are held by); None: not read
    produced: list[list[str]] | None = None
    # tensor names two sibling subgraphs both make: the later ones are read renamed (``onnx_siblings``), and
    # an annotated copy, whose subgraphs keep the names, leaves their types as they were
    shadowed: set[str] = field(default_factory=set)

    def writable_types(self, types: dict) -> dict:
        """``types`` as an annotated copy writes them: without the names two sibling subgraphs share
        (``shadowed``), whose types a copy that keeps those names cannot tell apart."""
        return {k: t for k, t in types.items() if k not in self.shadowed} if self.shadowed else types

    def drop_model(self) -> None:
        """Let go of the parsed model once only the check reads the graph: of a 60k-node model it is
        the largest object (30 MB), and nothing but ``annotate`` (``proto``), the exporter's metadata
        (read before) and the frontend's per-node inference (``infer_node``: it reads each node's
        ``proto``) needs it.  The reader keeps nothing else of it (``onnx_types.detached``)."""
        if self.infer_node is not None:
            return
        self.proto = None
        for node in self.nodes:
            node.proto = None


def sort_topologically(graph: ModelGraph) -> None:
    """Put the graph's nodes in topological order, as onnxruntime runs them (a model's nodes out of
    order are a finding, G2, and then checked as if sorted).  A node moves with the nodes of its
    subgraphs, which stay just before it; among nodes free to go, file order is kept; nodes of a
    cycle stay where they are, after the rest.

    >>> g = ModelGraph("m", "onnx", nodes=[ModelNode("b", "Relu", "", 18, ["t"], ["u"], {}),
    ...                                    ModelNode("a", "Relu", "", 18, ["x"], ["t"], {})])
    >>> sort_topologically(g); [n.name for n in g.nodes]
    ['a', 'b']
    """
    units: list[list[ModelNode]] = []
    body: list[ModelNode] = []
    for n in graph.nodes:
        if n.scope:
            body.append(n)
        else:
            units.append(body + [n])
            body = []
    if body:
        units.append(body)
    made: dict[str, int] = {}
    for i, unit in enumerate(units):
        for n in unit:
            made.update((t, i) for t in n.outputs if t)
    needs = [{made[t] for n in unit for t in n.inputs if t in made and made[t] != i} for i, unit in enumerate(units)]
    waiting = [len(x) for x in needs]
    users: dict[int, list[int]] = {}
    for i, deps in enumerate(needs):
        for d in deps:
            users.setdefault(d, []).append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users.get(i, ()):
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    placed = set(order)
    order += [i for i in range(len(units)) if i not in placed]
    graph.nodes = [n for i in order for n in units[i]]


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
