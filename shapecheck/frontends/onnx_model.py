"""ONNX model -> ``ModelGraph``: nodes with their opsets, types from inputs and constants.

External data is not loaded unless asked (its initializers then have no values, only
types).  Nodes shapecheck has no spec for go to onnx's per-node inference
(``onnx_forward``), on the types inferred so far, never on declarations.  The model passed
in is never modified.
"""
from __future__ import annotations

import os
from typing import Any, NamedTuple

from ..atomic import copy_atomic, refuse_inputs, write_atomic
from ..errors import UsageError
from ..findings import DOMAIN, FUNCTION_CALL, TOPOLOGICAL
from ..result import Finding
from ..registry import normalize_domain
from ..containers import is_container, kind_of
from ..types import TensorType
from .graph import Declaration, ModelGraph, ModelNode, model_file, sort_topologically
from .onnx_fields import GraphFields, NodeFields, graph_fields, node_fields
from .onnx_functions import Functions, call_mismatch, check_depth, inline
from .onnx_proto import is_model_proto, is_protobuf_file, parse_model
from .onnx_types import attr_value, const_type, constant_node_value, value_type_from_proto
from .wellformed import check_wellformed


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


_GRAPH, _GRAPHS = 5, 10   # onnx.AttributeProto.GRAPH / GRAPHS (fixed by the protobuf schema)


def _subgraphs(nodes):
    """(node, attribute name, index or None, subgraph) for every subgraph of ``nodes``."""
    for n in nodes:
        for a in n.attribute:
            if a.type == _GRAPH:
                yield n, a.name, None, a.g
            elif a.type == _GRAPHS:
                for k, sg in enumerate(a.graphs):
                    yield n, a.name, k, sg


def _model_node(n: NodeFields, op: str, full: str, scope: str, idx: int, domain: str, opsets: dict[str, int]) -> ModelNode:
    """One node as a ``ModelNode``; a domain the model does not declare is a finding on it."""
    findings = undeclared_domain(op, n.domain, domain, opsets)
    attrs: dict[str, Any] = {}
    for a in n.attribute:
        if a.type not in (_GRAPH, _GRAPHS):
            attrs[a.name] = attr_value(a)
    node = ModelNode(full, op, domain, opsets.get(domain), n.input, n.output, attrs, scope,
                     f"node {full!r} (#{idx})", proto=n.proto, findings=findings)
    if n.subgraphs:
        subs = [(a if k is None else f"{a}[{k}]", sg.proto) for a, k, sg in n.subgraphs]
        node.branches = {a: [o.name for o in sg.output] for a, sg in subs}
        node.branch_inputs = {a: [i.name for i in sg.input] for a, sg in subs}
    return node


def undeclared_domain(op: str, written: str, domain: str, opsets: dict[str, int]) -> list[Finding]:
    """The finding on a node of ``domain`` (as the model writes it: ``written``) when the model's
    opset_import does not declare it; none when it does."""
    if domain in opsets:
        return []
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
    fields = graph_fields(model.graph)
    wf = check_wellformed(model, fields)
    graph.violations.extend(wf.violations)
    graph.notes.extend(wf.notes)
    reader = _Reader(graph, registry, Functions(model), light)
    reader.walk(fields, "", True)
    if any(getattr(v, "constraint", "") == TOPOLOGICAL for v in wf.violations):
        sort_topologically(graph)   # G2 is the finding; the rest is checked in the order onnxruntime runs it
    if reader.needs_onnx:
        from .onnx_forward import NodeInference
        graph.infer_node = NodeInference.of_model(model)
    return graph


