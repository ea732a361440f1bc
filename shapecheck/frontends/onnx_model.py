"""ONNX model -> ``ModelGraph``: nodes with their opsets, types from inputs and constants (an
annotated copy is written by ``onnx_write``).

External data is not loaded unless asked (its initializers then have no values, only
types).  Nodes shapecheck has no spec for go to onnx's per-node inference
(``onnx_forward``), on the types inferred so far, never on declarations.  The model passed
in is never modified.
"""
from __future__ import annotations

import os
from types import MappingProxyType
from typing import Any, NamedTuple

from ..errors import UsageError
from ..findings import DOMAIN, FUNCTION_CALL, TOPOLOGICAL
from ..result import Finding
from ..registry import normalize_domain
from ..types import TensorType
from .graph import Declaration, ModelGraph, ModelNode, model_file, sort_topologically
from .onnx_fields import GRAPH, GRAPHS, GraphFields, NodeFields, node_fields
from .onnx_functions import Functions, call_mismatch, check_depth, inline
from .onnx_siblings import distinct_siblings
from .onnx_proto import is_model_proto, is_protobuf_file, parse_model
from .onnx_types import attr_value, const_type, constant_node_value, value_type_from_proto
from .onnx_walk import walk_main


class Loaded(NamedTuple):
    """A model as ``load_model`` reads it: parsed once, then read by every check that needs it."""

    model: Any          # onnx.ModelProto, with external data when asked for
    path: str
    stored: Any         # the model as stored (external data as references)


def load_model(source: Any, load_external_data: bool = False, bare: bool = False) -> Loaded:
    """(model, path, model as stored) from a path, a ModelProto or a ``Loaded``; nothing is
    ever written to them.

    With ``load_external_data`` the first has the external tensors' data and the last keeps
    their references, which is what an annotated copy writes.  ``bare`` parses the file
    without importing onnx (``onnx_proto``): the CLI's light check does, in a process of its own.
    """
    from google.protobuf.message import DecodeError
    if isinstance(source, Loaded):
        return source
    if is_model_proto(source):
        return Loaded(source, "<ModelProto>", source)
    path = model_file(source)
    try:
        if bare and is_protobuf_file(path):   # read as onnx.load reads it
            with open(path, "rb") as f:
                stored = model = parse_model(f.read())
        else:
            import onnx
            stored = model = onnx.load(str(path), load_external_data=False)
        if load_external_data:
            import onnx
            from onnx.external_data_helper import load_external_data_for_model
            model = onnx.ModelProto()
            model.CopyFrom(stored)
            load_external_data_for_model(model, str(path.parent))
    except DecodeError as exc:
        raise UsageError(f"{path}: not an ONNX model (the protobuf does not parse: {exc}); "
                         "is the file truncated or of another format?") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot load the model: {exc}") from None
    except Exception as exc:  # onnx raises its own checker/parse errors for broken external data
        raise UsageError(f"{path}: cannot load the model: {type(exc).__name__}: {exc}") from None
    if not model.HasField("graph") or (not model.graph.node and not model.graph.input and not model.opset_import):
        raise UsageError(f"{path}: not an ONNX model (no graph, no opset_import); "
                         "is it another format or an empty file?")
    return Loaded(model, str(path), stored)


def _model_node(n: NodeFields, op: str, full: str, scope: str, idx: int, domain: str, opsets: dict[str, int],
                attrs: dict[str, Any]) -> ModelNode:
    """One node as a ``ModelNode`` (``attrs``: its attributes' values, ``_Reader.attributes``); a domain
    the model does not declare is a finding on it."""
    findings = _NO_FINDINGS if domain in opsets else undeclared_domain(op, n.domain, domain, opsets)
    node = ModelNode(full, op, domain, opsets.get(domain), n.input, n.output, attrs, scope,
                     "", _NO_BODIES, _NO_BODIES, n.proto, "", findings, idx)
    if n.subgraphs:
        subs = [(a if k is None else f"{a}[{k}]", sg.proto) for a, k, sg in n.subgraphs]
        node.branches = {a: [o.name for o in sg.output] for a, sg in subs}
        node.branch_inputs = {a: [i.name for i in sg.input] for a, sg in subs}
    return node


def _full_name(name: str, op: str, scope: str, idx: int) -> str:
    """A node's name in the report: its own (``{op}_{idx}`` when it has none), after its scope's."""
    own = name or f"{op}_{idx}"
    return f"{scope}/{own}" if scope else own


# shared by every node without findings, or without subgraphs: read only (a node's own replace them)
_NO_FINDINGS: tuple = ()
_NO_BODIES = MappingProxyType({})


