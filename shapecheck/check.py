"""Model validation: every node with a spec, checked by the solver, in one forward pass.

Inference is the source of truth: a tensor's type comes from the graph inputs,
initializers and constants, then from the specs (for nodes shapecheck knows) or from
onnx's inference (for the rest), and is a fresh unknown where neither knows.
Declarations (``value_info``, declared graph outputs, IR ports) are *claims*: each is
compared with the inferred type; it may only fill in what inference left unknown.

>>> import onnx
>>> from onnx import helper, TensorProto as T
>>> g = helper.make_graph([helper.make_node("ScatterND", ["d", "i", "u"], ["y"])], "g",
...     [helper.make_tensor_value_info("d", T.FLOAT, ["N", 4]),
...      helper.make_tensor_value_info("i", T.INT64, ["M", 1]),
...      helper.make_tensor_value_info("u", T.FLOAT, ["M", 4])],
...     [helper.make_tensor_value_info("y", T.FLOAT, None)])
>>> rep = check_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
>>> rep.summary["valid"], rep.nodes[0].outputs["output"]
(1, 'float[N,4]')
"""
from __future__ import annotations

import gc
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from .errors import UsageError
from .findings import OPSET
from .frontends.graph import Declaration, ModelGraph, ModelNode, NodeInferenceError, is_dead
from .result import Finding, Indexable
from .solve_cache import SolveCache, signature_of
from .solver import contradiction_of, equalities, output_slots
from .notation.compile import Cond, compare_dims
from .notation.load import Registry, default_registry
from .types import TensorType, dim_str, is_unknown, tensor_type_of


@dataclass
class NodeReport(Indexable):
    name: str
    op_type: str
    domain: str
    opset: int | None
    spec: str
    status: str
    location: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    conditions: list[str] = field(default_factory=list)
    violations: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    inputs: dict[str, dict[str, str]] = field(default_factory=dict)
    reason: str = ""          # why an "unchecked" node was not checked
    # constraints not proved because they read values known only at run time (checked by the runtime)
    runtime_checks: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "op_type": self.op_type, "domain": self.domain, "opset": self.opset,
             "spec": self.spec, "status": self.status, "location": self.location,
             "inputs": self.inputs, "outputs": self.outputs, "conditions": self.conditions,
             "violations": [v.to_dict() for v in self.violations],
             "warnings": [w.to_dict() for w in self.warnings], "runtime_checks": list(self.runtime_checks)}
        if self.reason:
            d["reason"] = self.reason
        return d


@dataclass
class DeclarationReport(Indexable):
    """One declaration compared with inference."""

    tensor: str
    node: str
    kind: str            # graph output | value_info | subgraph output | port
    declared: str
    inferred: str
    status: str          # agrees | refines | condition | contradicts
    severity: str        # info | warning | error
    message: str = ""
    fix: str = ""
    conditions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = {"tensor": self.tensor, "node": self.node, "kind": self.kind, "declared": self.declared,
             "inferred": self.inferred, "status": self.status, "severity": self.severity}
        for key in ("message", "fix"):
            if getattr(self, key):
                d[key] = getattr(self, key)
        if self.conditions:
            d["conditions"] = self.conditions
        return d


@dataclass
class ModelReport(Indexable):
    model: str
    format: str
    strict: bool = False
    nodes: list[NodeReport] = field(default_factory=list)
    assumptions: list[dict[str, Any]] = field(default_factory=list)
    declarations: list[DeclarationReport] = field(default_factory=list)
    violations: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=dict)
    coverage: dict[str, Any] = field(default_factory=dict)
    types: dict[str, TensorType] = field(default_factory=dict, repr=False)

    @property
    def failed(self) -> bool:
        if self.violations or any(n.status == "invalid" for n in self.nodes):
            return True
        if any(d.severity == "error" for d in self.declarations):
            return True
        if self.strict and (any(a["kind"] == "condition" for a in self.assumptions)
                            or any(d.status == "contradicts" for d in self.declarations)
                            or any(n.status == "unchecked" for n in self.nodes)):
            return True
        return False

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "format": self.format, "strict": self.strict,
                "nodes": [n.to_dict() for n in self.nodes], "assumptions": self.assumptions,
                "declarations": [d.to_dict() for d in self.declarations if d.status != "agrees"],
                "violations": [v.to_dict() for v in self.violations], "notes": self.notes,
                "summary": self.summary, "coverage": self.coverage, "ok": not self.failed}


