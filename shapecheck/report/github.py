"""Model outcomes -> GitHub Actions workflow commands, which annotate the run and the pull request.

One line per finding, ``::error file=PATH,title=TITLE::MESSAGE`` (``::warning`` and ``::notice``
for warnings and notes), escaped as the runner expects: ``%``, CR and LF everywhere, and ``:``
and ``,`` in property values.

>>> github_line("error", "m.onnx", "ScatterND-16/C7", "does not hold\\nfix: x")
'::error file=m.onnx,title=ScatterND-16/C7::does not hold%0Afix: x'
"""
from __future__ import annotations

import os
from typing import Any, Sequence

from .items import all_items

COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def workspace_path(path: str) -> str:
    """The path relative to the working directory (the checkout, in a workflow) when it is inside it."""
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def github_line(level: str, file: str, title: str, message: str) -> str:
    return (f"::{COMMAND[level]} file={escape_property(file)},title={escape_property(title)}"
            f"::{escape_data(message)}")


def to_github(outcomes: Sequence[Any], registry: Any) -> list[str]:
    """The workflow command lines of one run, one per finding."""
    return [github_line(it.level, workspace_path(it.model), it.title, it.message)
            for it in all_items(outcomes, registry)]
