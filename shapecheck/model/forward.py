"""The forward pass: every node once, in order, types flowing from the graph's sources.

A node with a spec is solved (cached by signature) and its outputs come from the spec; a
control-flow node takes its subgraphs' outputs (``control_flow``); any other node goes to the
frontend's per-node inference (onnx's, for ONNX ops without a spec), which is counted as the
fallback.  Declarations are compared with what inference gives, never used in its place
except to fill in what it left unknown (``declarations``).
"""
from __future__ import annotations

from typing import Any

from ..findings import CONTROL_FLOW, ONNX_INFERENCE, OPSET, SSA
from ..frontends.graph import ModelGraph, ModelNode, NodeInferenceError
from ..domain.relation import Source
from ..result import Finding
from ..solver.cache import SolveCache, attrs_key
from ..solver import output_slots
from ..registry import Registry
from ..types import TensorType
from .control_flow import is_dead, region_outputs, unconditional
from .region_walk import RegionWalk
from .region_fit import fit_finding
from .declarations import Names, check_declaration
from .finish import finish_report
from .facts import Facts
from .least import from_least
from .node import (UNCHECKED, Unknowns, bind_inputs, defined, fill, fold, has_empty, holds_sizes_in_float, input_slots,
                   int64_overflow, resolve)
from .replay import REUSE, Replays, interned, replay, replay_run, replayed
from .reports import FED_BY_INVALID, ModelReport, NodeReport
from .unranked import UnrankedNames, unranked_owners
from .sizes import input_dims, names_in


def check_graph(graph: ModelGraph, registry: Registry, strict: bool = False, runtime: str | None = None,
                assume_nonempty: bool = True, declared: dict[str, tuple] | None = None,
                progress: Any = None, types_only: bool = False) -> ModelReport:
    """Check every node of ``graph``; see ``ModelReport``.  ``assume_nonempty``: every symbolic input dim
    is at least 1 (else at least 0); ``declared``: ranges ``(lo, hi)`` the model declares for input dims,
    by name; ``types_only``: only the report's types are read (``annotate``): a replayed node adds no
    ``NodeReport`` (the types are the same either way)."""
    fp = ForwardPass(graph, registry, strict, runtime, assume_nonempty, declared)
    fp.progress, fp.replayed_reports = progress, not types_only   # progress(nodes done, in all), every PROGRESS_EVERY
    return fp.run()


PROGRESS_EVERY = 1024
MEMO = REUSE   # remember queries by their inputs' identity (ForwardPass._solved); False: every node asks the cache


