"""Results -> what people read: rich tables and compiler-style diagnostics.

JSON output is ``Result.to_dict()`` (and the model report's ``to_dict()``); this
module only renders.  Diagnostics read like a compiler's::

    error[C7]: ScatterND-13: `updates.shape == indices.shape[:-1] ++ data.shape[k:]` does not hold
      = updates must have shape indices.shape[0:q-1] ++ data.shape[k:]
      = values: updates.shape = [2,4], indices.shape[:-1] = [2], data.shape[k:] = [4,4]
      = fix: give updates the shape [2,4,4]
"""
from __future__ import annotations

from typing import Iterable

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .result import Finding, Result

STATUS_STYLE = {"valid": "bold green", "conditional": "bold yellow", "invalid": "bold red",
                "proved": "green", "refuted": "red", "unchecked": "cyan", "skipped": "dim", "skip": "dim"}


def styled(status: str) -> str:
    style = STATUS_STYLE.get(status, "")
    return f"[{style}]{status}[/]" if style else status


def diagnostic_lines(f: Finding, where: str, severity: str = "error") -> list[str]:
    """One finding as plain text lines (rich markup-free), compiler style."""
    head = f"{severity}[{f.constraint}]: {where}: `{f.rule}`"
    head += " does not hold" if severity == "error" and f.constraint not in ("deprecated", "A1", "A2") else ""
    lines = [head, f"  = {f.message}"]
    if f.detail:
        lines.append(f"  = {f.detail}")
    if f.values:
        lines.append("  = values: " + ", ".join(f"{k} = {v}" for k, v in f.values.items()))
    if f.fix:
        lines.append(f"  = fix: {f.fix}")
    return lines


def print_diagnostic(console: Console, f: Finding, where: str, severity: str = "error") -> None:
    color = "red" if severity == "error" else "yellow"
    lines = diagnostic_lines(f, where, severity)
    console.print(f"[bold {color}]{escape(lines[0])}[/]", soft_wrap=True)
    for line in lines[1:]:
        console.print(escape(line), soft_wrap=True)


def render_result(result: Result, console: Console, query: str = "") -> None:
    """The report of one ``infer`` query: constraints, outputs, conditions, diagnostics."""
    title = f"{result.spec}" + (f"  {query}" if query else "")
    table = Table(title=escape(title), title_justify="left", show_lines=False)
    table.add_column("id", style="bold")
    table.add_column("constraint")
    table.add_column("status")
    table.add_column("conditions / values")
    for c in result.constraints:
        extra = "; ".join(c.conditions) if c.conditions else ""
        if c.status in ("refuted",) and c.values:
            extra = ", ".join(f"{k} = {v}" for k, v in c.values.items())
        table.add_row(c.id, escape(c.rule), styled(c.status), escape(extra))
    console.print(table)
    for name, t in result.outputs.items():
        console.print(f"output [bold]{escape(name)}[/]: {escape(str(t))}")
    if result.conditions:
        console.print("[yellow]valid only if:[/] " + escape(", ".join(result.conditions)))
    for f in result.violations:
        print_diagnostic(console, f, result.spec)
    for w in result.warnings:
        print_diagnostic(console, w, result.spec, "warning")
    console.print(f"result: {styled(result.status)}")


def _short_path(path: str) -> str:
    import os
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def render_specs(specs: Iterable, console: Console) -> None:
    table = Table(title="specs", title_justify="left")
    for col in ("op", "domain", "version", "deprecated", "constraints", "file"):
        table.add_column(col)
    for s in specs:
        table.add_row(s.op, s.domain, str(s.version), "yes" if s.deprecated else "",
                      str(len(s.constraints)), escape(_short_path(s.file)))
    console.print(table)


def render_model_report(report, console: Console) -> None:
    """A model check: one row per checked node, then diagnostics, declarations, assumptions, summary."""
    table = Table(title=escape(f"{report.model} ({report.format})"), title_justify="left")
    for col in ("node", "op / spec", "status", "output", "conditions"):
        table.add_column(col)
    for n in report.nodes:
        table.add_row(escape(n.name), escape(f"{n.op_type} / {n.spec or '-'}"), styled(n.status),
                      escape(", ".join(n.outputs.values())), escape("; ".join(n.conditions)))
    console.print(table)
    for n in report.nodes:
        where = f"{n.location or n.name} ({n.op_type}, {n.spec or 'opset ' + str(n.opset)})"
        for f in n.violations:
            print_diagnostic(console, f, where)
            if n.inputs:
                inputs = ", ".join(f"{k} = {v['tensor']}: {v['type']} ({v['source']})" for k, v in n.inputs.items())
                console.print(escape("  = inputs: " + inputs), soft_wrap=True)
        for w in n.warnings:
            print_diagnostic(console, w, where, "warning")
    for d in report.declarations:
        if d.status == "agrees":
            continue
        color = {"error": "red", "warning": "yellow"}.get(d.severity, "cyan")
        label = {"error": "error", "warning": "warning"}.get(d.severity, "note")
        console.print(f"[bold {color}]{label}\\[declaration]: {escape(d.kind)} {escape(repr(d.tensor))} "
                      f"(produced by {escape(d.node)}): {escape(d.status)}[/]")
        console.print(escape(f"  = {d.message}"))
        if d.fix and d.status != "refines":
            console.print(escape(f"  = fix: {d.fix}"))
    for f in report.violations:
        print_diagnostic(console, f, "model")
    conds = [a for a in report.assumptions if a["kind"] == "condition"]
    refs = [a for a in report.assumptions if a["kind"] == "refinement"]
    if conds:
        console.print("[bold yellow]the model is valid only if:[/]")
        for a in conds:
            console.print(escape(f"  {a['condition']}    (needed by {', '.join(a['nodes'])})"))
    if refs:
        console.print("[cyan]taken from declarations (inference left these unknown):[/]")
        for a in refs:
            console.print(escape(f"  {a['condition']}"))
    for note in report.notes:
        console.print(escape(f"note: {note}"))
    s = report.summary
    verdict = "[bold red]FAILED[/]" if report.failed else "[bold green]OK[/]"
    console.print(f"{verdict}  checked {s.get('checked', 0)}: {s.get('valid', 0)} valid, "
                  f"{s.get('conditional', 0)} conditional, {s.get('invalid', 0)} invalid; "
                  f"{s.get('skipped', 0)} nodes without a spec skipped"
                  + ("  (strict)" if report.strict else ""))
    console.print(escape(coverage_line(report.coverage)))


def coverage_line(cov: dict) -> str:
    """``coverage: 40 of 42 nodes by a spec (95%), 2 by onnx's inference, 0 unknown; no spec: Cast x2``"""
    if not cov:
        return "coverage: no nodes"
    n = cov.get("spec", 0) + cov.get("fallback", 0) + cov.get("unknown", 0)
    pct = f" ({100 * cov.get('spec', 0) // n}%)" if n else ""
    rest = sorted(((r.get("fallback", 0) + r.get("unknown", 0), op) for op, r in cov.get("by_op", {}).items()
                   if r.get("fallback", 0) + r.get("unknown", 0)), reverse=True)
    line = (f"coverage: {cov.get('spec', 0)} of {n} nodes by a spec{pct}, {cov.get('fallback', 0)} by onnx's "
            f"inference, {cov.get('unknown', 0)} unknown")
    if cov.get("dead"):
        line += f", {cov['dead']} in branches that never run"
    if rest:
        line += "; no spec: " + ", ".join(f"{op} x{k}" for k, op in rest[:8]) + (" ..." if len(rest) > 8 else "")
    return line