def undeclared_domain(op: str, written: str, domain: str, opsets: dict[str, int]) -> list[Finding] | tuple:
    """The finding on a node of ``domain`` (as the model writes it: ``written``) when the model's
    opset_import does not declare it; none when it does."""
    if domain in opsets:
        return _NO_FINDINGS
    return [Finding(DOMAIN, "a node's domain is declared in opset_import",
                    f"{op} is in domain {written or 'ai.onnx'!r}, which the model's opset_import does not "
                    f"declare (it declares {', '.join(repr(d) for d in opsets) or 'nothing'})",
                    {"domain": written or "ai.onnx"}, f"add an opset_import entry for {written or 'ai.onnx'!r}")]


def call_finding(mismatch: str) -> Finding:
    """The finding on a call of a model-local function that does not fit it (``call_mismatch``'s text)."""
    return Finding(FUNCTION_CALL, "a call fits its function", mismatch, {},
                   "call the function with its inputs and every output it declares")


def read_onnx(source: Any, registry, load_external_data: bool = False, light: bool = False) -> ModelGraph:
    """Read an ONNX model into a ``ModelGraph`` (nothing is written to the model).

    ``light``: named dims become ``names.Name``s, for a light check (``check.check_model``)."""
    model, path, stored = load_model(source, load_external_data)
    opsets = {normalize_domain(imp.domain): int(imp.version) for imp in model.opset_import}
    graph = ModelGraph(path=path, format="onnx", opsets=opsets, proto=stored)
    reader = _Reader(graph, registry, Functions(model), light)
    wf, graph.produced = walk_main(reader, model)   # read in one walk, its well-formedness checked on the way
    graph.violations.extend(wf.violations)
    graph.notes.extend(wf.notes)
    if not load_external_data:
        graph.notes.extend(missing_external_data(model.graph.initializer, path))
    if any(getattr(v, "constraint", "") == TOPOLOGICAL for v in wf.violations):
        sort_topologically(graph)   # G2 is the finding; the rest is checked in the order onnxruntime runs it
    if reader.needs_onnx:
        from .onnx_forward import NodeInference
        graph.infer_node = NodeInference.of_model(model)
    return graph


def missing_external_data(initializers: Any, path: str) -> list[str]:
    """A note for each external data file the initializers name that is not beside the model (checked
    without it: the types say all a check reads, but onnxruntime cannot load the model)."""
    if not path or path == "<ModelProto>":
        return []
    base, missing = os.path.dirname(os.path.abspath(path)), {}
    for t in initializers:
        if t.data_location == 1:   # TensorProto.EXTERNAL
            loc = next((e.value for e in t.external_data if e.key == "location"), "")
            if loc and loc not in missing and not os.path.isfile(os.path.join(base, loc)):
                missing[loc] = t.name
    return [f"external data {loc!r} (initializer {name!r}) is not beside the model: checked from the tensors' types, "
            "but a runtime cannot load the model without it" for loc, name in missing.items()]