# ---------------------------------------------------------------- entry points

def load_graph(model: Any, registry: Registry, load_external_data: bool = False) -> ModelGraph:
    """Pick the frontend by file type: ``.xml`` is OpenVINO IR, anything else ONNX."""
    if isinstance(model, (str, Path)) and str(model).lower().endswith(".xml"):
        from .frontends.openvino_ir import read_ir
        return read_ir(model, registry)
    from .frontends.onnx_model import read_onnx
    return read_onnx(model, registry, load_external_data)


def check_model(model: Any, *, strict: bool = False, registry: Registry | None = None,
                load_external_data: bool = False, output: str | None = None,
                specs: list[str] | str | None = None, runtime: str | None = None,
                pause_gc: bool = False) -> ModelReport:
    """Check every node of a model (path or ModelProto) that has a spec; see ``ModelReport``.

    ``output`` writes an annotated copy (ONNX only); ``specs`` adds spec directories;
    ``runtime`` (``onnxruntime``, ``openvino``) warns about nodes that runtime cannot run.
    ``pause_gc`` pauses the cyclic garbage collector during the check (the CLI does; it is
    faster on large models, but it changes process-wide state, so library callers opt in).
    """
    if registry is None:
        from .notation.load import registry_with
        registry = registry_with(specs) if specs else default_registry()
    with no_gc_pauses() if pause_gc else nullcontext():
        graph = load_graph(model, registry, load_external_data)
        report = check_graph(graph, registry, strict, runtime)
    if output:
        if graph.format != "onnx":
            raise UsageError("--output writes ONNX models only; this model is OpenVINO IR")
        from .frontends.onnx_model import write_annotated
        write_annotated(graph.proto, report.types, output, graph.path)
    return report


@contextmanager
def no_gc_pauses():
    """A model check allocates many small objects and frees nothing cyclic: the collector's
    repeated passes over a growing heap would cost more than the check itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            # what the check allocated goes straight to the oldest generation, so the first
            # collection after it does not walk every object of the report
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def annotate(model: Any, *, registry: Registry | None = None):
    """A copy of an ONNX model whose value_info and outputs carry shapecheck's inferred types."""
    import onnx
    from .frontends.onnx_model import annotate_proto
    registry = registry or default_registry()
    graph = load_graph(model, registry)
    report = check_graph(graph, registry, False)
    m = onnx.ModelProto()
    m.CopyFrom(graph.proto)
    annotate_proto(m, {k: v for k, v in report.types.items() if v.dtype is not None})
    return m


# ---------------------------------------------------------------- the forward pass

