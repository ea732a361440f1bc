"""A model's input domain from its forward pass: the conditions collected, with their sources and the
constants behind them (``domain.build_domain`` does the algebra).

Conditions of a branch or a loop body hold only when it runs: they stay stated conditions and
never pin a dim.  Refinements (a declaration filling in what inference left unknown) are
assumptions about the model's own claims, listed apart, not relations over its inputs.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..domain.build import InputDomain, Need, build_domain
from ..domain.evaluate import SMALL_RANGE, Unsupported, holds, terms
from ..findings import CONTRADICTION, DECLARED_RANGE, OUTSIDE_DOMAIN, PINNED
from ..frontends.graph import ModelGraph
from ..notation import AnyOf, Rel
from ..result import Finding
from .provenance import constants_behind, producers_of



def model_domain(graph: ModelGraph, needs: list[Need], scoped: list[Need], assumed: dict, nonempty: bool,
                 declared: set, env: dict | None = None) -> InputDomain:
    """The input domain of ``graph`` from the conditions its always-run nodes need (``needs``) and those
    of branches and loop bodies (``scoped``), over the input dims' ``assumed`` sets (``env``: the
    tensors' types, which tell a constant's width from a bound, ``provenance.constants_behind``)."""
    domain = build_domain(needs, assumed, nonempty, scoped, declared)
    _name_constants(graph, domain, _condition_numbers(needs), env)
    return domain


def every_value(nodes: list) -> list[dict]:
    """The sizes at which the index values nodes read are in range for every input value, each with
    the nodes that read them (``NodeReport.runtime_when``, ``solver/loose.py``), in node order."""
    found: dict[str, list[str]] = {}
    for n in nodes:
        if n.runtime_when and n.status != "invalid":
            for when in dict.fromkeys(n.runtime_when.values()):
                found.setdefault(when, []).append(n.name)
    return [{"condition": c, "nodes": names} for c, names in found.items()]


def _name_constants(graph: ModelGraph, domain: InputDomain, stated: dict[str, set[int]], env: dict | None = None) -> None:
    """Each source of a relation that pins, bounds or refutes gets the constants behind its node: those
    holding a number of the relation, else one of the node's own condition (``stated``, by node), else
    the nearest; only the sources whose constants rank best among the relation's keep theirs."""
    producers = None
    for rel in domain.relations:
        if rel.severity != "error" and not rel.caps:
            continue   # constants make pins and upper bounds (past + seq <= 64 too); a stride's divisibility is the architecture's
        producers = producers if producers is not None else producers_of(graph)
        numbers = _numbers(rel)
        if rel.severity != "error" and rel.lo is not None:
            numbers.discard(rel.lo)   # of a top, its bottom (a kernel's 3 in 3 <= T <= 82) names no table
        # of a top, the nodes that need only its bottom (a kernel's T >= 3) hold no constant to make larger
        bottom_only = set() if rel.severity == "error" or not rel.capped_by else \
            {src.node for src in rel.sources} - set(rel.capped_by)
        ranked = [(3, ()) if src.node in bottom_only else
                  constants_behind(graph, src.node, numbers, producers, stated.get(src.node, frozenset()), env)
                  for src in rel.sources]
        best = min((rank for rank, _c in ranked), default=3)   # a source's nearest constants are no cause
        rel.sources = [replace(src, constants=consts if rank == best else ())   # where another's hold the number
                       for src, (rank, consts) in zip(rel.sources, ranked)]


def _condition_numbers(needs: list[Need]) -> dict[str, set[int]]:
    """The numbers above 1 that are terms of each node's conditions as it stated them (``terms``), by node.

    >>> import sympy
    >>> from shapecheck.dims import symbol
    >>> from shapecheck.domain.relation import Source
    >>> seq, n = symbol("seq"), symbol("n")
    >>> rel = Rel("==", n + 1, sympy.Min(40, sympy.floor(seq / 2 - sympy.Rational(1, 2)) + 1))
    >>> _condition_numbers([Need("...", rel, [Source("/Add", "Add", "Add-14")])])
    {'/Add': {40}}
    """
    out: dict[str, set[int]] = {}
    for need in needs:
        rel = need.relation
        found = {x for x in terms(rel) if x > 1} if isinstance(rel, (Rel, AnyOf, tuple)) else set()
        for src in need.sources:
            out.setdefault(src.node, set()).update(found)
    return out


