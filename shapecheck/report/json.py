"""Model outcomes -> the JSON of ``shapecheck check --json`` (schema in the README).

One model given as one file prints that model's report object, as it always has; several
models (several paths, a directory or a glob) print ``{"models": [...], "summary": {...}, "ok":
..., "exit_code": ...}``, where each entry is a model report (or ``{"model", "error"}`` for a
model that could not be read) with its own ``exit_code``.
"""
from __future__ import annotations

from typing import Any, Sequence

from ..batch import totals, worst


def to_json(outcomes: Sequence[Any]) -> dict[str, Any]:
    code = worst(outcomes)
    return {"models": [o.to_dict() for o in outcomes], "summary": totals(outcomes), "ok": code == 0,
            "exit_code": code}