def check_graph(graph: ModelGraph, registry: Registry, strict: bool = False, runtime: str | None = None) -> ModelReport:
    portability = None
    if runtime:
        from .runtimes import load_runtime
        portability = load_runtime(runtime)
    report = ModelReport(model=graph.path, format=graph.format, strict=strict, notes=list(graph.notes))
    env: dict[str, TensorType] = dict(graph.sources)
    origin: dict[str, str] = {k: v for k, v in graph.source_kind.items()}
    assumptions: dict[str, dict[str, None]] = {}   # condition -> the nodes needing it, in order
    refinements: set[str] = set()
    cache = SolveCache()
    folds: dict[tuple, Any] = {}      # constant folding, by spec, input values and attributes
    resolved: dict[tuple, tuple] = {}
    skipped = dead = 0

    coverage: dict[str, dict[str, int]] = {}   # op type -> how its nodes were covered -> count

    def cover(op: str, how: str) -> None:
        row = coverage.setdefault(op, {})
        row[how] = row.get(how, 0) + 1

    relations: dict[str, Any] = {}   # condition text -> its relation (never parsed back from the text)

    def assume(text: str, who: str, refinement: bool = False, relation: Any = None) -> None:
        if refinement:
            refinements.add(text)
        assumptions.setdefault(text, {})[who] = None
        if relation is not None:
            relations.setdefault(text, relation)

    report.violations.extend(graph.violations)
    for node in graph.nodes:
        if node.scope and is_dead(graph, node.scope, env):
            dead += 1   # a branch that never runs: its outputs are never produced, its declarations claim nothing
            continue
        if node.findings:   # the frontend found the node itself wrong (an undeclared domain)
            _node_failed(report, env, origin, node, node.findings)
            continue
        spec, resolve_error = resolved.get((node.op_type, node.domain, node.opset, node.version)) or _resolve(registry, node, resolved)
        unchecked = spec is None and resolve_error is not None and resolve_error.startswith(_UNCHECKED)
        if unchecked:
            # a spec'd operator at a version no spec describes: never checked with another version's spec
            report.nodes.append(NodeReport(node.name, node.op_type, node.domain, node.opset, "", "unchecked",
                                           node.location, reason=resolve_error[len(_UNCHECKED):]))
            resolve_error = None
        if spec is None and resolve_error is None:
            skipped += 0 if unchecked else 1
            try:
                forward = graph.infer_node(node, env) if graph.infer_node is not None else None
            except NodeInferenceError as exc:
                skipped -= 0 if unchecked else 1
                cover(node.op_type, "unknown")
                _node_failed(report, env, origin, node, [Finding(
                    "onnx-inference", f"onnx's shape inference for {node.op_type} accepts the node", str(exc),
                    {i: str(env[i]) for i in node.inputs if i in env},
                    "make the inputs fit the operator (onnx.checker and onnxruntime refuse this node too)")])
                continue
            cover(node.op_type, "fallback" if forward else "unknown")
            for t in node.outputs:
                if not t:
                    continue
                whole = graph.fallback.get(t)
                if forward and t in forward:
                    env[t], origin[t] = _fill(forward[t][0], whole), forward[t][1]
                elif whole is not None:
                    env[t] = whole
                    origin[t] = "onnx inference" if graph.format == "onnx" else "declared"
                else:
                    env[t], origin[t] = TensorType(None, None), "unknown"
                _check_declaration(graph, report, env, origin, node, t, assume)
            continue
        if resolve_error is not None:
            _node_failed(report, env, origin, node, [Finding(
                OPSET, f"{node.op_type} exists at opset {node.opset}", resolve_error, {},
                "raise the model's opset_import or use another operator")])
            continue

        cover(node.op_type, "spec")
        types, sources = _bind_inputs(graph, spec, node, env, origin)
        n_out = len(node.outputs)
        result = cache.solve(spec, types, node.attrs, opset=node.opset, unknown_attrs="finding", output_count=n_out,
                              registry=registry)
        slots = output_slots(spec, n_out)
        outputs = _fresh_per_node(result.outputs, types, node.name,
                                  {key: t for (key, _d, _p), t in zip(slots, node.outputs) if t})
        folded = _fold(spec, types, node.attrs, n_out, folds) if result.status == "valid" else None
        nr = NodeReport(node.name, node.op_type, node.domain, node.opset, spec.name, result.status, node.location,
                        {k: str(v) for k, v in outputs.items()}, list(result.conditions),
                        list(result.violations), list(result.warnings), sources,
                        runtime_checks=result.runtime_checks)
        if portability is not None and result.status != "invalid":
            nr.warnings.extend(portability.warnings(spec, types, node.attrs))
        report.nodes.append(nr)
        for c in result.conditions:
            assume(c, node.name, relation=result.relations.get(c))
        for (key, _decl, _pos), tname in zip(slots, node.outputs):
            if tname:
                env[tname] = folded[key] if folded and key in folded else _fill(outputs[key], graph.fallback.get(tname))
                origin[tname] = "folded" if folded and key in folded else "inferred"
                _check_declaration(graph, report, env, origin, node, tname, assume)

    report.assumptions = [{"condition": c, "kind": "refinement" if c in refinements else "condition",
                           "nodes": list(ns)} for c, ns in assumptions.items()]
    eqs = equalities((c, relations.get(c)) for c in assumptions if c not in refinements)
    if len(eqs) >= 2:
        bad = contradiction_of(eqs, lambda c: list(assumptions.get(c, {})))
        if bad is not None:
            bad.message = "conditions that different nodes need cannot all hold, so no input makes the model valid"
            report.violations.append(bad)
    report.types = env
    counts = {"checked": 0, "valid": 0, "conditional": 0, "invalid": 0, "unchecked": 0, "skipped": skipped}
    if dead:
        counts["dead"] = dead
    for n in report.nodes:
        counts[n.status] = counts.get(n.status, 0) + 1
    counts["checked"] = len(report.nodes) - counts["unchecked"]
    report.summary = counts
    report.coverage = _coverage_summary(coverage, dead)
    return report


