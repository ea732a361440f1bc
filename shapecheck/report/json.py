"""Model outcomes -> the JSON of ``shapecheck check --json`` (schema in the README).

One model given as one file prints that model's report object, as it always has; several
models (several paths, a directory or a glob) print ``{"models": [...], "summary": {...}, "ok":
..., "exit_code": ...}``, where each entry is a model report (or ``{"model", "error"}`` for a
model that could not be read) with its own ``exit_code``.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from ..batch import totals, worst


def to_json(outcomes: Sequence[Any]) -> dict[str, Any]:
    code = worst(outcomes)
    return {"models": [o.to_dict() for o in outcomes], "summary": totals(outcomes), "ok": code == 0,
            "exit_code": code}


def dumps(doc: Any, depth: int = 2, indent: int = 2, _level: int = 0) -> str:
    """``doc`` as JSON text: its outer ``depth`` levels indented, each value below them on one line.
    The same document as ``json.dumps(doc, indent=indent)``; a 60k-node report is a line per node,
    written by json's C encoder (which an indent turns off) rather than a line per field.

    >>> print(dumps({"ok": True, "nodes": [{"name": "a", "outputs": {"y": "float[N]"}}], "empty": []}))
    {
      "ok": true,
      "nodes": [
        {"name": "a", "outputs": {"y": "float[N]"}}
      ],
      "empty": []
    }
    """
    if _level >= depth or not isinstance(doc, (dict, list, tuple)) or not doc:
        return json.dumps(doc)
    pad, inner = " " * (indent * _level), " " * (indent * (_level + 1))
    if isinstance(doc, dict):
        items = [f"{inner}{json.dumps(str(k))}: {dumps(v, depth, indent, _level + 1)}" for k, v in doc.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + dumps(v, depth, indent, _level + 1) for v in doc]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"
