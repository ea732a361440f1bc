"""A model check as text, the way a compiler reports: findings first, then where the model is valid,
then one summary line.

* On stderr, every finding, compiler style and each starting with the file: errors, warnings,
  then (unless ``--quiet``) notes.  Findings alike but for the numbers in their names are one
  group (``report.grouping``): the first whole, then how many more and a few names.
* On stdout, the node table only on request (``nodes="all"``, or ``"attention"`` for the
  nodes that are invalid, conditional or unchecked), the input domain (``valid for: ...``)
  and the summary line.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Sequence

from ..findings import OPTIONS, OUTPUT, causes_first
from .console import escape

if TYPE_CHECKING:
    from rich.console import Console

from .grouping import cut, group
from .text import (coverage_line, declaration_lines, diagnostic_lines, domain_lines, node_where, print_diagnostic_to,
                   runtime_check_lines, styled, summary_text, symbol_lines, verdict_markup)

ATTENTION = ("invalid", "conditional", "unchecked")
ROWS = 200          # table rows shown before the rest is cut


def findings(report, quiet: bool) -> Iterator[tuple[str, str, list[str], str, str]]:
    """Every finding as ``(severity, kind, lines, name, key)``: errors and warnings, and notes
    unless ``quiet``; ``key`` is what makes two findings alike (``grouping``).  A model finding that
    explains the node findings (``findings.causes_first``) comes first."""
    causes, others = causes_first(report.violations)
    for f in causes:
        lines = diagnostic_lines(f, "model")
        yield "error", f.constraint, lines, "model", "\n".join(lines)
    for n in report.nodes:
        for f in n.violations:
            lines = diagnostic_lines(f, node_where(n))
            if n.inputs:
                lines.append("  = inputs: " + ", ".join(f"{k} = {v['tensor']}: {v['type']} ({v['source']})"
                                                        for k, v in n.inputs.items()))
            yield "error", f.constraint, lines, n.name, "\n".join(lines)
        for w in n.warnings:
            lines = diagnostic_lines(w, node_where(n), "warning")
            yield "warning", w.constraint, lines, n.name, "\n".join(lines)
    for f in others:
        lines = diagnostic_lines(f, "model")
        yield "error", f.constraint, lines, "model", "\n".join(lines)
    # what a declaration fills in of an invalid node's output is that node's finding's consequence, not a note
    invalid = {n.name for n in report.nodes if n.status == "invalid"} \
        if any(d.status == "refines" for d in report.declarations) else set()
    for d in report.declarations:   # after the errors they may follow from (a pinned dim's declared output)
        if d.status != "agrees" and (not quiet or d.severity != "info") and not (d.status == "refines"
                                                                                 and d.node in invalid):
            label, lines = declaration_lines(d)
            yield label, "declaration", lines, d.tensor, "\n".join(lines)
    if quiet:
        return
    for n in report.nodes:
        checks = runtime_check_lines(n)
        if checks:
            yield "note", "runtime-check", checks, n.name, f"runtime-check {n.op_type} {n.spec} {n.runtime_checks} {checks[1:]}"
        if n.status == "unchecked" and not n.reason.startswith("input from invalid node"):
            yield "note", "unchecked", [f"note[unchecked]: {node_where(n)}: {n.reason}"], n.name, \
                f"unchecked {n.op_type} {n.reason}"
    # a refinement (report.assumptions, kind "refinement") is the note of its declaration ("refines") above
    for note in report.notes:
        yield "note", "note", [f"note: {note}"], "", note


def render_model_report(report, console: Console, err: Console | None = None, *, quiet: bool = False,
                        prefix: str = "", label: str = "", nodes: str = "none") -> None:
    """Findings (grouped) on ``err``, each naming the file (``prefix``); the node table (``nodes``:
    ``none``, ``attention`` or ``all``), the input domain and the summary line on ``console``."""
    err = err or console
    for g in group_findings(report, quiet):
        print_diagnostic_to(err, g[1], g[0], prefix)
    if nodes != "none":
        render_node_table(report, console, attention=nodes == "attention")
    domain = getattr(report, "domain", None)
    # under --strict the domain's conditions are failures: with --quiet too, they say why it failed
    if not quiet or (domain is not None and getattr(report, "strict", False) and report.failed):
        lines = domain_lines(domain, report.summary.get("skipped", 0)) if domain is not None else []
        for line in lines + symbol_lines(getattr(report, "symbols", [])):
            console.print(escape(line), soft_wrap=True)
    console.print(f"{verdict_markup(report)}  {escape(summary_text(report, label))}", soft_wrap=True)
    if not quiet:
        console.print(escape(coverage_line(getattr(report, "coverage", {}))), soft_wrap=True)


def group_findings(report, quiet: bool) -> list[tuple[str, list[str]]]:
    """``(severity, lines)`` per group of alike findings, in report order."""
    groups = group((sev, kind, key, name, lines) for sev, kind, lines, name, key in findings(report, quiet))
    return [(g.severity, g.payload + ([g.tail()] if g.tail() else [])) for g in groups]


def render_node_table(report, console: Console, attention: bool = False) -> None:
    """The per-node table (only the nodes that need attention with ``attention``), cut after ``ROWS``."""
    rows = [n for n in report.nodes if not attention or n.status in ATTENTION]
    from rich.table import Table   # rich is imported for a table alone (console.py)
    table = Table(title=escape(f"{report.model} ({report.format})"), title_justify="left")
    for col in ("node", "op / spec", "status", "output", "conditions"):
        table.add_column(col, overflow="fold")
    for n in rows[:ROWS]:
        table.add_row(escape(n.name), escape(f"{n.op_type} / {n.spec or '-'}"), styled(n.status),
                      escape(", ".join(n.outputs.values())), escape("; ".join(n.conditions) or n.reason))
    console.print(table)
    if len(rows) > ROWS:
        console.print(escape(f"... and {len(rows) - ROWS} more nodes: "
                             + cut([n.name for n in rows[ROWS:]], 3)), soft_wrap=True)


def render_outcome(o: Any, out: Console, err: Console, *, quiet: bool, findings: bool = True,
                   nodes: str = "none") -> None:
    """One model's outcome: its findings, domain and summary line (an unreadable one: why)."""
    if o.error:
        msg = o.error[len(o.path) + 2:] if o.error.startswith(o.path + ": ") else o.error
        if findings:
            err.print(f"[bold red]{escape(o.path)}: error\\[{o.kind}]:[/] {escape(msg)}", soft_wrap=True)
        why = {OPTIONS: "not checked (the options do not fit it)",
               OUTPUT: "nothing written (its --output cannot be written)"}.get(o.kind, "not checked (unreadable)")
        out.print(f"[bold red]ERROR[/]   {escape(o.path)}: {why}", soft_wrap=True)
    elif findings:
        render_model_report(o.report, out, err, quiet=quiet, prefix=f"{o.path}: ", label=f"{o.path}: ", nodes=nodes)
    else:
        out.print(f"{verdict_markup(o.report)}  {escape(summary_text(o.report, o.path + ': '))}", soft_wrap=True)


def render_total(outcomes: Sequence[Any], out: Console) -> None:
    """The total over several models."""
    from .. import batch
    if len(outcomes) <= 1:
        return
    t = batch.totals(outcomes)
    verdict = "[bold green]OK[/]" if batch.worst(outcomes) == 0 else "[bold red]FAILED[/]"
    out.print(f"{verdict}  total: {t['models']} models: {t['ok']} ok, {t['failed']} failed, "
              f"{t['unreadable']} not checked; {t['checked']} nodes checked: {t['valid']} valid, "
              f"{t['conditional']} conditional, {t['invalid']} invalid; {t['skipped']} without a spec skipped",
              soft_wrap=True)


def render_outcomes(outcomes: Sequence[Any], out: Console, err: Console, *, quiet: bool, findings: bool,
                    nodes: str = "none") -> None:
    """Text: per model, its findings (unless ``findings`` is off), domain and one summary line; then a total."""
    for o in outcomes:
        render_outcome(o, out, err, quiet=quiet, findings=findings, nodes=nodes)
    render_total(outcomes, out)


__all__ = ["render_outcome", "render_total", "render_outcomes", "render_model_report", "render_node_table", "group_findings", "findings"]