def _node_failed(report: ModelReport, env, origin, node: ModelNode, findings: list[Finding]) -> None:
    """A node found invalid before any spec: reported with ``findings``, its outputs unknown."""
    nr = NodeReport(node.name, node.op_type, node.domain, node.opset, "", "invalid", node.location)
    nr.violations.extend(findings)
    report.nodes.append(nr)
    for t in node.outputs:
        if t:
            env[t], origin[t] = TensorType(None, None), "unknown"


def _coverage_summary(by_op: dict[str, dict[str, int]], dead: int) -> dict[str, Any]:
    """How each node's outputs were obtained: by a spec, by onnx's per-node inference, or not at all."""
    total = {how: sum(r.get(how, 0) for r in by_op.values()) for how in ("spec", "fallback", "unknown")}
    return {**total, "dead": dead, "by_op": {op: dict(sorted(r.items())) for op, r in sorted(by_op.items())}}


def _bind_inputs(graph: ModelGraph, spec, node: ModelNode, env: dict, origin: dict) -> tuple[dict, dict]:
    """The node's input tensors as the spec's named inputs (a variadic one takes the rest)."""
    types: dict[str, Any] = {}
    sources: dict[str, dict[str, str]] = {}

    def one(tname: str) -> TensorType:
        t = env.get(tname)
        if t is None:
            origin.setdefault(tname, "unknown")
            return TensorType(None, None)
        return t

    for i, decl in enumerate(spec.inputs):
        if decl.variadic:
            names = [n for n in node.inputs[i:] if n]
            if names:
                types[decl.name] = tuple(one(n) for n in names)
                for j, n in enumerate(names):
                    sources[f"{decl.name}[{j}]"] = {"tensor": n, "type": str(env.get(n, "?")),
                                                    "source": _source_label(origin.get(n, "unknown"))}
                continue
            tname = ""
        else:
            tname = node.inputs[i] if i < len(node.inputs) else ""
        if not tname:
            if decl.optional:
                continue
            raise UsageError(f"{graph.path}: {node.location} ({node.op_type}): input {i} ({decl.name}) is missing; "
                             f"{spec.name} needs {', '.join(d.name for d in spec.inputs)}")
        t = one(tname)
        types[decl.name] = t
        sources[decl.name] = {"tensor": tname, "type": str(t), "source": _source_label(origin.get(tname, "unknown"))}
    return types, sources


