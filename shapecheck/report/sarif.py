"""Model outcomes -> SARIF 2.1.0, the format GitHub code scanning and other CI systems read.

One rule per spec constraint that a result names (``ScatterND-18/C7``: its message, notation
and the spec's note and fix as help) and per engine finding (``shapecheck/A1``, from
``shapecheck.findings``).  Each result carries the model file as its artifact location, the
node (name and op) as its logical location, the message with the values and the fix, and a
``partialFingerprints`` entry computed from the file, the node, the rule and the finding's
subject only, so it is the same across runs.

A model file has no lines: GitHub code scanning requires a region, so results point at
line 1 of the model file.
"""
from __future__ import annotations

import hashlib
import os
from typing import Any, Sequence

from .items import TOOL, Item, Rule, all_items

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT = "shapecheckFinding/v1"


def artifact_uri(path: str) -> str:
    """A path relative to the working directory (what CI checkouts use), else a file URI."""
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    if rel.startswith(".."):
        return "file://" + os.path.abspath(path).replace(os.sep, "/")
    return rel.replace(os.sep, "/")


def fingerprint(item: Item) -> str:
    key = "\0".join((artifact_uri(item.model), item.node, item.rule.id, item.subject))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _rule(r: Rule) -> dict[str, Any]:
    return {"id": r.id, "name": r.id.replace("/", "_").replace("-", "_").replace(":", "_"),
            "shortDescription": {"text": r.title}, "fullDescription": {"text": r.text},
            "help": {"text": r.help}, "defaultConfiguration": {"level": r.level}}


def _result(item: Item, index: int) -> dict[str, Any]:
    loc: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(item.model)},
                                                "region": {"startLine": 1}}}
    if item.nodes:
        loc["logicalLocations"] = [{"name": name, "fullyQualifiedName": f"{name} ({op})" if op else name,
                                    "kind": "function", "properties": {"op_type": op}}
                                   for name, op in item.nodes]
    return {"ruleId": item.rule.id, "ruleIndex": index, "level": item.level,
            "message": {"text": item.message}, "locations": [loc],
            "partialFingerprints": {FINGERPRINT: fingerprint(item)}}


def to_sarif(outcomes: Sequence[Any], registry: Any, version: str, exit_code: int) -> dict[str, Any]:
    """The SARIF log of one run over ``outcomes`` (``shapecheck.batch.Outcome``)."""
    items = all_items(outcomes, registry)
    rules: dict[str, int] = {}
    rule_list: list[dict[str, Any]] = []
    results = []
    for it in items:
        if it.rule.id not in rules:
            rules[it.rule.id] = len(rule_list)
            rule_list.append(_rule(it.rule))
        results.append(_result(it, rules[it.rule.id]))
    artifacts = [{"location": {"uri": artifact_uri(o.path)}} for o in outcomes]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL, "version": version, "semanticVersion": version,
                                "rules": rule_list}},
            "invocations": [{"executionSuccessful": exit_code < 2, "exitCode": exit_code}],
            "artifacts": artifacts,
            "results": results,
        }],
    }