class _Reader:
    """Walks a graph and its subgraphs into ``graph``: sources, declarations, nodes in order
    (a subgraph's nodes before the node that owns it), model-local function calls inlined."""

    def __init__(self, graph: ModelGraph, registry, functions: Functions, light: bool = False):
        self.graph, self.registry, self.functions, self.light = graph, registry, functions, light
        self.needs_onnx = False   # a node without a spec: onnx's per-node inference is needed
        self.counter = 0

    def walk(self, gf: GraphFields, scope: str, top: bool) -> None:
        graph, g = self.graph, gf.proto
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
        for n in gf.nodes:
            self.visit(n, scope, graph.opsets, [])

    def visit(self, n: NodeFields, scope: str, ops: dict[str, int], calls: list) -> None:
        idx = self.counter
        self.counter += 1
        op, name = n.op_type, n.name
        full = (name or f"{op}_{idx}") if not scope else f"{scope}/{name or f'{op}_{idx}'}"
        domain = normalize_domain(n.domain)
        fn = self.functions.called(n) if self.functions.by_key else None
        mismatch = call_mismatch(n, fn) if fn is not None else None
        if mismatch is not None:   # a call that does not fit its function: a finding, its outputs unknown
            node = _model_node(n, op, full, scope, idx, domain, ops)
            node.findings.append(call_finding(mismatch))
            self.graph.nodes.append(node)
            return
        if fn is not None:   # a model-local function: its body, at the call site
            check_depth(calls, fn)
            inner = self.functions.opsets(fn, ops)
            for body in inline(n, fn):
                self.visit(node_fields(body), scope, inner, [*calls, (fn.domain, fn.name)])
            return
        source = _SOURCE_NODES.get((domain, op))
        if source is not None:
            out = n.output
            t = source(n, out[0]) if out else None
            if t is not None:   # a Constant is a source, as an initializer is
                self.graph.sources[out[0]] = t
                self.graph.source_kind[out[0]] = "constant"
                return
        node = _model_node(n, op, full, scope, idx, domain, ops)
        for aname, k, sg in n.subgraphs:
            attr = aname if k is None else f"{aname}[{k}]"
            self.graph.regions[f"{full}/{attr}"] = (node, attr)
            self.walk(sg, f"{full}/{attr}", False)
        self.needs_onnx |= not self.registry.has_op(op, domain)
        self.graph.nodes.append(node)


# the nodes that are sources, as initializers are, by (domain, op): the type and value they give their output
_SOURCE_NODES = {("ai.onnx", "Constant"): constant_node_value}


def write_annotated(model, types: dict[str, TensorType], out_path: str, source_path: str,
                    metadata: dict[str, str] | None = None) -> None:
    """Write a copy of ``model`` whose value_info and graph outputs carry the inferred types.

    The copy is serialized here, never through ``onnx.save``: that writes the raw data of
    external tensors back into their data files.  External references stay as they are,
    and the output may be none of the model's files (the model, its external data).
    """
    import onnx
    inputs = [source_path, *external_files(model, source_path)] if source_path and source_path != "<ModelProto>" else []
    refuse_inputs(out_path, inputs, "--output")
    m = onnx.ModelProto()
    m.CopyFrom(model)
    annotate_proto(m, types)
    for key, value in (metadata or {}).items():   # the model's own entries of these keys are replaced
        for p in [p for p in m.metadata_props if p.key == key]:
            m.metadata_props.remove(p)
        m.metadata_props.add(key=key, value=value)
    try:
        data = m.SerializeToString()
    except ValueError as exc:  # protobuf's 2 GB limit
        raise UsageError(f"cannot write {out_path}: the annotated model cannot be serialized ({exc})") from None
    write_atomic(out_path, data, inputs=inputs, what="--output")
    _copy_external_data(model, source_path, out_path, inputs)


