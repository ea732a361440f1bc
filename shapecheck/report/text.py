"""Results -> what people read: rich tables and compiler-style diagnostics.

JSON output is ``Result.to_dict()`` (and the model report's ``to_dict()``); this
module only renders.  Diagnostics read like a compiler's::

    error[C7]: ScatterND-13: `updates.shape == indices.shape[:-1] ++ data.shape[k:]` does not hold
      = updates must have shape indices.shape[0:q-1] ++ data.shape[k:]
      = values: updates.shape = [2,4], indices.shape[:-1] = [2], data.shape[k:] = [4,4]
      = fix: give updates the shape [2,4,4]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from .console import escape

if TYPE_CHECKING:
    from rich.console import Console

from ..findings import DECLARATION, ENGINE, states_a_rule
from ..result import Finding, Result
from .grouping import cut

STATUS_STYLE = {"valid": "bold green", "conditional": "bold yellow", "invalid": "bold red",
                "proved": "green", "refuted": "red", "unchecked": "cyan", "skipped": "dim", "skip": "dim"}


def styled(status: str) -> str:
    style = STATUS_STYLE.get(status, "")
    return f"[{style}]{status}[/]" if style else status


def diagnostic_lines(f: Finding, where: str, severity: str = "error") -> list[str]:
    """One finding as plain text lines (rich markup-free), compiler style."""
    head = f"{severity}[{f.constraint}]: {where}: `{f.rule}`"
    head += " does not hold" if severity == "error" and states_a_rule(f.constraint) else ""
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


def render_result(result: Result, console: Console, query: str = "", quiet: bool = False) -> None:
    """The report of one ``infer`` query: constraints (unless ``quiet``), outputs, conditions, diagnostics."""
    if not quiet:
        title = f"{result.spec}" + (f"  {query}" if query else "")
        from rich.table import Table   # rich is imported for a table alone (console.py)
        table = Table(title=escape(title), title_justify="left", show_lines=False)
        table.add_column("id", style="bold")
        table.add_column("constraint", overflow="fold")
        table.add_column("status")
        table.add_column("conditions / values", overflow="fold")
        for c in result.constraints:
            extra = "; ".join(c.conditions) if c.conditions else ""
            if c.status in ("refuted",) and c.values:
                extra = ", ".join(f"{k} = {v}" for k, v in c.values.items())
            table.add_row(c.id, escape(c.rule), styled(c.status), escape(extra))
        console.print(table)
    for name, t in result.outputs.items():
        console.print(f"output [bold]{escape(name)}[/]: {escape(str(t))}")
    if result.conditions:
        console.print("[yellow]valid only if:[/] " + escape(", ".join(result.conditions)), soft_wrap=True)
    if result.runtime_checks:
        console.print(escape(f"note: {', '.join(result.runtime_checks)} read values known only at run time: "
                             "not proved here, the runtime checks them"), soft_wrap=True)
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
    from rich.table import Table   # rich is imported for a table alone (console.py)
    table = Table(title="specs", title_justify="left")
    specs = list(specs)             # the op column is never cut (SkipSimplifiedLayerNormalization: 32 characters)
    for col in ("op", "domain", "version", "deprecated", "constraints", "file"):
        table.add_column(col, min_width=max((len(s.op) for s in specs), default=0) if col == "op" else None)
    for s in specs:
        table.add_row(s.op, s.domain, str(s.version), "yes" if s.deprecated else "",
                      str(len(s.constraints)), escape(_short_path(s.file)))
    console.print(table)


def print_diagnostic_to(console: Console, lines: list[str], severity: str, prefix: str = "") -> None:
    """Compiler-style lines; the first names the file (``model.onnx: error[C7]: ...``)."""
    color = {"error": "red", "warning": "yellow"}.get(severity, "cyan")
    console.print(f"[bold {color}]{escape(prefix + lines[0])}[/]", soft_wrap=True)
    for line in lines[1:]:
        console.print(escape(line), soft_wrap=True)


def node_where(n) -> str:
    """``node 'x' (#0) (ScatterND, ScatterND-16)``: where a node's findings point."""
    return f"{n.location or n.name} ({n.op_type}, {n.spec or 'opset ' + str(n.opset)})"


def declaration_lines(d) -> tuple[str, list[str]]:
    """(severity, lines) of a declaration that does not simply agree with inference."""
    label = {"error": "error", "warning": "warning"}.get(d.severity, "note")
    # the headline says what happened (the engine finding's title), not the status word
    what = ENGINE[DECLARATION[d.status]].title if d.status in DECLARATION else d.status
    lines = [f"{label}[declaration]: {d.kind} {d.tensor!r} (produced by {d.node}): {what}", f"  = {d.message}"]
    if d.fix and (d.status != "refines" or d.severity != "info"):
        lines.append(f"  = fix: {d.fix}")
    return label, lines


def runtime_check_lines(n) -> list[str]:
    """The note a node carries for constraints on values known only at run time (``C8``), and for
    each of them that holds for every input value at some sizes, those sizes (``solver/loose.py``)."""
    checks = getattr(n, "runtime_checks", None) or []
    if not checks or n.status == "invalid":
        return []
    lines = [f"note[runtime-check]: {node_where(n)}: {', '.join(checks)} not proved here: "
             "it reads values of its inputs known only at run time (such as indices, or sizes computed in float); the runtime checks them"]
    for cid, when in (getattr(n, "runtime_when", None) or {}).items():
        lines.append(f"  = {cid} holds for every input value when {when}; at other sizes the runtime checks it")
    return lines


def summary_text(report, label: str = "") -> str:
    """``checked 3: 0 valid, 0 conditional, 3 invalid; 0 nodes without a spec skipped``."""
    s = report.summary
    unchecked = s.get("unchecked", 0)
    return (f"{label}checked {s.get('checked', 0)}: {s.get('valid', 0)} valid, "
            f"{s.get('conditional', 0)} conditional, {s.get('invalid', 0)} invalid; "
            + (f"{unchecked} nodes of operators with specs left unchecked (no spec for their version, "
               "see the notes above); " if unchecked else "")
            + (f"{s['fed_by_invalid']} not checked (fed by an invalid node); " if s.get("fed_by_invalid") else "")
            + f"{s.get('skipped', 0)} nodes without a spec skipped" + ("  (strict)" if report.strict else ""))


def verdict_markup(report) -> str:
    """FAILED, OK, or OK except N unchecked: a model with unchecked nodes never gets a bare OK."""
    unchecked = report.summary.get("unchecked", 0)
    if report.failed:
        return "[bold red]FAILED[/]"
    return f"[bold yellow]OK except {unchecked} unchecked[/]" if unchecked else "[bold green]OK[/]"


def domain_lines(domain, skipped: int = 0) -> list[str]:
    """The input domain: ``valid for: batch >= 1, 1 <= seq <= 64 (assuming every input dim >= 1)``,
    then each relation that is not an error (errors are findings) with the nodes that need it;
    ``skipped``: the nodes without a spec, whose needs are not in it (the summary's count)."""
    given = ", ".join(f"{k} = {v}" for k, v in domain.given.items())   # --dims
    if domain.invalid_nodes:
        many = len(domain.invalid_nodes) > 1
        which = f"node{'s' if many else ''} {cut([repr(n) for n in domain.invalid_nodes], 3)} {'are' if many else 'is'}"
        if given:   # not "no input size": the model may be valid at others
            whatever = f" (whatever {', '.join(domain.dims)})" if domain.dims else ""
            return [f"valid for: not at {given}{whatever}: {which} invalid there"]
        where = "at every size" if domain.dims else "at these sizes"   # or a model of fixed sizes
        return [f"valid for: no input size: {which} invalid {where}"]
    if getattr(domain, "malformed", ()):
        return [f"valid for: no input size: the graph itself breaks {', '.join(domain.malformed)} (above)"]
    if not domain.dims and not domain.relations:
        return []
    text = domain.text() or "every size"
    unchecked = f"; not checked: {skipped} node{'s' if skipped > 1 else ''} without a spec" if skipped else ""
    lines = [f"valid for: {text}" + (f" at {given}" if given and domain.dims else "")
             + ("" if not domain.valid else f" (assuming {domain.assumption}{unchecked})")]
    for r in domain.relations:
        if r.severity == "error":
            continue
        nodes = list(dict.fromkeys(src.node for src in r.sources))
        consts = list(dict.fromkeys(c for src in r.sources for c in src.constants))
        why = f"needed by {', '.join(nodes[:4])}" + (f" and {len(nodes) - 4} more" if len(nodes) > 4 else "")
        if r.needs:   # the nodes need different parts of it: each its own
            why = "needed by " + "; ".join(f"{who}: {text}" for who, text in r.needs[:4])
        past = r.past_record()   # what the graph allows past the recorded top, where checked
        if r.top_recorded:   # the nodes need its bottom; its top is the range the exporter recorded
            consts = []
            why += "; its top recorded by the exporter and taken as the model's contract" + (f"; {past}" if past else "")
        if consts:
            why += "; from " + ", ".join(consts[:2])
        if r.opaque:
            why += ", of types or shapes not inferred here: not a size condition"
        if r.where_run:
            why += ", only where its branch or loop body runs"
        if nodes and r.declared and past:   # the graph needs the very top the exporter recorded
            why += f"; {past}"
        if not nodes and r.declared:
            why = "recorded by the exporter and taken as the model's contract; " + (
                past or "the graph itself may run on more: try a size with --dims")
        lines.append(f"  {r.text}    ({why})" if nodes or r.declared else f"  {r.text}")
        if consts and r.caps:
            lines.append(f"    = to go past it: re-export with {' and '.join(consts[:2])} larger (the bound is its size)")
    for e in getattr(domain, "every_value", ()):
        lines.append(f"  for every input value: {e['condition']}    (the index values {cut([repr(n) for n in e['nodes']], 2)} "
                     "read are in range there; at other sizes the runtime checks them)")
    return lines


def symbol_lines(symbols: list[dict]) -> list[str]:
    """The sizes known only at run time that types and conditions name, each with its bounds.

    >>> symbol_lines([{"name": "nnz_1", "node": "nz", "op_type": "NonZero", "where": "nz.shape[1]",
    ...                "bounds": "0 <= nnz_1 <= 16"}])
    ['sizes known only at run time:', '  nnz_1: nz.shape[1] (NonZero nz), 0 <= nnz_1 <= 16']
    """
    if not symbols:
        return []
    return ["sizes known only at run time:"] + [
        f"  {s['name']}: {s['where']} ({s['op_type']} {s['node']}), {s['bounds']}" for s in symbols]


def coverage_line(cov: dict) -> str:
    """``coverage: 40 of 42 nodes by a spec (95%), 2 by onnx's inference, 0 unknown; no spec: Cast x2``"""
    if not cov:
        return "coverage: no nodes"
    n = cov.get("spec", 0) + cov.get("subgraphs", 0) + cov.get("fallback", 0) + cov.get("unknown", 0)
    pct = f" ({100 * cov.get('spec', 0) // n}%)" if n else ""
    rest = sorted(((r.get("fallback", 0) + r.get("unknown", 0), op) for op, r in cov.get("by_op", {}).items()
                   if r.get("fallback", 0) + r.get("unknown", 0)), reverse=True)
    line = (f"coverage: {cov.get('spec', 0)} of {n} nodes by a spec{pct}, "
            + (f"{cov['subgraphs']} by their subgraphs (control flow), " if cov.get("subgraphs") else "")
            + f"{cov.get('fallback', 0)} by onnx's inference, {cov.get('unknown', 0)} unknown")
    if cov.get("dead"):
        line += f", {cov['dead']} in branches that never run"
    if rest:
        line += "; no spec: " + ", ".join(f"{op} x{k}" for k, op in rest[:8]) + (" ..." if len(rest) > 8 else "")
    return line