def _numbers(rel: Any) -> set[int]:
    """The numbers a relation states: its bounds and values, and the integers in its text."""
    out = {x for x in (rel.lo, rel.hi) if x is not None and x > 1}
    out.update(v for v in rel.values or () if v > 1)
    for word in rel.text.replace("(", " ").replace(")", " ").replace("*", " ").split():
        if word.isdigit() and len(word) <= 18 and int(word) > 1:
            out.add(int(word))
    if rel.hi is not None:
        out.add(rel.hi + 1)   # seq <= 64 from a table of 64 rows
    return out


def domain_findings(domain: InputDomain, graph: ModelGraph, declared: dict | None = None) -> list[Finding]:
    """The domain's errors as model findings: a dynamic dim pinned to a few sizes, a condition no
    input meets, a declared range (``declared``: name -> ``(lo, hi)``) wider than the graph allows.
    Each says where it comes from and aims its fix at the cause.  None where a node that always runs
    is invalid at every size: that node's finding is the cause, and the model runs at no size to pin."""
    out: list[Finding] = []
    if domain.invalid_nodes:
        return out
    for rel in domain.relations:
        if rel.severity != "error" and len(rel.dims) == 1 and rel.dims[0] in (declared or {}) and \
                declared[rel.dims[0]][1] is not None and rel.hi is not None and rel.hi < declared[rel.dims[0]][1]:
            # only a tighter top: torch's recorded minimum of 2 is its own choice, and a stride's
            # divisibility is not a range torch can record
            lo, hi = declared[rel.dims[0]]
            stated = f"{lo} <= {rel.dims[0]}" + (f" <= {hi}" if hi is not None else "")
            out.append(Finding(DECLARED_RANGE, rel.text, f"the exporter recorded {stated}, but the graph is valid "
                               f"only where {rel.text}", {"needed by": "; ".join(_where(s) for s in rel.sources[:3])},
                               f"declare {rel.text} when exporting, or change the graph to run on the whole range"))
    for rel in domain.errors:
        values = {"needed by": "; ".join(_where(src) for src in rel.sources[:3])} if rel.sources else {}
        if rel.declared:
            values["from"] = (f"the range the exporter recorded for {', '.join(rel.dims)} (torch's range_constraints: "
                              "the export specialized it)")
        consts = [c for src in rel.sources for c in src.constants]
        if consts:
            values["from"] = "; ".join(dict.fromkeys(consts))
        if rel.kind == "refuted":
            out.append(Finding(CONTRADICTION, rel.text, "no input meets the model's conditions", values,
                               "make the sizes the nodes need agree (the constants named above fix them)"))
            continue
        dims = ", ".join(rel.dims)
        inputs = _declaring(graph, set(rel.dims))
        fix = _pin_fix(rel, consts)
        declares = f"{inputs} declare{'s' if ' and ' not in inputs and ', ' not in inputs else ''} {dims} dynamic"
        if rel.declared and not consts:   # the exporter's record: the graph's own conditions may allow more
            out.append(Finding(PINNED, rel.text, f"the export is valid only where {rel.text}, though {declares}", values,
                               f"re-export with {dims} dynamic (a torch.export.Dim with the range it must run on: "
                               f"torch then says which line specializes it), or declare {dims} static: {_static(rel)}"))
            continue
        out.append(Finding(PINNED, rel.text, f"the model runs only where {rel.text}, though {declares}", values, fix))
    return out


def _pin_fix(rel, consts: list) -> str:
    """The fix of a pinned dim: the graph made dynamic where the constants fix it, or the dim declared static."""
    return f"{_dynamic(rel, consts)}, or declare {', '.join(rel.dims)} static: {_static(rel)}"


def _dynamic(rel, consts: list) -> str:
    """``re-export with seq dynamic in the graph too (the constant named above fixes it)``."""
    dims = ", ".join(rel.dims)
    if not consts:
        return f"re-export with {dims} dynamic in the graph too"
    return (f"re-export with {dims} dynamic in the graph too (the constant{'s' if len(consts) > 1 else ''} named "
            f"above fix{'es' if len(consts) == 1 else ''} {'it' if len(rel.dims) == 1 else 'them'})")


