"""Sibling subgraphs that name their tensors alike: an If's two branches may each make a ``B``.

ONNX asks a subgraph's names to differ from the outer names it sees, not from a sibling's: skl2onnx's
KNNImputer has an If whose then and else branches both output ``A``, ``B`` and ``C`` (onnxruntime runs
it).  The reader puts every tensor of a model into one table of names, so the branch read second
would overwrite the first's ``B``, and the If would take one branch's type for both: rank 3 where the
else branch gives rank 2, and a ScatterND downstream reported invalid where onnxruntime runs.

``distinct_siblings`` gives each later sibling a copy in which the names an earlier sibling makes too
are prefixed by its region (``If_1/then_branch/B``).  The names stay the model's own everywhere else;
``shadowed`` lists the names so renamed, whose types an annotated copy then leaves as they were
(its subgraphs keep the original names, which two tensors share).

>>> from onnx import helper, TensorProto as T
>>> def branch(op):
...     return helper.make_graph([helper.make_node(op, ["x"], ["B"])], op, [],
...                              [helper.make_tensor_value_info("B", T.FLOAT, None)])
>>> from shapecheck.frontends.onnx_fields import graph_fields
>>> subs = [("then_branch", None, graph_fields(branch("Relu"))), ("else_branch", None, graph_fields(branch("Neg")))]
>>> shadowed = set()
>>> [[o.name for o in sg.proto.output] for _a, _k, sg in distinct_siblings(subs, "If_1", shadowed)], shadowed
([['B'], ['If_1/else_branch/B']], {'B'})
"""
from __future__ import annotations

from typing import Any

from .onnx_fields import GRAPH, GRAPHS, graph_fields


def distinct_siblings(subgraphs: Any, node: str, shadowed: set[str]) -> Any:
    """``subgraphs`` (a node's ``(attribute, index, GraphFields)``), each later one renamed where it makes a
    name an earlier one makes too (see the module's text); the same object where none does.  The names
    renamed are added to ``shadowed``."""
    if len(subgraphs) < 2:
        return subgraphs
    seen: set[str] = set()
    out, changed = [], False
    for aname, k, sg in subgraphs:
        made = made_in(sg.proto)
        clash = made & seen
        seen |= made
        if clash:
            attr = aname if k is None else f"{aname}[{k}]"
            copy = type(sg.proto)()
            copy.CopyFrom(sg.proto)
            rename_tensors(copy, {x: f"{node}/{attr}/{x}" for x in clash})
            sg, changed = graph_fields(copy), True
            shadowed |= clash
        out.append((aname, k, sg))
    return out if changed else subgraphs


def made_in(g: Any) -> set[str]:
    """Every tensor name ``g`` makes: its inputs, initializers and nodes' outputs, its subgraphs' too."""
    out = {i.name for i in g.input} | {t.name for t in g.initializer}
    for n in g.node:
        out.update(x for x in n.output if x)
        for sg in _subgraphs(n):
            out |= made_in(sg)
    return out


def rename_tensors(g: Any, names: dict[str, str]) -> None:
    """Every use of the tensors ``names`` maps in ``g`` (and in its subgraphs), renamed in place."""
    for coll in (g.input, g.output, g.value_info):
        for v in coll:
            v.name = names.get(v.name, v.name)
    for t in g.initializer:
        t.name = names.get(t.name, t.name)
    for n in g.node:
        n.input[:] = [names.get(x, x) for x in n.input]
        n.output[:] = [names.get(x, x) for x in n.output]
        for sg in _subgraphs(n):
            rename_tensors(sg, names)


def _subgraphs(n: Any) -> list:
    return [sg for a in n.attribute if a.type in (GRAPH, GRAPHS) for sg in ([a.g] if a.type == GRAPH else a.graphs)]


__all__ = ["distinct_siblings", "made_in", "rename_tensors"]
