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
    console.print(f"[bold {color}]{escape(lines[0])}[/]")
    for line in lines[1:]:
        console.print(escape(line))


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
