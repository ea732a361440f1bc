"""An ONNX model's main graph read in one walk: each node's fields read once, its node built by
the reader (``onnx_model``), and the graph's well-formedness tracked on the way.

``check_wellformed`` walks a graph of its own to name every problem.  A 60k-node decoder is
nearly always well formed, and a second walk over its nodes cost as much as a tenth of its
check, so the reader's walk tracks what that walk finds with two set operations a node:

* ``G2``/``G3``: the tensors produced so far (the graph's inputs and initializers, then each
  node's outputs) hold every input of the node;
* ``G1``: they grow by as many tensors as the nodes have named outputs;
* ``G3`` of the graph's outputs: they hold every one.

A node's tensor attributes and subgraphs are checked on the way, as ``check_wellformed`` checks
them (``wellformed.nested``), and so are the graph's inputs and initializers
(``wellformed.sources_in_scope``).  Where either count fails, the graph is checked again by
``check_wellformed``, whose findings name each problem: the answer is the same either way.

A decoder's layers repeat their Constants: one whose attribute bytes a Constant before it had,
and found sound, is given that one's type, and nothing more of it is read (``_Reader.repeat``).

>>> import onnx
>>> from onnx import helper, TensorProto as T
>>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["x"])], "g",
...     [helper.make_tensor_value_info("x", T.FLOAT, [2])], [helper.make_tensor_value_info("x", T.FLOAT, [2])])
>>> t = Tracker(helper.make_model(g))
>>> t.visible.update(["x"]); t.produced.append(["x"])
>>> [f.constraint for f in t.result().violations]
['G1']
"""
from __future__ import annotations

from typing import Any

from .onnx_fields import NodeFields, node_fields
from .wellformed import Wellformed, cap, check_wellformed, nested, opset_notes, sources_in_scope

_new = tuple.__new__   # a NodeFields made without its Python-level __new__


class Tracker:
    """The well-formedness of a model's main graph, tracked by the walk that reads it (see the
    module's text): ``visible``, the tensors produced so far; ``produced``, each node's outputs."""

    def __init__(self, model: Any):
        self.model = model
        self.out = Wellformed()
        opset_notes(model, self.out)
        self.visible = sources_in_scope(model.graph, "graph", self.out)
        self.base = len(self.visible)
        self.late = False   # a node read a tensor not produced before it
        self.produced: list[list[str]] = []

    def result(self) -> Wellformed:
        """What is wrong with the graph: the walk's findings when its counts hold, else every finding
        ``check_wellformed`` makes of it."""
        grown = len(self.visible) - self.base
        if not self.late and (grown == sum(map(len, self.produced))
                              or grown == sum(1 for outs in self.produced for o in outs if o)) \
                and self.visible.issuperset(o.name for o in self.model.graph.output):
            cap(self.out)
            return self.out
        return check_wellformed(self.model)


def walk_main(reader: Any, model: Any) -> tuple[Wellformed, list[list[str]]]:
    """The main graph of ``model`` read into ``reader`` (an ``onnx_model._Reader``: its ``declare`` and
    ``visit``), node by node, its well-formedness tracked on the way: what is wrong with it, and each
    node's outputs in its order (``ModelGraph.produced``).  Each node's ``NodeFields.proto`` is its
    index in the graph's nodes, not the node's wrapper (``onnx_forward.NodeInference`` finds it)."""
    tracker = Tracker(model)
    g = model.graph
    reader.declare(g, True)
    visible, add = tracker.visible, tracker.produced.append
    superset, grow = visible.issuperset, visible.update
    visit, opsets, late = reader.visit, reader.graph.opsets, False
    sound = tracker.out.sound
    for k, n in enumerate(g.node):
        ins, outs = n.input[:], n.output[:]
        if not superset(ins):
            late = True
        attributes = n.attribute
        if attributes:
            if len(attributes) == 1 and outs and reader.repeat(n.op_type, n.domain, attributes[0], outs[0], sound):
                grow(outs)   # a Constant that repeats one before it: its type given, nothing more read
                add(outs)
                continue
            nf = node_fields(n, tuple(attributes), ins, outs, k)
            if nf.tensors or nf.subgraphs:
                nested(nf, k, visible, "graph", tracker.out)
        else:   # the common node (a decoder's most), read here
            nf = _new(NodeFields, (k, n.op_type, n.name, n.domain, ins, outs, (), (), (), ()))
        visit(nf, "", opsets, [])
        grow(outs)
        add(outs)
    tracker.late = late
    return tracker.result(), tracker.produced


__all__ = ["Tracker", "walk_main"]
