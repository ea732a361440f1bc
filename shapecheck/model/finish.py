"""The end of a forward pass: what the model needs as its input domain, the dims as they are for the
inputs it accepts, the counts and the coverage, written into the pass's report."""
from __future__ import annotations

from typing import Any

from ..domain.build import Need
from ..solver import contradiction_of, equalities
from .domain import domain_findings, every_value, model_domain
from .reports import ModelReport, node_counts


def finish_report(fp: Any) -> ModelReport:
    """The report of the pass ``fp`` (a ``forward.ForwardPass``), completed; ``fp.env`` settled (its ``types``)."""
    report = fp.report
    report.assumptions = [{"condition": c, "kind": "refinement" if c in fp.refinements else "condition",
                           "nodes": list(ns)} for c, ns in fp.assumptions.items()]
    # what the nodes need; a declaration's claim (a graph output declared [batch,5,10] where inference
    # gives [batch,seq,10]) is compared with inference and reported as a declaration, never a requirement
    needs = {text: Need(text, fp.relations.get(text), list(fp.sources[text]))
             for text in fp.assumptions if text not in fp.refinements and fp.sources.get(text)}
    report.domain = model_domain(fp.graph, [n for t, n in needs.items() if t not in fp.scoped],
                                 [n for t, n in needs.items() if t in fp.scoped], fp.assumed, fp.nonempty,
                                 set(fp.declared_ranges), fp.env)
    report.domain.invalid_nodes = list(fp.invalid_nodes)
    report.domain.malformed = list(dict.fromkeys(f.constraint for f in report.violations))   # the graph's own
    report.domain.every_value = every_value(report.nodes)
    if fp.float_sizes:
        shown = ", ".join(fp.float_sizes[:3]) + (f" and {len(fp.float_sizes) - 3} more" if len(fp.float_sizes) > 3 else "")
        report.domain.assumption += f"; every size held in float below 2**24 ({shown})"
    report.violations.extend(domain_findings(report.domain, fp.graph,
                                             {s.name: r for s, r in fp.declared_ranges.items()}))
    if fp.facts.active:   # every dim as it is for the inputs the model accepts
        fp.env = settled_env(fp.env, fp.facts)
        settled: dict[int, tuple] = {}   # a replayed node shares its first node's outputs: settled once
        for n in report.nodes:
            types = n.output_types
            done = settled.get(id(types))
            if done is None:
                new = {k: fp.facts.settle_type(t) for k, t in types.items()}
                done = settled[id(types)] = (types, types if all(new[k] is t for k, t in types.items()) else new)
            if done[1] is not types:
                n.output_types = done[1]
    eqs = equalities((c, fp.relations.get(c)) for c in fp.assumptions if c not in fp.refinements)
    if len(eqs) >= 2 and not any(r.kind == "refuted" for r in report.domain.relations):
        bad = contradiction_of(eqs, lambda c: list(fp.assumptions.get(c, {})))
        if bad is not None:
            bad.message = "conditions that different nodes need cannot all hold, so no input makes the model valid"
            report.violations.append(bad)
    report.symbols = fp.unknowns.symbols
    report.summary = node_counts(report.nodes, fp.skipped, fp.dead)
    total = {how: sum(r.get(how, 0) for r in fp.coverage.values()) for how in ("spec", "subgraphs", "fallback", "unknown")}
    report.coverage = {**total, "dead": fp.dead,
                       "by_op": {op: dict(sorted(r.items())) for op, r in sorted(fp.coverage.items())}}
    report.types = fp.env
    return report


def settled_env(env: dict, facts: Any) -> dict:
    """``env`` with every type settled by ``facts``: each distinct type object once (a decoder's tensors
    share a few thousand), and ``env`` itself when none changes."""
    distinct = {id(t): t for t in env.values()}
    changed = {}
    for key, t in distinct.items():
        s = facts.settle_type(t)
        if s is not t:
            changed[key] = s
    if not changed:
        return env
    return {k: changed.get(id(t), t) for k, t in env.items()}


__all__ = ["finish_report", "settled_env"]
