"""Model outcomes -> JUnit XML for CI dashboards.

One ``testsuite`` per model; in it one ``testcase`` per node with findings (errors become a
``failure``, warnings and notes go to ``system-out``), one for model-level findings, and a
single passing ``testcase`` for a model without findings.  An unreadable model is a
testcase with an ``error``.
"""
from __future__ import annotations

from typing import Any, Sequence
from xml.etree import ElementTree as ET

from .items import Item, model_items


def _case(suite: ET.Element, model: str, name: str, items: list[Item], unreadable: bool) -> tuple[int, int]:
    case = ET.SubElement(suite, "testcase", classname=model, name=name)
    errors = [i for i in items if i.level == "error"]
    others = [i for i in items if i.level != "error"]
    if errors:
        tag = "error" if unreadable else "failure"
        el = ET.SubElement(case, tag, type=",".join(dict.fromkeys(i.rule.id for i in errors)),
                           message="; ".join(i.message.splitlines()[0] for i in errors))
        el.text = "\n\n".join(f"{model}: {i.message}" for i in errors)
    if others:
        ET.SubElement(case, "system-out").text = "\n\n".join(f"{model}: {i.level}: {i.message}" for i in others)
    return (1 if errors and not unreadable else 0), (1 if unreadable else 0)


def to_junit(outcomes: Sequence[Any], registry: Any) -> str:
    """The JUnit XML document (a ``testsuites`` root) of one run."""
    root = ET.Element("testsuites", name="shapecheck")
    totals = [0, 0, 0]
    for o in outcomes:
        suite = ET.SubElement(root, "testsuite", name=o.path)
        groups: dict[str, list[Item]] = {}
        for it in model_items(o, registry):
            key = f"node {it.node!r} ({it.op_type})" if it.node and it.op_type else (
                f"node {it.node!r}" if it.node else "model")
            groups.setdefault(key, []).append(it)
        if not groups:
            groups["model"] = []
        counts = [0, 0, 0]
        for name, items in groups.items():
            f, e = _case(suite, o.path, name, items, bool(o.error))
            counts = [counts[0] + 1, counts[1] + f, counts[2] + e]
        suite.set("tests", str(counts[0]))
        suite.set("failures", str(counts[1]))
        suite.set("errors", str(counts[2]))
        totals = [a + b for a, b in zip(totals, counts)]
    root.set("tests", str(totals[0]))
    root.set("failures", str(totals[1]))
    root.set("errors", str(totals[2]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")
