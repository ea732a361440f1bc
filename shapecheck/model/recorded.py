"""What the graph itself allows past a range the exporter recorded (torch's ``range_constraints``).

A dynamo export records a range for each dynamic dim (``Dim("seq", max=64)`` is ``VR[1, 64]``), and
the check takes it as the model's contract: within it, a condition that holds everywhere is no
condition at all.  So where the graph has a 64-row position table and the record says 64 too, the
table's need never shows, and the report could only say that the graph *may* run on more.

``graph_tops`` checks the graph once more with the recorded tops removed (and a range that pins a
dim, ``VR[32, 32]``, removed whole), and writes what that check proves into each such relation of the
domain (``DomainRelation.graph_checked``, ``graph_top``):

- the graph needs the same top: the relation gets that check's sources (the nodes and the
  constants behind them), so that the fix names the table to make larger;
- the graph is valid up to a larger top, or with none: said so, a proved statement;
- a pin the record alone makes (``pinned``) gets the same words in its finding;
- anything else (a condition over several dims, an invalid node, a pin): nothing is written,
  and the report says what it said before.
"""
from __future__ import annotations

from typing import Any, Callable

from ..findings import PINNED


def recorded_tops(domain: Any, ranges: dict[str, tuple[int, int | None]], nonempty: bool) -> dict[str, tuple[int, None]]:
    """The ranges to check the graph with: of each dim the domain bounds only by its recorded top
    (or pins only by its record), that range with the top removed (the pin removed whole).

    >>> from shapecheck.domain.relation import DomainRelation
    >>> class D: relations = [DomainRelation("bound", ("seq",), "1 <= seq <= 64", lo=1, hi=64, declared=True),
    ...                       DomainRelation("values", ("b",), "b == 32", "error", lo=32, hi=32, values=(32,), declared=True)]
    >>> recorded_tops(D(), {"seq": (1, 64), "b": (32, 32), "n": (1, None)}, True)
    {'seq': (1, None), 'b': (1, None)}
    """
    out: dict[str, tuple[int, None]] = {}
    for r in getattr(domain, "relations", ()):
        if len(r.dims) != 1 or r.dims[0] not in ranges:
            continue
        name = r.dims[0]
        lo, hi = ranges[name]
        if hi is None or r.hi != hi:
            continue
        if r.declared and r.kind == "values" and not r.sources:
            out[name] = (1 if nonempty else 0, None)   # the record pins it: what does the graph need?
        elif (r.declared and r.kind == "bound" and not r.sources) or r.top_recorded:
            out[name] = (lo, None)
    return out


def graph_tops(report: Any, ranges: dict[str, tuple[int, int | None]], nonempty: bool,
               check: Callable[[dict], Any]) -> None:
    """Write into ``report``'s domain what the graph allows past each recorded top (see the module's
    text); ``check(ranges)`` checks the same graph under other recorded ranges and returns its report."""
    widened = recorded_tops(report.domain, ranges, nonempty)
    if not widened:
        return
    other = check({**ranges, **widened})
    if other.domain is None or other.summary.get("invalid", 0) != report.summary.get("invalid", 0) \
            or other.domain.invalid_nodes:
        return
    for r in report.domain.relations:
        if len(r.dims) != 1 or r.dims[0] not in widened:
            continue
        name = r.dims[0]
        about = [x for x in other.domain.relations if name in x.dims]
        if any(len(x.dims) != 1 or x.kind != "bound" or x.severity == "error" for x in about):
            continue   # not one proved interval: the report says only what the record says
        top = about[0].hi if about else None
        if top is not None and (r.hi is None or top < r.hi or (about[0].lo or 0) > (r.lo or 0)):
            continue   # tighter than the record: the first check would have stated it (never expected)
        r.graph_checked, r.graph_top = True, top
        for f in report.violations:   # a pin the record alone makes: its finding says what the graph needs
            if f.constraint == PINNED and f.rule == r.text:
                f.values["without the record"] = r.past_record()
        if top is not None and top == r.hi:   # the graph needs this very top: its nodes and constants
            r.sources = list(about[0].sources)
            r.capped_by = about[0].capped_by
            r.top_recorded = False


__all__ = ["graph_tops", "recorded_tops"]
