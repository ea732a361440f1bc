"""A verify run -> a table of its samples, a verdict and reproducers."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..verify import VerifyReport


def render_verify(report: VerifyReport, console: Console) -> None:
    """A table of the samples and a verdict line (``console`` is a ``rich.console.Console``)."""
    table = Table(title=escape(f"verify {report.spec}: query is {report.status}"
                               + (f" ({', '.join(report.conditions)})" if report.conditions else "")),
                  title_justify="left")
    for col in ("#", "intent", "substitution", "shapes", "predicted", "solver", "executor", "agree"):
        table.add_column(col)
    for s in report.samples:
        table.add_row(str(s.index), s.intent, escape(", ".join(f"{k}={v}" for k, v in s.substitution.items())),
                      escape(" ".join(f"{n}[{','.join(map(str, v))}]" for n, v in s.shapes.items())), escape(s.predicted),
                      escape(s.solver), escape(s.executor), "[green]yes[/]" if s.agree else "[bold red]NO[/]")
    console.print(table)
    bad = [s for s in report.samples if not s.agree]
    if not bad:
        console.print(f"[bold green]verified:[/] solver and executor agree on all {len(report.samples)} samples "
                      f"(seed {report.seed})")
        return
    console.print(f"[bold red]disagreement:[/] {len(bad)} of {len(report.samples)} samples (seed {report.seed})")
    for r in report.reproducers:
        console.print(f"sample {r['sample']}: {escape(r['why'])}")
        console.print(escape(r["python"]))
