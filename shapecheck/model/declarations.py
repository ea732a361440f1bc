"""Declarations (``value_info``, declared graph outputs, IR ports) are claims: each is compared
with the inferred type, and may only fill in what inference left unknown.

A declaration agrees, refines (fills an unknown dim, dtype or rank), states a condition (its
dims are named differently and are equal only if a relation holds) or contradicts inference.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..frontends.graph import Declaration, ModelGraph, ModelNode
from ..notation.compile import Cond, compare_dims
from ..types import TensorType, dim_str, is_unknown
from .result import DeclarationReport, ModelReport


@dataclass
class _Comparison:
    """What one declaration says against inference."""

    dtype: Any
    shape: Any
    contradictions: list[str] = field(default_factory=list)
    conditions: list[tuple[str, Any]] = field(default_factory=list)
    refined: list[str] = field(default_factory=list)


def _compare(d: TensorType, inf: TensorType) -> _Comparison:
    out = _Comparison(inf.dtype, inf.shape)
    if d.dtype and inf.dtype and d.dtype != inf.dtype:
        out.contradictions.append(f"element type {d.dtype} declared, {inf.dtype} inferred")
    elif d.dtype and not inf.dtype:
        out.dtype = d.dtype
        out.refined.append(f"element type = {d.dtype}")
    if d.shape is not None and inf.shape is None:
        out.shape = d.shape
        out.refined.append(f"rank = {len(d.shape)}")
    elif d.shape is not None and inf.shape is not None:
        if len(d.shape) != len(inf.shape):
            out.contradictions.append(f"rank {len(d.shape)} declared, {len(inf.shape)} inferred")
        else:
            out.shape = _compare_dims(d.shape, inf.shape, out)
    return out


def _compare_dims(declared: tuple, inferred: tuple, out: _Comparison) -> tuple:
    new = list(inferred)
    for i, (dd, ii) in enumerate(zip(declared, inferred)):
        if is_unknown(dd) or dd == ii:
            continue
        if is_unknown(ii):
            new[i] = dd
            out.refined.append(f"dim {i} = {dim_str(dd)}")
            continue
        verdict = compare_dims(dd, "==", ii)
        if verdict is False:
            out.contradictions.append(f"dim {i}: {dim_str(dd)} declared, {dim_str(ii)} inferred")
        elif isinstance(verdict, Cond):
            out.conditions.extend((str(r), r) for r in verdict.relations())
    return tuple(new)


def check_declaration(graph: ModelGraph, report: ModelReport, env: dict, node: ModelNode, tname: str,
                      assume: Callable[..., None]) -> None:
    """Compare ``tname``'s declaration (if any) with ``env[tname]``; record the verdict in ``report``."""
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
    c = _compare(d, inf)
    who = f"{tname} ({decl.kind})"
    if c.contradictions:
        severity = "error" if decl.kind == "graph output" else "warning"
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, str(d), str(inf), "contradicts", severity,
            f"{decl.kind} {tname!r} is declared {d} but inference gives {inf}: " + "; ".join(c.contradictions),
            f"declare {tname!r} as {inf}"))
    elif c.conditions:
        texts = [t for t, _ in c.conditions]
        for text, rel in c.conditions:
            assume(text, who, relation=rel)
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, str(d), str(inf), "condition", "info",
            f"the {decl.kind} of {tname!r} names its dims differently from inference; valid only if " + ", ".join(texts),
            f"declare {tname!r} as {inf}", texts))
    elif c.refined:
        env[tname] = TensorType(c.dtype, c.shape, inf.value)
        for r in c.refined:
            assume(f"{tname} {r}, taken from {decl.kind}", who, refinement=True)
        report.declarations.append(DeclarationReport(
            tname, node.name, decl.kind, str(d), str(inf), "refines", "info",
            f"inference left part of {tname!r} unknown; the {decl.kind} fills in " + ", ".join(c.refined)))
    else:
        report.declarations.append(DeclarationReport(tname, node.name, decl.kind, str(d), str(inf), "agrees", "info"))
