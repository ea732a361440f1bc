"""An onnx_ir model -> ``ModelGraph``, read from the IR's own objects: no protobuf round trip.

The IR twin of ``onnx_model``'s reader, and the same ``ModelGraph`` for the same model:

* sources: the inputs of every graph, its initializers (their ``const_value`` as numpy) and the
  outputs of ``Constant`` nodes;
* declarations: the types and shapes values already carry, where a ``ModelProto`` would have a
  ``value_info`` entry or a declared graph output;
* nodes in order, a subgraph's (``If``, ``Loop``, ``Scan``) before the node that owns it, with
  its scope; a model-local function's body at each call site, as ``onnx_functions`` inlines it
  (formal inputs and outputs are the call's tensors, every other body value is named
  ``<call>/<name>``, attribute references take the call's values or the function's defaults).

A tensor of the ``ModelGraph`` is a name; ``IRGraph.values`` maps each name back to its
``ir.Value`` (a value without a name, or with another value's name, gets a name of its own), and
``IRGraph.in_functions`` each value of a function body to its names at the call sites.  onnx is
never imported here: a node without a spec goes to ``onnx_ir_forward``, which imports it then.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import onnx_ir as ir

from ..findings import DEFINED, TOPOLOGICAL
from ..registry import normalize_domain
from ..result import Finding
from .graph import Declaration, ModelGraph, ModelNode, sort_topologically
from .onnx_functions import arity_mismatch, check_depth
from .onnx_ir_forward import IRNodeInference
from .onnx_ir_types import attribute_value, constant_node_type, initializer_type, value_type
from .onnx_model import call_finding, undeclared_domain

_GRAPH, _GRAPHS = int(ir.AttributeType.GRAPH), int(ir.AttributeType.GRAPHS)


class IRGraph(NamedTuple):
    """What the reader hands a pass: the graph to check and where each of its tensors lives in the IR."""

    graph: ModelGraph
    values: dict[str, ir.Value]                      # tensor name -> its value
    in_functions: dict[ir.Value, dict[str, None]]    # a function body's value -> its names, one per call


class _Call(NamedTuple):
    """A call site being inlined: its tensors by the function's values, the prefix of the body's own
    values, the call's attributes (references resolved), the function's defaults, the calls around it."""

    names: dict[ir.Value, str]
    prefix: str
    attrs: Mapping[str, ir.Attr]
    defaults: Mapping[str, ir.Attr]
    stack: tuple


def read_onnx_ir(model: ir.Model, path: str = "<onnx_ir.Model>") -> IRGraph:
    """Read an onnx_ir model into a ``ModelGraph`` (nothing is written to the model)."""
    opsets = {normalize_domain(d): int(v) for d, v in model.opset_imports.items()}
    graph = ModelGraph(path=path, format="onnx", opsets=opsets, proto=model)
    reader = _Reader(graph, model)
    reader.walk(model.graph, "", None)
    if reader.late:   # G2 is the finding; the rest is checked in the order onnxruntime runs it
        more = f" (and {len(reader.late) - 3} more such reads)" if len(reader.late) > 3 else ""
        graph.violations.append(Finding(
            TOPOLOGICAL, "nodes are in topological order",
            "; ".join(reader.late[:3]) + more + ". shapecheck checks the nodes in topological order, as "
            "onnxruntime runs them", {"reads out of order": str(len(reader.late))},
            "sort the nodes topologically (graph.sort() in onnx_ir)"))
        sort_topologically(graph)
    graph.infer_node = IRNodeInference(model)
    return IRGraph(graph, reader.values, reader.in_functions)


class _Reader:
    """Walks a graph and its subgraphs into ``graph``, naming every value it meets (see the module's text)."""

    def __init__(self, graph: ModelGraph, model: ir.Model):
        self.graph = graph
        self.functions = {(normalize_domain(f.domain), f.name, f.overload): f for f in model.functions.values()}
        self.values: dict[str, ir.Value] = {}
        self.names: dict[ir.Value, str] = {}
        self.in_functions: dict[ir.Value, dict[str, None]] = {}
        self.unnamed: dict[ir.Value, str] = {}
        self.read: set[int] = set()     # the nodes read so far, by id: one that reads a later one's output is out of order
        self.late: list[str] = []
        self.counter = 0

    # -- names
    def name(self, v: ir.Value | None, call: _Call | None) -> str:
        """The tensor name of ``v`` ("" for an omitted input or output): its own in the model's graphs,
        at a call site the caller's (a formal input or output) or ``<call>/<name>``."""
        if v is None:
            return ""
        if call is not None:
            n = call.names.get(v)
            if n is None:
                own = self._own(v)
                n = f"{call.prefix}/{own}" if own else ""
            if n:
                self.in_functions.setdefault(v, {})[n] = None
            return n
        n = self.names.get(v)
        if n is None:
            n = own = self._own(v)
            while n in self.values:   # another value has this name (a subgraph's that shadows one outside)
                n = f"{own}#{len(self.names)}.{len(n)}"
            self.names[v] = n
            if n:
                self.values[n] = v
        return n

    def _own(self, v: ir.Value) -> str:
        """The value's name; one made up for a value without (once per value), "" for an output left out."""
        if v.name:
            return v.name
        if not v.uses() and not v.is_graph_output():
            return ""
        return self.unnamed.setdefault(v, f"#{len(self.unnamed)}")

    # -- graphs
    def walk(self, g: ir.Graph, scope: str, call: _Call | None) -> None:
        graph, top = self.graph, not scope
        for v in g.inputs:
            n = self.name(v, call)
            if n not in graph.sources:
                graph.sources[n] = value_type(v, n, source=top)
                graph.source_kind[n] = "graph input" if top else "subgraph input"
        for v in g.initializers.values():
            n = self.name(v, call)
            graph.sources[n] = initializer_type(v, n)
            graph.source_kind[n] = "initializer"
        for v in g.outputs:
            n = self.name(v, call)
            if isinstance(v.type, ir.TensorType):
                graph.declared[n] = Declaration(n, value_type(v, n), "graph output" if top else "subgraph output")
        for node in g:
            self.visit(node, scope, graph.opsets, call, node.name, True)

    def visit(self, node: ir.Node, scope: str, ops: dict[str, int], call: _Call | None, label: str | None,
              declare: bool) -> None:
        """Read one node; ``label`` is its name (a function body's node: ``<call>/<name>``), ``declare``
        whether its outputs' types are declarations (not in a function body)."""
        idx = self.counter
        self.counter += 1
        op = node.op_type
        full = (label or f"{op}_{idx}") if not scope else f"{scope}/{label or f'{op}_{idx}'}"
        inputs = self._inputs(node, full, call)
        domain = normalize_domain(node.domain)
        attrs = self._attributes(node, call)
        outputs = [self.name(v, call) for v in node.outputs]
        if declare:
            for v, n in zip(node.outputs, outputs):
                if n and (v.type is not None or v.shape is not None) and n not in self.graph.declared:
                    self.graph.declared[n] = Declaration(n, value_type(v, n), "value_info")
        fn = self.functions.get((domain, op, node.overload)) if self.functions else None
        mismatch = None
        if fn is not None:
            mismatch = arity_mismatch(len(node.inputs), len(node.outputs), len(fn.inputs), len(fn.outputs),
                                      f"{fn.domain}:{fn.name}")
            if mismatch is None:
                self._inline(node, inputs, fn, scope, ops, call, attrs, label or op)
                return
        source = _SOURCE_NODES.get((domain, op)) if fn is None else None
        t = source(attrs) if source is not None and outputs else None
        if t is not None:   # a Constant is a source, as an initializer is
            self.graph.sources[outputs[0]] = t
            self.graph.source_kind[outputs[0]] = "constant"
            return
        self.graph.nodes.append(self._node(node, full, idx, scope, domain, ops, call, attrs, (inputs, outputs),
                                           mismatch))

    def _node(self, node: ir.Node, full: str, idx: int, scope: str, domain: str, ops: dict[str, int],
              call: _Call | None, attrs: Mapping[str, ir.Attr], names: tuple[list[str], list[str]],
              mismatch: str | None) -> ModelNode:
        """The ``ModelNode`` of ``node`` (``names``: its inputs' and outputs'), its subgraphs walked
        first; a call that does not fit its function carries the finding (``mismatch``)."""
        findings = [] if domain in ops else undeclared_domain(node.op_type, node.domain, domain, ops)
        if mismatch is not None:
            findings.append(call_finding(mismatch))
        values, subs = {}, []
        for k, a in attrs.items():
            kind = int(a.type)
            if kind == _GRAPH:
                subs.append((k, a.value))
            elif kind == _GRAPHS:
                subs.extend((f"{k}[{i}]", g) for i, g in enumerate(a.value))
            else:
                values[k] = attribute_value(a)
        resolved = attrs if call is not None else None   # attributes the node itself does not hold
        out = ModelNode(full, node.op_type, domain, ops.get(domain), names[0], names[1], values, scope,
                        proto=(node, resolved), findings=findings, index=idx)
        if subs:
            out.branches = {a: [self.name(v, call) for v in g.outputs] for a, g in subs}
            out.branch_inputs = {a: [self.name(v, call) for v in g.inputs] for a, g in subs}
            for a, g in subs:
                self.graph.regions[f"{full}/{a}"] = (out, a)
                self.walk(g, f"{full}/{a}", call)
        return out

    def _attributes(self, node: ir.Node, call: _Call | None) -> Mapping[str, ir.Attr]:
        """The node's attributes, a reference to a function's attribute replaced by the call's value or
        the function's default (left out when neither gives one, as in a direct call)."""
        attrs = node.attributes
        for a in attrs.values():
            if a.is_ref():
                break
        else:
            return attrs   # read only: the node's own
        out = {}
        for name, a in attrs.items():
            if a.is_ref():
                given = None if call is None else call.attrs.get(a.ref_attr_name, call.defaults.get(a.ref_attr_name))
                if given is None:
                    continue
                a = ir.Attr(name, given.type, given.value)
            out[name] = a
        return out

    def _inline(self, node: ir.Node, inputs: list[str], fn: ir.Function, scope: str, ops: dict[str, int],
                call: _Call | None, attrs: Mapping[str, ir.Attr], prefix: str) -> None:
        """A model-local function's body at this call site (see the module's text)."""
        stack = call.stack if call is not None else ()
        check_depth(list(stack), fn)
        names: dict[ir.Value, str] = dict(zip(fn.inputs, inputs))
        for formal in list(fn.inputs)[len(inputs):]:
            names[formal] = ""
        for formal, out in zip(fn.outputs, node.outputs):
            names[formal] = self.name(out, call)
        defaults = {k: a for k, a in fn.attributes.items() if a.type != ir.AttributeType.UNDEFINED}
        inner = _Call(names, prefix, attrs, defaults, (*stack, (fn.domain, fn.name)))
        for formal, n in names.items():
            if n:
                self.in_functions.setdefault(formal, {})[n] = None
        inner_ops = {**ops, **{normalize_domain(d): int(v) for d, v in fn.opset_imports.items()}}
        for k, body in enumerate(fn):
            self.visit(body, scope, inner_ops, inner, f"{prefix}/{body.name or f'{body.op_type}_{k}'}", False)

    def _inputs(self, node: ir.Node, full: str, call: _Call | None) -> list[str]:
        """The names of the node's inputs; a read before the write (G2) and an input nothing produces
        (G3) are noted on the way, and the node marked read."""
        names = []
        read, known = self.read, self.names if call is None else {}
        for v in node.inputs:
            if v is None:
                names.append("")
                continue
            n = known.get(v)
            if n is None:
                n = self.name(v, call)
            names.append(n)
            producer = v.producer()
            if producer is not None:
                if id(producer) not in read:
                    self.late.append(f"node {full!r} reads tensor {n!r} before its producer")
            elif not v.is_graph_input() and not v.is_initializer() and (call is None or v not in call.names):
                self.graph.violations.append(Finding(
                    DEFINED, "every input is defined in scope",
                    f"node {full!r} reads tensor {n!r}, which no node, graph input or initializer in scope "
                    "produces", {"tensor": n}, "produce it before this node, or add it as a graph input"))
        read.add(id(node))
        return names


# the nodes that are sources, as initializers are, by (domain, op): the type and value they give their output
_SOURCE_NODES = {("ai.onnx", "Constant"): constant_node_type}


__all__ = ["IRGraph", "read_onnx_ir"]