class _Reader:
    """Walks a graph and its subgraphs into ``graph``: sources, declarations, nodes in order
    (a subgraph's nodes before the node that owns it), model-local function calls inlined."""

    def __init__(self, graph: ModelGraph, registry, functions: Functions, light: bool = False):
        self.graph, self.registry, self.functions, self.light = graph, registry, functions, light
        self.needs_onnx = False   # a node without a spec: onnx's per-node inference is needed
        self.counter = 0
        # a decoder's layers repeat their attributes and constants: each distinct one is read once, by its
        # bytes, and its value is one object (never changed: a node's attributes and a type are read only)
        self._attrs: dict[tuple, dict[str, Any]] = {}
        self._constants: dict[tuple[str, str, bytes], TensorType | None] = {}   # (op, domain as written, bytes)
        # (op, domain as written) -> (domain, has a spec, the reader of a source node or None)
        self._ops: dict[tuple[str, str], tuple[str, bool, Any]] = {}

    def walk(self, gf: GraphFields, scope: str, top: bool) -> None:
        self.declare(gf.proto, top)
        for n in gf.nodes:
            self.visit(n, scope, self.graph.opsets, [])

    def declare(self, g: Any, top: bool) -> None:
        """``g``'s inputs, initializers and declarations (value_info, outputs) into the graph."""
        graph = self.graph
        for i in list(g.input):
            if i.name not in graph.sources:
                graph.sources[i.name] = value_type_from_proto(i.type, i.name, self.light, source=top)
                graph.source_kind[i.name] = "graph input" if top else "subgraph input"
        for init in g.initializer:
            graph.sources[init.name] = const_type(init, init.name)
            graph.source_kind[init.name] = "initializer"
        for vi in g.value_info:
            graph.declared[vi.name] = Declaration(vi.name, value_type_from_proto(vi.type, vi.name, self.light), "value_info")
        for o in g.output:
            if o.type.WhichOneof("value"):
                graph.declared.setdefault(o.name, Declaration(o.name, value_type_from_proto(o.type, o.name, self.light),
                                                              "graph output" if top else "subgraph output"))

    def visit(self, n: NodeFields, scope: str, ops: dict[str, int], calls: list) -> None:
        idx = self.counter
        self.counter += 1
        op = n.op_type
        known = self._ops.get((op, n.domain))
        if known is None:
            domain = normalize_domain(n.domain)
            known = self._ops[(op, n.domain)] = (domain, self.registry.has_op(op, domain), _SOURCE_NODES.get((domain, op)))
        domain, has_spec, source = known
        fn = self.functions.called(n) if self.functions.by_key else None
        if fn is not None:
            self.call(n, fn, idx, domain, scope, ops, calls)
            return
        if source is not None and n.output:
            t = self.source(n, source)
            if t is not None:   # a Constant is a source, as an initializer is
                self.graph.sources[n.output[0]] = t
                self.graph.source_kind[n.output[0]] = "constant"
                return
        full = _full_name(n.name, op, scope, idx)
        if len(n.subgraphs) > 1:   # an If's branches may each make a tensor of the same name
            n = n._replace(subgraphs=distinct_siblings(n.subgraphs, full, self.graph.shadowed))
        node = _model_node(n, op, full, scope, idx, domain, ops, self.attributes(n))
        for aname, k, sg in n.subgraphs:
            attr = aname if k is None else f"{aname}[{k}]"
            self.graph.regions[f"{full}/{attr}"] = (node, attr)
            self.walk(sg, f"{full}/{attr}", False)
        self.needs_onnx |= not has_spec
        self.graph.nodes.append(node)

    def call(self, n: NodeFields, fn: Any, idx: int, domain: str, scope: str, ops: dict[str, int], calls: list) -> None:
        """A call of the model-local function ``fn``: its body, at the call site; a call that does not
        fit its function is a finding, its outputs unknown."""
        mismatch = call_mismatch(n, fn)
        if mismatch is not None:
            full = _full_name(n.name, n.op_type, scope, idx)
            node = _model_node(n, n.op_type, full, scope, idx, domain, ops, self.attributes(n))
            node.findings = [*node.findings, call_finding(mismatch)]
            self.graph.nodes.append(node)
            return
        check_depth(calls, fn)
        inner = self.functions.opsets(fn, ops)
        for body in inline(n, fn):
            self.visit(node_fields(body), scope, inner, [*calls, (fn.domain, fn.name)])

    def attributes(self, n: NodeFields) -> dict[str, Any]:
        """The node's attribute values but its subgraphs, one dict for every node whose attributes are
        the same bytes (a node with a subgraph has its own)."""
        if not n.attribute:
            return {}
        if n.keys is None:   # a node with a subgraph
            return {a.name: attr_value(a) for a in n.attribute if a.type not in (GRAPH, GRAPHS)}
        key = n.keys
        got = self._attrs.get(key)
        if got is None:
            got = self._attrs[key] = {a.name: attr_value(a) for a in n.attribute}
        return got

    def repeat(self, op: str, written: str, attribute: Any, output: str, sound: set) -> bool:
        """Whether a node of ``op`` (in the domain ``written``) with one ``attribute`` is a source node
        that repeats one read before (the same bytes, found sound: in ``sound``, ``Wellformed.sound``);
        then it is counted and ``output`` given that node's type, and nothing more of it is read."""
        known = self._ops.get((op, written))
        if known is None or known[2] is None or self.functions.by_key:
            return False
        raw = attribute.SerializeToString()
        got = self._constants.get((op, written, raw)) if (raw,) in sound else None
        if got is None:
            return False
        self.counter += 1
        self.graph.sources[output] = got
        self.graph.source_kind[output] = "constant"
        return True

    def source(self, n: NodeFields, read: Any) -> TensorType | None:
        """The type and value a source node gives (``read``: its reader), one object for every node of
        the same op and attribute bytes."""
        if len(n.attribute) != 1 or n.keys is None:
            return read(n, n.output[0])
        key = (n.op_type, n.domain, n.keys[0])
        got = self._constants.get(key, False)
        if got is False:
            got = self._constants[key] = read(n, n.output[0])
        return got


# the nodes that are sources, as initializers are, by (domain, op): the type and value they give their output
_SOURCE_NODES = {("ai.onnx", "Constant"): constant_node_value}
