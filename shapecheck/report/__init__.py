"""Everything shapecheck prints: rich tables and compiler-style text (``text``), JSON, SARIF 2.1.0,
JUnit XML and GitHub workflow commands, plus the renderings of ``diff`` and ``verify``.

Results and reports carry ``to_dict()``; the modules here only render.
"""
from __future__ import annotations

from .model_text import render_model_report, render_outcomes
from .text import diagnostic_lines, print_diagnostic, render_result, render_specs

__all__ = ["diagnostic_lines", "print_diagnostic", "render_model_report", "render_outcomes", "render_result",
           "render_specs"]