class ForwardPass(RegionWalk):
    """The state of one model check: types so far, where each came from, conditions needed."""

    def __init__(self, graph: ModelGraph, registry: Registry, strict: bool, runtime: str | None,
                 assume_nonempty: bool = True, declared: dict[str, tuple] | None = None):
        self.graph, self.registry = graph, registry
        self.portability = None
        if runtime:
            from ..runtimes import load_runtime
            self.portability = load_runtime(runtime)
        self.report = ModelReport(model=graph.path, format=graph.format, strict=strict, notes=list(graph.notes))
        self.env: dict[str, TensorType] = interned(graph.sources)
        self.origin: dict[str, str] = dict(graph.source_kind)
        self.assumptions: dict[str, dict[str, None]] = {}   # condition -> the nodes needing it, in order
        self.relations: dict[str, Any] = {}   # condition text -> its relation (never parsed back from the text)
        self.sources: dict[str, list[Source]] = {}   # condition text -> the nodes and constraints that need it
        self.scoped: set[str] = set()   # conditions needed only where a branch or a loop body runs
        self.invalid: dict[str, str] = {}      # tensor -> the invalid node it comes from
        self.progress: Any = None
        self.replayed_reports = True   # False: a replayed node adds no NodeReport (``check_graph``'s types_only)
        self.refinements: set[str] = set()
        self.float_sizes: list[str] = []       # nodes whose float output holds sizes (exact below 2**24)
        self.invalid_nodes: list[str] = []     # invalid nodes that always run
        # the values each input dim may take: assumed, then narrowed by the conditions of nodes that always run
        dims = input_dims(graph)
        self.declared_ranges = {s: declared[s.name] for s in dims if s.name in (declared or {})}
        self.facts = Facts(dims, nonempty=assume_nonempty, declared=self.declared_ranges)
        self.base = Facts(dims, nonempty=assume_nonempty, declared=self.declared_ranges)   # never learns
        self.assumed = self.base.sets   # before any condition narrowed them
        self.nonempty = assume_nonempty
        self.coverage: dict[str, dict[str, int]] = {}   # op type -> how its nodes were covered -> count
        self.cache = SolveCache.of(registry)   # shared by every model checked against this registry
        self.resolved: dict[tuple, tuple] = {}
        self.memo: dict[tuple, tuple] = {}     # a node's query by the identity of its inputs -> (result, folded)
        self.memo_on = MEMO
        self.slots: dict[tuple, list] = {}     # (spec, output count) -> output slots
        self.attr_items: dict[int, tuple] = {}   # id of a node's attributes -> (them, attrs_key)
        # a node's effect replayed for its repeats (model/replay.py), not where a tensor is made twice (G1)
        self.replays = Replays(on=False if any(getattr(v, "constraint", "") == SSA for v in graph.violations) else None)
        self.unknowns = Unknowns(names_in(graph.sources.values()))
        self.unranked = UnrankedNames()
        # dim names declarations introduce, defined on first use: every name but the main graph's inputs'
        # (a subgraph's or a function body's own names, B or d_v, are local: its owner binds its inputs)
        self.names = Names(names_in(t for k, t in graph.sources.items() if graph.source_kind.get(k) == "graph input"))
        self.skipped = self.dead = 0
        self.entered: set[str] = set()   # subgraph scopes entered (a Loop/Scan body's inputs bound)
        self.owner_index: dict[int, int] | None = None

    def assume(self, text: str, who: str, refinement: bool = False, relation: Any = None,
               source: Source | None = None) -> None:
        if refinement:
            self.refinements.add(text)
        self.assumptions.setdefault(text, {})[who] = None
        if relation is not None:
            self.relations.setdefault(text, relation)
        if source is not None:
            self.sources.setdefault(text, []).append(source)

    def cover(self, op: str, how: str) -> None:
        row = self.coverage.get(op) or self.coverage.setdefault(op, {})   # asked of every replayed node
        row[how] = row.get(how, 0) + 1

    def run(self) -> ModelReport:
        self.report.violations.extend(self.graph.violations)
        self.walk(0, len(self.graph.nodes))
        return finish_report(self)

    def walk(self, i: int, stop: int) -> None:
        """Nodes ``i`` to ``stop`` in order; a Loop/Scan body met on the way is checked as a region."""
        nodes = self.graph.nodes
        while i < stop:
            i = replay_run(self, nodes, i, stop, PROGRESS_EVERY if self.progress is not None else 0)  # a run, if any
            if i == stop:
                break
            node = nodes[i]
            if self.progress is not None and i % PROGRESS_EVERY == 0:
                self.progress(i, len(nodes))
            region = self.next_region(node.scope) if node.scope else None
            if region is not None:
                i = self.region(i, region)
                continue
            if node.scope and is_dead(self.graph, node.scope, self.env):
                self.dead += 1   # a branch that never runs: its outputs are never produced, its declarations claim nothing
            elif node.findings:   # the frontend found the node itself wrong (an undeclared domain)
                self.failed(node, node.findings)
            elif not replayed(self, node):
                self.node(node)
            i += 1

    def node(self, node: ModelNode) -> None:
        source = next((self.invalid[t] for t in node.inputs if t in self.invalid), None) if self.invalid else None
        if source is not None:   # one root cause, one finding: what an invalid node feeds is not checked
            self.report.nodes.append(NodeReport(node.name, node.op_type, node.domain, node.opset, "", "unchecked",
                                                node.location, reason=f"{FED_BY_INVALID} {source!r}"))
            for t in filter(None, node.outputs):
                self.env[t], self.origin[t], self.invalid[t] = TensorType(None, None), "unknown", source
            return
        reports, declared = self.report.nodes, self.report.declarations
        before, claims = len(reports), len(declared)
        self._node(node)
        if len(reports) > before and reports[-1].status == "invalid":
            # an output the invalid node still defines (ScatterND's is data's type) flows on and is checked;
            # one it leaves unknown (though a declaration fills it in), or empty where no input is (a kernel
            # larger than its input: a 0-sized Conv output), would only make findings this one explains
            if not node.scope:   # it always runs: no input size makes the model valid
                self.invalid_nodes.append(node.name)
            filled, made_empty = ({d.tensor for d in declared[claims:] if d.status == "refines"},
                                  not any(has_empty(self.env.get(t)) for t in node.inputs if t))
            self.invalid.update((t, node.name) for t in node.outputs if t and (
                t in filled or not defined(self.env.get(t)) or (made_empty and has_empty(self.env.get(t)))))

    def _node(self, node: ModelNode) -> None:
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
                                       "raise the model's opset_import, or use an operator its domain has")])
        else:
            self.with_spec(node, spec)

    def without_spec(self, node: ModelNode, counted: bool) -> None:
        """Outputs from control flow or the frontend's per-node inference (the fallback), else unknown."""
        problem = fit_finding(node, self.env)   # its bodies, and what it reads itself (an If's condition)
        if problem is not None:
            self.cover(node.op_type, "unknown")
            self.failed(node, [Finding(CONTROL_FLOW, *problem)])
            return
        self.bind_bodies(node)
        try:
            forward = region_outputs(node, self.env, self.graph)
            how, counted = ("subgraphs", False) if forward is not None else ("fallback", counted)   # bodies: not skipped
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
        self.cover(node.op_type, how if forward else "unknown")
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
            check_declaration(self.graph, self.report, self.env, node, t, self.assume, self.names,
                              self.facts.implies)

    def with_spec(self, node: ModelNode, spec) -> None:
        self.cover(node.op_type, "spec")
        items = self.attrs_items(node.attrs)
        reuse, done = self.replays.find(spec, node, items, self.env, self.facts.generation)
        if done is not None:
            return replay(self, node, done)
        inputs = input_slots(self.graph, spec, node)
        types, sources = bind_inputs(self.graph, spec, node, self.env, self.origin, inputs)
        if self.facts.active:   # dims made before a fact was learned flow on in their settled form
            types = {k: tuple(self.facts.settle_type(x) for x in t) if isinstance(t, tuple) else self.facts.settle_type(t)
                     for k, t in types.items()}
        n_out = len(node.outputs)
        result, folded, unranked = self._solved(spec, node, types, items, n_out)
        owners = unranked_owners(sources) if unranked else None
        if owners:   # the symbols made for an input of unknown rank are its tensor's (model/unranked.py)
            result = self.unranked.named(result, owners)
        slots = self.slots.get((spec.name, n_out)) or self.slots.setdefault((spec.name, n_out), output_slots(spec, n_out))
        outputs = result.outputs if not result.has_unknowns else self.unknowns.own(
            from_least(self, spec, node, types, items, n_out, result), types, node, {key: t for (key, _d, _p), t in zip(slots, node.outputs) if t})
        outputs, overflow = int64_overflow(outputs)
        status = "invalid" if overflow else result.status
        if status == "conditional" and all(self.base.implies(result.relations.get(c)) for c in result.conditions):
            status = "valid"   # what it needs, the input assumption gives (N != 0 when every input dim >= 1)
        folded = folded if status == "valid" else None
        if self.needs(node, spec, result) and status == "conditional":
            # what it needs narrowed the input dims: its inputs settled under that may give exact outputs
            again = self._resolved(spec, types, node, items, n_out)
            if again is not None:
                types, result_out = again
                result_out = self.unranked.named(result_out, owners) if owners else result_out
                outputs = result_out.outputs if not result_out.has_unknowns else self.unknowns.own(
                    from_least(self, spec, node, types, items, n_out, result_out), types, node, {key: t for (key, _d, _p), t in zip(slots, node.outputs) if t})
        if self.facts.active:    # the report shows the dims that flow on
            outputs = {k: self.facts.settle_type(t) for k, t in outputs.items()}
        if node.branches and status != "invalid":   # a body's outputs (SequenceMap's): more exact than the spec's
            self.bind_bodies(node)
            body = region_outputs(node, self.env, self.graph) or {}
            outputs = {**outputs, **{key: body[t][0] for (key, _d, _p), t in zip(slots, node.outputs) if t in body}}
        conditions = [] if status == "valid" else list(result.conditions)
        nr = NodeReport(node.name, node.op_type, node.domain, node.opset, spec.name, status, node.location, outputs,
                        conditions, [*result.violations, *([overflow] if overflow else [])], list(result.warnings),
                        sources, runtime_checks=result.runtime_checks, runtime_when=result.runtime_when or None)
        if self.portability is not None and status != "invalid":
            nr.warnings.extend(self.portability.warnings(spec, types, node.attrs))
        self.report.nodes.append(nr)
        float_sizes = holds_sizes_in_float(outputs)
        if float_sizes:
            self.float_sizes.append(node.name)
        given = self._give(node, slots, outputs, folded)
        if status == "valid" and not (result.conditions or result.has_unknowns or unranked or node.branches
                                      or self.portability is not None or nr.violations
                                      or any(t in self.graph.fallback for t in node.outputs if t)):
            self.replays.record(reuse, inputs, spec, nr, given, float_sizes)

    def _give(self, node: ModelNode, slots: list, outputs: dict, folded: dict | None) -> tuple:
        """Each output's type and origin into the pass, its declaration compared; what each output
        was given before that (None where the node gives it nothing), for ``replay``."""
        given: list = [None] * len(node.outputs)
        for k, ((key, _decl, _pos), tname) in enumerate(zip(slots, node.outputs)):
            if tname:
                if folded and key in folded:
                    self.env[tname], self.origin[tname] = folded[key], "folded"
                else:
                    self.env[tname] = self.facts.settle_type(fill(outputs[key], self.graph.fallback.get(tname)))
                    self.origin[tname] = "inferred"
                given[k] = (self.env[tname], self.origin[tname])
                check_declaration(self.graph, self.report, self.env, node, tname, self.assume, self.names,
                                  self.facts.implies)
        return tuple(given)

    def attrs_items(self, attrs: dict) -> Any:
        """``attrs_key(attrs)`` once per attributes object (the reader shares one among equal bytes)."""
        got = self.attr_items.get(id(attrs)) if attrs else (attrs, ())
        if got is None:   # the dict is kept with its key, so its id stays its own
            got = self.attr_items[id(attrs)] = (attrs, attrs_key(attrs))
        return got[1]

    def _solved(self, spec, node: ModelNode, types: dict, items: Any, n_out: int) -> tuple[Any, dict | None, bool]:
        """(the solver's result, the folded outputs or None, whether an input's rank is unknown): pure
        functions of the spec, input types, attributes and output count; types are never changed once
        built, so a query is remembered by the identity of its input types (a decoder's layers hand
        the same objects on), which skips the cache's signatures."""
        key = None
        if items is not None and self.memo_on:
            key = (spec.name, n_out, items, node.opset,
                   tuple((k, tuple(map(id, t)) if type(t) is tuple else id(t)) for k, t in types.items()))
            hit = self.memo.get(key)
            if hit is not None:
                return hit[0], hit[1], hit[3]
        result = self.cache.solve(spec, types, node.attrs, items=items, opset=node.opset, unknown_attrs="finding",
                                  output_count=n_out, registry=self.registry)
        folded = fold(spec, types, node.attrs, n_out, self.cache.folds, result, items) \
            if result.status == "valid" else None
        unranked = any(getattr(x, "shape", 0) is None for t in types.values() for x in (t if type(t) is tuple else (t,)))
        if key is not None:
            self.memo[key] = (result, folded, types, unranked)   # the types kept alive: their ids stay theirs
        return result, folded, unranked

    def needs(self, node: ModelNode, spec, result) -> bool:
        """Record the conditions ``result`` states for ``node``; True when they narrowed an input dim."""
        learned = False
        for c in result.conditions:
            rel = result.relations.get(c)
            if c not in self.assumptions and self.facts.implies(rel):
                continue   # the conditions already stated imply it: the model's list stays the shortest
            ids = tuple(result.condition_sources.get(c, ()))
            self.assume(c, node.name, relation=rel, source=Source(
                node.name, node.op_type, spec.name, ids, rules=tuple(x.rule for x in result.constraints if x.id in ids)))
            if unconditional(self.graph, node, rel, self.env, self.facts):   # holds for every input the model accepts
                learned |= self.facts.learn(rel)
            else:
                self.scoped.add(c)
        return learned

    def _resolved(self, spec, types: dict, node: ModelNode, items: Any, n_out: int) -> tuple[dict, Any] | None:
        """The node solved again on its inputs settled under what it needs; None when nothing settles."""
        settled = {k: tuple(self.facts.settle_type(x) for x in t) if isinstance(t, tuple) else self.facts.settle_type(t)
                   for k, t in types.items()}
        if all(settled[k] is types[k] or (isinstance(t, tuple) and all(a is b for a, b in zip(settled[k], t)))
               for k, t in types.items()):
            return None
        again = self.cache.solve(spec, settled, node.attrs, items=items, opset=node.opset, unknown_attrs="finding",
                                 output_count=n_out, registry=self.registry)
        return (settled, again) if again.status != "invalid" else None

    def failed(self, node: ModelNode, findings: list[Finding]) -> None:
        """A node found invalid before any spec: reported with ``findings``, its outputs unknown."""
        nr = NodeReport(node.name, node.op_type, node.domain, node.opset, "", "invalid", node.location)
        nr.violations.extend(findings)
        self.report.nodes.append(nr)
        for t in node.outputs:
            if t:
                self.env[t], self.origin[t] = TensorType(None, None), "unknown"