def _fresh_per_node(outputs: dict[str, TensorType], inputs: dict[str, Any], node: str,
                    tensors: dict[str, str]) -> dict[str, TensorType]:
    """Unknown dims a spec created (a run-time length, an unresolvable broadcast) belong to this node alone.

    Solve results are cached by signature, so two nodes would otherwise share the very same
    unknown and later look equal: each node gets its own copies.
    """
    created: set = set()
    for t in outputs.values():
        for d in (t.shape or ()) + (t.sym or ()):
            if isinstance(d, sympy.Basic):
                created |= {s for s in d.free_symbols if isinstance(s, sympy.Dummy)}
    if not created:
        return outputs
    for t in inputs.values():
        for x in (t if isinstance(t, tuple) else (t,)):
            for d in (x.shape or ()) + (x.sym or ()):
                if isinstance(d, sympy.Basic):
                    created -= d.free_symbols
    if not created:
        return outputs
    labels = {}   # a dim that is a bare unknown is named by where it stands, as the frontends name theirs
    for key, t in outputs.items():
        for i, d in enumerate(t.shape or ()):
            if d in created and d not in labels and key in tensors:
                labels[d] = f"{tensors[key]}.shape[{i}]"
    fresh = {s: sympy.Dummy(labels.get(s, f"{node}.{s.name}"), integer=True, nonnegative=True) for s in created}

    def sub(dims):
        return None if dims is None else tuple(d.xreplace(fresh) if isinstance(d, sympy.Basic) else d for d in dims)
    return {k: TensorType(t.dtype, sub(t.shape), t.value, sub(t.sym)) for k, t in outputs.items()}


_MAX_FOLD = 4096   # elements: larger results are left symbolic


def _fold(spec, types: dict[str, Any], attrs: dict, n_out: int, memo: dict) -> dict[str, TensorType] | None:
    """Outputs computed by the spec's own kernel when every input is a small constant.

    A decoder folds the same constant subexpressions in every layer: results are kept by the
    spec, the input values and the attributes.
    """
    if not spec.semantics or not types:
        return None
    arrays: dict[str, Any] = {}
    for name, t in types.items():
        items = t if isinstance(t, tuple) else (t,)
        if any(x.value is None or x.value.size > _MAX_FOLD for x in items):
            return None
        arrays[name] = tuple(x.value for x in items) if isinstance(t, tuple) else t.value
    try:
        key = (spec.name, n_out, tuple((n, signature_of(t)) for n, t in sorted(types.items())),
               tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in attrs.items())))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in memo:
        return memo[key]
    from .executor import run_spec
    try:
        out, _ = run_spec(spec, arrays, attrs, output_count=n_out)
        folded = {k: tensor_type_of(v) for k, v in out.items() if isinstance(v, np.ndarray) and v.size <= _MAX_FOLD}
    except Exception:  # noqa: BLE001 - folding is an optimisation: the solver's result stands without it
        folded = None
    if key is not None:
        memo[key] = folded
    return folded


def _fill(t: TensorType, other: TensorType | None) -> TensorType:
    """``t`` with what it left unknown taken from ``other`` (whole-graph inference), when they agree on rank."""
    if other is None:
        return t
    dtype = t.dtype or other.dtype
    if t.shape is None:
        return TensorType(dtype, other.shape, t.value)
    if other.shape is not None and len(other.shape) == len(t.shape):
        shape = tuple(o if is_unknown(d) and not is_unknown(o) else d for d, o in zip(t.shape, other.shape))
        return TensorType(dtype, shape, t.value, t.sym)
    return TensorType(dtype, t.shape, t.value, t.sym)


_UNCHECKED = "unchecked: "


def _resolve(registry: Registry, node: ModelNode, memo: dict) -> tuple:
    """(spec or None, error or None) for a node, remembered per (op, domain, opset).

    An error starting with ``_UNCHECKED`` means the node is left unchecked (with that reason):
    its version is unreadable, beyond the domain's highest known opset, or older than every
    spec where the domain says so (``specs/<domain>/_domain.toml``).
    """
    spec = error = None
    facts = getattr(registry, "domains", {}).get(node.domain, {})
    top = facts.get("highest_opset")
    if registry.has_op(node.op_type, node.domain):
        known = ", ".join(s.name for s in registry.versions(node.op_type, node.domain))
        if node.opset is None:
            error = (f"{_UNCHECKED}version {node.version or '(none)'!r} is not opsetN, so shapecheck cannot tell which "
                     f"version of {node.op_type} this is (its specs: {known})")
        elif top is not None and node.opset > top:
            error = (f"{_UNCHECKED}version opset{node.opset} is beyond opset{top}, the newest {node.domain} opset "
                     f"shapecheck knows; no spec describes it (its specs: {known})")
        else:
            try:
                spec = registry.resolve(node.op_type, node.opset, node.domain)
            except UsageError as exc:
                error = str(exc)
                if facts.get("before_first_version") == "unchecked":
                    error = (f"{_UNCHECKED}no spec of {node.op_type} is at or below opset{node.opset} "
                             f"(its specs: {known})")
    memo[(node.op_type, node.domain, node.opset, node.version)] = (spec, error)
    return spec, error


