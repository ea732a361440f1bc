"""An ONNX graph's nodes, each protobuf field read once.

Reading a protobuf field builds Python objects every time: a node's input list, its output
list, a wrapper per attribute.  Two checks read every node of a model: the well-formedness check
(``wellformed``: what each node reads and writes, its tensors' data, its subgraphs) and the
reader (``onnx_model``: the nodes the check walks).  Both read the records made here, so that a
60k-node model's fields are read once, not twice: the main graph's by the reader's one walk
(``onnx_walk``), which checks its well-formedness on the way; a subgraph's by ``graph_fields``.

A ``NodeFields`` has the field names of the ``NodeProto`` it was read from (``op_type``,
``name``, ``domain``, ``input``, ``output``, ``attribute``), so code that reads a node reads
either; ``proto`` is what needs the protobuf (onnx's per-node inference) finds the node by: the
node itself, or a main graph node's index in the graph's nodes (``onnx_walk``: a node that holds
its protobuf wrapper keeps it alive through the check, which cost a 60k-node model 0.03 s).

>>> from onnx import helper
>>> body = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "body", [], [])
>>> n = helper.make_node("If", ["c"], ["z"], then_branch=body, else_branch=body)
>>> f = node_fields(n)
>>> f.op_type, f.input, f.output, [(a, k, [b.op_type for b in g.nodes]) for a, k, g in f.subgraphs]
('If', ['c'], ['z'], [('else_branch', None, ['Relu']), ('then_branch', None, ['Relu'])])
"""
from __future__ import annotations

from typing import Any, NamedTuple

# onnx.AttributeProto.TENSOR / GRAPH / GRAPHS (fixed by the protobuf schema), for every reader of NodeProtos
TENSOR = 4
GRAPH = 5
GRAPHS = 10


class GraphFields(NamedTuple):
    """A GraphProto (``proto``: its inputs, initializers, outputs and value_info) and its nodes' fields."""

    proto: Any
    nodes: list[NodeFields]


class NodeFields(NamedTuple):
    """One NodeProto's fields (see the module's text)."""

    proto: Any            # the NodeProto, or a main graph node's index (see the module's text)
    op_type: str
    name: str
    domain: str           # as the model writes it ("" for ai.onnx)
    input: list[str]
    output: list[str]
    attribute: tuple      # the AttributeProtos
    tensors: tuple        # the TENSOR attributes among them
    subgraphs: tuple      # (attribute name, index in a GRAPHS attribute or None, GraphFields)
    # each attribute's bytes, which stand for its value: a decoder's layers repeat their attributes and
    # Constants, which are read once per distinct bytes; None for a node with a subgraph (a body's bytes
    # are its whole graph, and such a node's attributes are read as they are)
    keys: tuple | None = ()


def graph_fields(g: Any) -> GraphFields:
    """``g``'s nodes read once, with their subgraphs' nodes (recursively)."""
    out: list[NodeFields] = []
    add = out.append
    for n in g.node:   # the common node, without attributes, read here (60k nodes: each call counts)
        attributes = tuple(n.attribute)
        if attributes:
            add(node_fields(n, attributes))
        else:
            add(_new(NodeFields, (n, n.op_type, n.name, n.domain, n.input[:], n.output[:], (), (), (), ())))
    return GraphFields(g, out)


_new = tuple.__new__   # a NodeFields made without its Python-level __new__


def node_fields(n: Any, attributes: tuple | None = None, inputs: list[str] | None = None,
                outputs: list[str] | None = None, proto: Any = None) -> NodeFields:
    """One NodeProto read once (its subgraphs too; ``attributes``, ``inputs``, ``outputs``: its
    AttributeProtos and tensor names, when read; ``proto``: what stands for the node, when not itself)."""
    if attributes is None:
        attributes = tuple(n.attribute)
    if inputs is None or outputs is None:
        inputs, outputs = n.input[:], n.output[:]
    tensors: tuple = ()
    subgraphs: tuple = ()
    keys: tuple | None = ()
    if attributes:
        found_t, found_g = [], []
        for a in attributes:
            kind = a.type
            if kind == TENSOR:
                found_t.append(a)
            elif kind == GRAPH:
                found_g.append((a.name, None, graph_fields(a.g)))
            elif kind == GRAPHS:
                found_g.extend((a.name, k, graph_fields(sg)) for k, sg in enumerate(a.graphs))
        tensors, subgraphs = tuple(found_t), tuple(found_g)
        keys = None if found_g else tuple([a.SerializeToString() for a in attributes])
    return _new(NodeFields, (n if proto is None else proto, n.op_type, n.name, n.domain, inputs, outputs, attributes,
                             tensors, subgraphs, keys))


__all__ = ["GRAPH", "GRAPHS", "TENSOR", "GraphFields", "NodeFields", "graph_fields", "node_fields"]