def _copy_external_data(model, source_path: str, out_path: str, inputs: list[str]) -> None:
    """Beside an annotated copy written into another folder, a copy of the model's external data at
    the same relative locations: onnxruntime reads external data only from the model's own folder."""
    if not source_path or source_path == "<ModelProto>":
        return
    src_dir = os.path.dirname(os.path.abspath(source_path))
    out_dir = os.path.dirname(os.path.abspath(out_path))
    if os.path.realpath(src_dir) == os.path.realpath(out_dir):
        return
    for path in external_files(model, source_path):
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(src_dir))
        if rel.startswith(os.pardir) or os.path.isabs(rel):
            raise UsageError(f"{source_path}: external data {path!r} lies outside the model's folder; shapecheck "
                             "reads nothing there, so the annotated copy cannot carry it: write it beside the model")
        if os.path.isfile(path):
            copy_atomic(path, os.path.join(out_dir, rel), inputs=inputs, what="--output")


def external_files(model, source_path: str) -> list[str]:
    """The files a model's external tensors name, resolved against the model's directory."""
    import onnx
    base = os.path.dirname(os.path.abspath(source_path))
    out: list[str] = []

    def tensors(g):
        yield from g.initializer
        for n in g.node:
            for a in n.attribute:
                if a.HasField("t"):
                    yield a.t
                yield from a.tensors
                if a.type == onnx.AttributeProto.GRAPH:
                    yield from tensors(a.g)
                for sg in a.graphs:
                    yield from tensors(sg)
    for t in tensors(model.graph):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            loc = next((e.value for e in t.external_data if e.key == "location"), "")
            if loc:
                path = os.path.join(base, loc)
                if path not in out:
                    out.append(path)
    return out


_INT64 = 1 << 63


def annotate_proto(m, types: dict[str, TensorType]) -> None:
    """Set value_info (and graph outputs) of ``m`` in place to ``types``; a tensor of which nothing
    is known (it may be a sequence) is not written."""

    written: dict[int, Any] = {}   # id of a type -> the value_info type written for it (types are shared)

    def visit(g, top: bool):
        inputs = {i.name for i in g.input} | {i.name for i in g.initializer}
        produced = [o for n in g.node for o in n.output if o]
        outputs = {o.name: o for o in g.output}
        keep = [vi for vi in g.value_info if vi.name not in types or kind_of(types[vi.name]) is None]
        del g.value_info[:]
        g.value_info.extend(keep)
        for name in produced:
            t = types.get(name)
            if t is None or name in inputs or kind_of(t) is None:
                continue
            if name in outputs:
                fill_type_proto(outputs[name].type, t)   # in place: the output's other fields stay
            else:
                vi = g.value_info.add()
                vi.name = name
                done = written.get(id(t))
                if done is None:
                    fill_type_proto(vi.type, t)
                    written[id(t)] = vi.type
                else:
                    vi.type.CopyFrom(done)
        for _n, _a, _k, sg in _subgraphs(g.node):
            visit(sg, False)
    visit(m.graph, True)


def fill_type_proto(tp, t) -> None:
    """Write ``t`` (a tensor, sequence, optional or map type) into the TypeProto ``tp``."""
    from ..types import ONNX_CODE_OF
    from ..dims import dim_str, is_unknown
    if is_container(t):
        tp.ClearField("tensor_type")
        if t.kind == "sequence":
            fill_type_proto(tp.sequence_type.elem_type, t.elem)
        elif t.kind == "optional":
            fill_type_proto(tp.optional_type.elem_type, t.elem)
        else:
            tp.map_type.key_type = ONNX_CODE_OF.get(t.key or "", 0)
            fill_type_proto(tp.map_type.value_type, t.value_type)
        return
    tt = tp.tensor_type
    if t.dtype:
        tt.elem_type = ONNX_CODE_OF[t.dtype]
    tt.ClearField("shape")
    if t.shape is not None:
        shape = tt.shape
        shape.SetInParent()
        for d in t.shape:
            dim = shape.dim.add()
            if type(d) is int:
                if -_INT64 <= d < _INT64:   # a dim past int64 is a finding of its node, never written
                    dim.dim_value = d
            elif not is_unknown(d) and dim_str(d) != "?":
                dim.dim_param = dim_str(d)