def outside_finding(domain: InputDomain, sizes: dict[str, int]) -> Finding | None:
    """The finding on sizes given for the input dims (``--dims``) that the model's input domain without
    them (``domain``) leaves out: the relations those sizes fail, where each comes from, and a fix aimed
    at it; None when the domain admits them (or cannot tell)."""
    failed = domain.excluding(sizes)
    if not failed:
        return None
    texts = "; ".join(r.text for r in failed)
    named = [n for n in dict.fromkeys(d for r in failed for d in r.dims) if n in sizes]
    given = ", ".join(f"{n} = {sizes[n]}" for n in named)
    values = {n: f"{sizes[n]} (given)" for n in named}
    values["input domain"] = domain.text()
    sources = [src for r in failed for src in r.sources]
    if sources:
        values["needed by"] = "; ".join(_where(src) for src in sources[:3])
    consts = list(dict.fromkeys(c for src in sources for c in src.constants))
    if consts:
        values["from"] = "; ".join(consts)
    elif any(r.declared for r in failed):
        values["from"] = "the range the exporter recorded (torch's range_constraints)"
    pins = [r for r in failed if r.severity == "error" and not r.declared and r.kind != "refuted"]
    fix = f"check at sizes where {texts}" + (_example(pins[0]) if len(pins) == 1 else "")
    if pins:   # the model runs only there: the graph made dynamic where its constants fix the dims
        fix += f", or {_dynamic(pins[0], [c for src in pins[0].sources for c in src.constants])} to run at {given}"
    elif consts and any(r.caps for r in failed):
        fix += f", or re-export with {' and '.join(consts[:2])} larger (the bound is its size) to run at {given}"
    elif all(r.declared for r in failed):
        fix += " (the range the exporter recorded; the node findings say what the graph itself needs there)"
    return Finding(OUTSIDE_DOMAIN, texts, f"the sizes checked ({given}) are outside the model's input domain, "
                   f"which needs {texts}", values, fix)


def unpin_given(report: Any, unbound: InputDomain, sizes: dict[str, int]) -> None:
    """At given sizes, a dim left with a few values only because of them (``past_len + seq <= 64`` at
    ``seq = 60`` leaves ``1 <= past_len <= 4``) is a bound of the domain at those sizes, not a pin: the
    domain without them (``unbound``) pins none of its dims.  Its relation becomes a stated one, and its
    ``pinned`` finding goes."""
    if report.domain is None:
        return
    pinned = {d for r in unbound.relations if r.severity == "error" for d in r.dims}
    freed = [r for r in report.domain.relations if r.severity == "error" and r.kind != "refuted"
             and not set(r.dims) & pinned and not set(r.dims) & sizes.keys()]
    for r in freed:
        r.severity = "info"
    texts = {r.text for r in freed}
    report.violations[:] = [f for f in report.violations if not (f.constraint == PINNED and f.rule in texts)]


def _where(src) -> str:
    rule = f" `{src.rules[0]}`" if src.rules else ""
    ids = ", ".join(src.constraints)
    return f"{src.node!r} ({src.spec}{', ' + ids if ids else ''}{rule})"


def _declaring(graph: ModelGraph, names: set[str]) -> str:
    found = [f"input {t!r}" for t, ty in graph.sources.items() if graph.source_kind.get(t) == "graph input"
             and any(getattr(d, "free_symbols", None) and {s.name for s in d.free_symbols} & names
                     for d in ty.shape or ())]
    return ", ".join(found[:3]) or "the model's inputs"


def _static(rel) -> str:
    if rel.values and len(rel.values) == 1:
        return f"{rel.dims[0]} = {rel.values[0]}"
    if rel.values:   # a static dim is one size: one of these, each its own export
        return f"{rel.dims[0]} = one of {', '.join(map(str, rel.values))}"
    return f"sizes where {rel.text}{_example(rel)}"


def _example(rel) -> str:
    """`` (for example height = width = 32)``: the smallest size that, given to every dim of a
    relation over several, meets it (at most ``SMALL_RANGE``); "" when none does or it cannot be
    evaluated."""
    syms = {s.name: s for s in getattr(rel.relation, "free_symbols", ())}
    if len(syms) < 2 or set(rel.dims) != set(syms):
        return ""
    try:
        f = holds(rel.relation, tuple(syms[n] for n in rel.dims))
        size = next((x for x in range(1, SMALL_RANGE + 1) if f((x,) * len(syms))), None)
    except (Unsupported, ZeroDivisionError, OverflowError, ValueError, TypeError):
        return ""
    return "" if size is None else f" (for example {' = '.join(rel.dims)} = {size})"


__all__ = ["model_domain", "domain_findings", "every_value", "outside_finding", "unpin_given"]
