"""Findings that repeat, grouped: a decoder's forty layers make the same finding forty times.

Two findings are one group when their text is the same once the numbers inside node and
tensor names are blanked (not the values the finding states) (``/m/layers.3/attention/Reshape`` and ``/m/layers.17/attention/Reshape``),
and so are the notes of one kind on one op (every Gather's index check left to the runtime).
A group prints its first finding whole, then how many more there are and the first few names;
JSON and SARIF keep every finding.

>>> [len(g.members) for g in group([("error", "C3", "node '/l.0/mm' (#1): K == K2", "/l.0/mm"),
...                                  ("error", "C3", "node '/l.12/mm' (#40): K == K2", "/l.12/mm"),
...                                  ("error", "C7", "node 'x' (#2): other", "x")])]
[2, 1]
>>> cut(["a", "b", "c", "d", "e"], 3)
'a, b, c and 2 more'
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

# numbers inside names (layers.3, Reshape_12, #40), not values (K = 33, float[4,8])
_NUMBER = re.compile(r"(?<=[A-Za-z_./#:])\d+")
SHOWN = 3           # names of a group's other members shown


@dataclass
class Group:
    """Findings alike but for the numbers in their names: the first, and the names of all."""

    severity: str
    kind: str
    first: str                                   # the first finding's full text
    members: list[str] = field(default_factory=list)
    payload: Any = None                          # what the caller keeps of the first (its lines)

    def tail(self) -> str:
        """``  = and 39 more like it: '/m/layers.1/...', ...``; empty for a group of one."""
        if len(self.members) <= 1:
            return ""
        rest = self.members[1:]
        return f"  = and {len(rest)} more like it: " + cut([repr(m) for m in rest], SHOWN)


def _key(severity: str, kind: str, text: str) -> tuple:
    return severity, kind, _NUMBER.sub("#", text)


def group(findings: Iterable[tuple]) -> list[Group]:
    """Findings ``(severity, kind, text, name[, payload])`` grouped, in the order each group first
    appears; a group keeps the payload of its first finding."""
    out: dict[tuple, Group] = {}
    for severity, kind, text, name, *payload in findings:
        key = _key(severity, kind, text)
        g = out.get(key)
        if g is None:
            g = out[key] = Group(severity, kind, text, payload=payload[0] if payload else None)
        g.members.append(name)
    return list(out.values())


def cut(items: list[str], n: int) -> str:
    """The first ``n`` items, and how many more there are."""
    if len(items) <= n:
        return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1] if items else ""
    return ", ".join(items[:n]) + f" and {len(items) - n} more"


__all__ = ["Group", "group", "cut"]