def _source_label(origin: str) -> str:
    if origin in ("graph input", "subgraph input", "initializer", "constant"):
        return "declared" if origin.endswith("input") else origin
    return origin


def _check_declaration(graph: ModelGraph, report: ModelReport, env, origin, node: ModelNode, tname: str, assume) -> None:
    decl: Declaration | None = graph.declared.get(tname)
    if decl is None:
        return
    inf = env[tname]
    d = decl.type
    if d.dtype == inf.dtype and d.shape == inf.shape and d.shape is not None:
        # the common case, decided without comparing dim by dim
        text = str(d)
        report.declarations.append(DeclarationReport(tname, node.name, decl.kind, text, text, "agrees", "info"))
        return
    contradictions: list[str] = []
    conds: list[tuple[str, Any]] = []
    refined: list[str] = []
    dtype = inf.dtype
    if d.dtype and inf.dtype and d.dtype != inf.dtype:
        contradictions.append(f"element type {d.dtype} declared, {inf.dtype} inferred")
    elif d.dtype and not inf.dtype:
        dtype = d.dtype
        refined.append(f"element type = {d.dtype}")
    shape = inf.shape
    if d.shape is not None and inf.shape is None:
        shape = d.shape
        refined.append(f"rank = {len(d.shape)}")
    elif d.shape is not None and inf.shape is not None:
        if len(d.shape) != len(inf.shape):
            contradictions.append(f"rank {len(d.shape)} declared, {len(inf.shape)} inferred")
        else:
            new = list(inf.shape)
            for i, (dd, ii) in enumerate(zip(d.shape, inf.shape)):
                if is_unknown(dd) or dd == ii:
                    continue
                if is_unknown(ii):
                    new[i] = dd
                    refined.append(f"dim {i} = {dim_str(dd)}")
                    continue
                verdict = compare_dims(dd, "==", ii)
                if verdict is False:
                    contradictions.append(f"dim {i}: {dim_str(dd)} declared, {dim_str(ii)} inferred")
                elif isinstance(verdict, Cond):
                    conds.extend((str(r), r) for r in verdict.relations())
            shape = tuple(new)
    if contradictions:
        severity = "error" if decl.kind == "graph output" else "warning"
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, str(d), str(inf), "contradicts", severity,
            f"{decl.kind} {tname!r} is declared {d} but inference gives {inf}: " + "; ".join(contradictions),
            f"declare {tname!r} as {inf}"))
        return
    if conds:
        texts = [t for t, _ in conds]
        for c, rel in conds:
            assume(c, f"{tname} ({decl.kind})", relation=rel)
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, str(d), str(inf), "condition", "info",
            f"the {decl.kind} of {tname!r} names its dims differently from inference; valid only if " + ", ".join(texts),
            f"declare {tname!r} as {inf}", texts))
        return
    if refined:
        env[tname] = TensorType(dtype, shape, inf.value)
        for r in refined:
            assume(f"{tname} {r}, taken from {decl.kind}", f"{tname} ({decl.kind})", refinement=True)
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, str(d), str(inf), "refines", "info",
            f"inference left part of {tname!r} unknown; the {decl.kind} fills in " + ", ".join(refined)))
        return
    report.declarations.append(DeclarationReport(tname, node.name, decl.kind, str(d), str(inf), "agrees", "info"))
