"""The forward pass: every node once, in order, types flowing from the graph's sources.

A node with a spec is solved (cached by signature) and its outputs come from the spec; a
control-flow node takes its subgraphs' outputs (``control_flow``); any other node goes to the
frontend's per-node inference (onnx's, for ONNX ops without a spec), which is counted as the
fallback.  Declarations are compared with what inference gives, never used in its place
except to fill in what it left unknown (``declarations``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..findings import ONNX_INFERENCE, OPSET
from ..frontends import ModelGraph, ModelNode, NodeInferenceError
from ..result import Finding
from ..solver.cache import SolveCache, attrs_key
from ..solver import contradiction_of, equalities, output_slots
from ..registry import Registry
from ..types import TensorType
from ..dims import is_symbolic
from .control_flow import bind, binds, is_dead, is_fixpoint, region_outputs
from .declarations import Names, check_declaration
from .facts import Facts
from .node import UNCHECKED, Unknowns, bind_inputs, fill, fold, resolve
from .reports import ModelReport, NodeReport

if TYPE_CHECKING:
    pass


def check_graph(graph: ModelGraph, registry: Registry, strict: bool = False, runtime: str | None = None) -> ModelReport:
    """Check every node of ``graph``; see ``ModelReport``."""
    return ForwardPass(graph, registry, strict, runtime).run()


class ForwardPass:
    """The state of one model check: types so far, where each came from, conditions needed."""

    def __init__(self, graph: ModelGraph, registry: Registry, strict: bool, runtime: str | None):
        self.graph, self.registry = graph, registry
        self.portability = None
        if runtime:
            from ..runtimes import load_runtime
            self.portability = load_runtime(runtime)
        self.report = ModelReport(model=graph.path, format=graph.format, strict=strict, notes=list(graph.notes))
        self.env: dict[str, TensorType] = dict(graph.sources)
        self.origin: dict[str, str] = dict(graph.source_kind)
        self.assumptions: dict[str, dict[str, None]] = {}   # condition -> the nodes needing it, in order
        self.relations: dict[str, Any] = {}   # condition text -> its relation (never parsed back from the text)
        self.refinements: set[str] = set()
        self.facts = Facts()   # lower bounds the conditions of nodes that always run put on the input dims
        self.coverage: dict[str, dict[str, int]] = {}   # op type -> how its nodes were covered -> count
        self.cache = SolveCache.of(registry)   # shared by every model checked against this registry
        self.resolved: dict[tuple, tuple] = {}
        self.slots: dict[tuple, list] = {}     # (spec, output count) -> output slots
        source_names = _names_in(graph.sources.values())
        self.unknowns = Unknowns(source_names)
        self.names = Names(source_names)   # dim names declarations introduce, defined on first use
        self.skipped = self.dead = 0
        self.entered: set[str] = set()   # subgraph scopes entered (a Loop/Scan body's inputs bound)
        self.owner_index: dict[int, int] | None = None

    def assume(self, text: str, who: str, refinement: bool = False, relation: Any = None) -> None:
        if refinement:
            self.refinements.add(text)
        self.assumptions.setdefault(text, {})[who] = None
        if relation is not None:
            self.relations.setdefault(text, relation)

    def cover(self, op: str, how: str) -> None:
        row = self.coverage.setdefault(op, {})
        row[how] = row.get(how, 0) + 1

    def run(self) -> ModelReport:
        self.report.violations.extend(self.graph.violations)
        self.walk(0, len(self.graph.nodes))
        return self.finish()

    def walk(self, i: int, stop: int) -> None:
        """Nodes ``i`` to ``stop`` in order; a Loop/Scan body met on the way is checked as a region."""
        nodes = self.graph.nodes
        while i < stop:
            node = nodes[i]
            region = self.next_region(node.scope) if node.scope else None
            if region is not None:
                i = self.region(i, region)
                continue
            if node.scope and is_dead(self.graph, node.scope, self.env):
                self.dead += 1   # a branch that never runs: its outputs are never produced, its declarations claim nothing
            elif node.findings:   # the frontend found the node itself wrong (an undeclared domain)
                self.failed(node, node.findings)
            else:
                self.node(node)
            i += 1

    def next_region(self, scope: str) -> str | None:
        """The outermost scope around a node not entered yet whose inputs its owner binds."""
        chain = []
        while scope and scope not in self.entered:
            chain.append(scope)
            scope = scope.rpartition("/")[0]
        for s in reversed(chain):
            if binds(self.graph, s):
                return s
            self.entered.add(s)
        return None

    def region(self, i: int, scope: str) -> int:
        """Check a Loop/Scan body from node ``i`` up to its owner (see ``control_flow``); the
        owner's index, where the walk goes on."""
        owner = self.graph.regions[scope][0]
        if self.owner_index is None:
            self.owner_index = {id(n): k for k, n in enumerate(self.graph.nodes)}
        end = self.owner_index[id(owner)]
        saved = self.snapshot()
        self.bind(scope, exact=True)
        self.walk(i, end)
        if not is_fixpoint(owner, self.env):
            self.restore(saved)
            self.bind(scope, exact=False)
            self.walk(i, end)
        return end

    def bind(self, scope: str, exact: bool) -> None:
        self.entered.add(scope)
        for name, t in bind(self.graph, scope, self.env, exact).items():
            self.env[name], self.origin[name] = t, "owner input"

    def snapshot(self) -> tuple:
        return (len(self.report.nodes), len(self.report.declarations), {k: dict(v) for k, v in self.assumptions.items()},
                dict(self.relations), set(self.refinements), {k: dict(v) for k, v in self.coverage.items()},
                self.unknowns.snapshot(), self.skipped, self.dead, set(self.entered), self.facts.snapshot(),
                dict(self.names.bound))

    def restore(self, saved: tuple) -> None:
        (n_nodes, n_decls, self.assumptions, self.relations, self.refinements, self.coverage, unknowns,
         self.skipped, self.dead, self.entered, facts, self.names.bound) = saved
        self.facts.restore(facts)
        del self.report.nodes[n_nodes:], self.report.declarations[n_decls:]
        self.unknowns.restore(unknowns)

    def node(self, node: ModelNode) -> None:
        key = (node.op_type, node.domain, node.opset, node.version)
        spec, error = self.resolved.get(key) or resolve(self.registry, node, self.resolved)
        unchecked = spec is None and error is not None and error.startswith(UNCHECKED)
        if unchecked:
            # a spec'd operator at a version no spec describes: never checked with another version's spec
            self.report.nodes.append(NodeReport(node.name, node.op_type, node.domain, node.opset, "", "unchecked",
                                                node.location, reason=error[len(UNCHECKED):]))
            self.without_spec(node, counted=False)
        elif spec is None and error is None:
            self.without_spec(node, counted=True)
        elif error is not None:
            self.failed(node, [Finding(OPSET, f"{node.op_type} exists at opset {node.opset}", error, {},
                                       "raise the model's opset_import or use another operator")])
        else:
            self.with_spec(node, spec)

    def without_spec(self, node: ModelNode, counted: bool) -> None:
        """Outputs from control flow or the frontend's per-node inference (the fallback), else unknown."""
        for attr in node.branch_inputs:   # a body without nodes: bound here, where its owner is
            scope = f"{node.name}/{attr}"
            if scope not in self.entered and binds(self.graph, scope):
                self.bind(scope, exact=True)
                if not is_fixpoint(node, self.env):
                    self.bind(scope, exact=False)
        try:
            forward = region_outputs(node, self.env)
            if forward is None and self.graph.infer_node is not None:
                forward = self.graph.infer_node(node, self.env)
        except NodeInferenceError as exc:
            self.cover(node.op_type, "unknown")
            self.failed(node, [Finding(
                ONNX_INFERENCE, f"onnx's shape inference for {node.op_type} accepts the node", str(exc),
                {i: str(self.env[i]) for i in node.inputs if i in self.env},
                "make the inputs fit the operator (onnx.checker and onnxruntime refuse this node too)")])
            return
        self.skipped += counted
        self.cover(node.op_type, "fallback" if forward else "unknown")
        if forward:
            named = self.unknowns.own({t: ty for t, (ty, _o) in forward.items()}, {}, node, {t: t for t in forward},
                                      runtime_only=True)
        for t in node.outputs:
            if not t:
                continue
            declared = self.graph.fallback.get(t)
            if forward and t in forward:
                self.env[t], self.origin[t] = fill(named[t], declared), forward[t][1]
            elif declared is not None:
                self.env[t], self.origin[t] = declared, "declared"
            else:
                self.env[t], self.origin[t] = TensorType(None, None), "unknown"
            check_declaration(self.graph, self.report, self.env, node, t, self.assume, self.names)

    def with_spec(self, node: ModelNode, spec) -> None:
        self.cover(node.op_type, "spec")
        types, sources = bind_inputs(self.graph, spec, node, self.env, self.origin)
        n_out = len(node.outputs)
        items = attrs_key(node.attrs) if node.attrs else ()
        result = self.cache.solve(spec, types, node.attrs, items=items, opset=node.opset, unknown_attrs="finding",
                                  output_count=n_out, registry=self.registry)
        slots = self.slots.get((spec.name, n_out))
        if slots is None:
            slots = self.slots[(spec.name, n_out)] = output_slots(spec, n_out)
        outputs = result.outputs if not result.has_unknowns else self.unknowns.own(
            result.outputs, types, node, {key: t for (key, _d, _p), t in zip(slots, node.outputs) if t})
        folded = fold(spec, types, node.attrs, n_out, self.cache.folds, result, items) if result.status == "valid" else None
        for c in result.conditions:
            rel = result.relations.get(c)
            if c not in self.assumptions and self.facts.implies(rel):
                continue   # the conditions already stated imply it: the model's list stays the shortest
            self.assume(c, node.name, relation=rel)
            if not node.scope:   # a node that always runs: what it needs holds for every input the model accepts
                self.facts.learn(rel)
        if self.facts.lower:     # the report shows the dims that flow on
            outputs = {k: self.facts.settle_type(t) for k, t in outputs.items()}
        nr = NodeReport(node.name, node.op_type, node.domain, node.opset, spec.name, result.status, node.location,
                        outputs, list(result.conditions), list(result.violations), list(result.warnings), sources,
                        runtime_checks=result.runtime_checks)
        if self.portability is not None and result.status != "invalid":
            nr.warnings.extend(self.portability.warnings(spec, types, node.attrs))
        self.report.nodes.append(nr)
        for (key, _decl, _pos), tname in zip(slots, node.outputs):
            if tname:
                if folded and key in folded:
                    self.env[tname], self.origin[tname] = folded[key], "folded"
                else:
                    self.env[tname] = self.facts.settle_type(fill(outputs[key], self.graph.fallback.get(tname)))
                    self.origin[tname] = "inferred"
                check_declaration(self.graph, self.report, self.env, node, tname, self.assume, self.names)

    def failed(self, node: ModelNode, findings: list[Finding]) -> None:
        """A node found invalid before any spec: reported with ``findings``, its outputs unknown."""
        nr = NodeReport(node.name, node.op_type, node.domain, node.opset, "", "invalid", node.location)
        nr.violations.extend(findings)
        self.report.nodes.append(nr)
        for t in node.outputs:
            if t:
                self.env[t], self.origin[t] = TensorType(None, None), "unknown"

    def finish(self) -> ModelReport:
        report = self.report
        implied = self.facts.redundant([(c, self.relations.get(c)) for c in self.assumptions
                                        if c not in self.refinements])
        report.assumptions = [{"condition": c, "kind": "refinement" if c in self.refinements else "condition",
                               "nodes": list(ns)} for c, ns in self.assumptions.items() if c not in implied]
        eqs = equalities((c, self.relations.get(c)) for c in self.assumptions if c not in self.refinements)
        if len(eqs) >= 2:
            bad = contradiction_of(eqs, lambda c: list(self.assumptions.get(c, {})))
            if bad is not None:
                bad.message = "conditions that different nodes need cannot all hold, so no input makes the model valid"
                report.violations.append(bad)
        report.types = self.env
        report.symbols = self.unknowns.symbols
        counts = {"checked": 0, "valid": 0, "conditional": 0, "invalid": 0, "unchecked": 0, "skipped": self.skipped}
        if self.dead:
            counts["dead"] = self.dead
        for n in report.nodes:
            counts[n.status] = counts.get(n.status, 0) + 1
        counts["checked"] = len(report.nodes) - counts["unchecked"]
        report.summary = counts
        total = {how: sum(r.get(how, 0) for r in self.coverage.values()) for how in ("spec", "fallback", "unknown")}
        report.coverage = {**total, "dead": self.dead,
                           "by_op": {op: dict(sorted(r.items())) for op, r in sorted(self.coverage.items())}}
        return report


def _names_in(types) -> set[str]:
    """The dim names the model's sources use: run-time sizes are never named like them."""
    names: set[str] = set()
    for t in types:
        for d in t.shape or ():
            if is_symbolic(d):
                names |= {s.name for s in d.free_symbols}
    return names
