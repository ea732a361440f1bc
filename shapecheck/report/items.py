"""Model outcomes -> a flat list of findings with their rules: what SARIF, JUnit and GitHub render.

Each ``Item`` is one finding at one place: which rule (a spec constraint ``ScatterND-18/C7``,
or an engine finding ``shapecheck/A1`` from ``shapecheck.findings``), its level, the model
file, the node (name and op) and a message that carries the values and the fix.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from ..errors import UsageError
from ..findings import CONDITION, DECLARATION, ENGINE, causes_first, engine_id, is_engine
from ..result import Finding
from .text import declaration_lines, diagnostic_lines, node_where

TOOL = "shapecheck"


@dataclass(frozen=True)
class Rule:
    """A rule as CI systems list it: id, short title, full text and help."""

    id: str
    title: str
    text: str
    help: str
    level: str


@dataclass
class Item:
    rule: Rule
    level: str                       # error | warning | note
    model: str
    message: str
    short: str                       # C7, A1, declaration, condition, unreadable
    node: str = ""                   # node name ("" for the model as a whole)
    op_type: str = ""
    nodes: list[tuple[str, str]] = field(default_factory=list)   # (name, op) of every node concerned
    subject: str = ""                # what makes the finding unique within its node (fingerprints)

    @property
    def title(self) -> str:
        where = f" at node {self.node!r}" if self.node else ""
        return f"{self.rule.id}{where}: {self.rule.title}"


def engine_rule(fid: str) -> Rule:
    f = ENGINE[fid]
    return Rule(f"{TOOL}/{f.id}", f.title, f.title, f.help, f.level)


def spec_rule(registry: Any, spec_name: str, rid: str) -> Rule | None:
    """The rule of a spec's constraint or warning, with its text and help from the spec file."""
    try:
        r = registry.get(spec_name).rule(rid)
    except (KeyError, UsageError):   # a spec from a registry this run does not have
        return None
    help_ = f"{r.message}. Rule: `{r.rule}`."
    if r.note:
        help_ += f" Note: {r.note}"
    if r.fix:
        help_ += f" Fix: {r.fix}"
    level = "warning" if rid.startswith("W") else "error"
    return Rule(f"{spec_name}/{rid}", r.message, f"{r.message}: `{r.rule}`", help_, level)


def _finding_rule(registry: Any, spec: str, f: Finding) -> Rule:
    if is_engine(f.constraint) or not spec:
        return engine_rule(engine_id(f.constraint))
    return spec_rule(registry, spec, f.constraint) or engine_rule(engine_id(f.constraint))


def _one_line(lines: list[str]) -> str:
    return lines[0] + "".join("\n" + line.strip().lstrip("= ") for line in lines[1:])


def model_items(outcome: Any, registry: Any) -> Iterator[Item]:
    """Every finding of one model outcome, in report order."""
    path = outcome.path
    if outcome.error:
        msg = outcome.error[len(path) + 2:] if outcome.error.startswith(path + ": ") else outcome.error
        yield Item(engine_rule(outcome.kind), "error", path, msg, outcome.kind)
        return
    rep = outcome.report
    ops = {n.name: n.op_type for n in rep.nodes}
    causes, others = causes_first(rep.violations)   # a model finding that explains the node findings: first
    yield from (_model_item(f, path, ops) for f in causes)
    for n in rep.nodes:
        for sev, fs in (("error", n.violations), ("warning", n.warnings)):
            for f in fs:
                rule = _finding_rule(registry, n.spec, f)
                yield Item(rule, sev, path, _one_line(diagnostic_lines(f, node_where(n), sev)), f.constraint,
                           n.name, n.op_type, [(n.name, n.op_type)], f.constraint)
    for d in rep.declarations:
        if d.status not in DECLARATION or (d.status == "refines"):
            continue
        label, lines = declaration_lines(d)
        level = {"error": "error", "warning": "error" if rep.strict else "warning"}.get(d.severity, "note")
        yield Item(engine_rule(DECLARATION[d.status]), level, path, _one_line(lines), "declaration",
                   d.node, ops.get(d.node, ""), [(d.node, ops.get(d.node, ""))], f"{d.kind}:{d.tensor}")
    yield from (_model_item(f, path, ops) for f in others)
    for text, nodes in _conditions(rep):
        names = [x for x in nodes if x in ops]
        msg = f"the model is valid only if {text} (needed by {', '.join(nodes)})"
        first = names[0] if names else ""
        yield Item(engine_rule(CONDITION), "error" if rep.strict else "note", path, msg, CONDITION,
                   first, ops.get(first, ""), [(x, ops[x]) for x in names], text)


def _model_item(f: Any, path: str, ops: dict[str, str]) -> Item:
    names = [x for x in f.constraint.split("+") if x in ops]
    return Item(engine_rule(engine_id(f.constraint)), "error", path, _one_line(diagnostic_lines(f, "model")),
                engine_id(f.constraint), nodes=[(x, ops[x]) for x in names], subject=f.rule)


def _conditions(rep: Any) -> list[tuple[str, list[str]]]:
    """(text, nodes) of each condition the model needs that is not an error finding: the input
    domain's relations in their simple form, else the conditions as the nodes stated them."""
    domain = getattr(rep, "domain", None)
    if domain is None:
        return [(a["condition"], list(a["nodes"])) for a in rep.assumptions if a["kind"] == "condition"]
    return [(r.text, list(dict.fromkeys(s.node for s in r.sources))) for r in domain.relations if r.severity != "error"]


def all_items(outcomes: Iterable[Any], registry: Any) -> list[Item]:
    return [i for o in outcomes for i in model_items(o, registry)]
