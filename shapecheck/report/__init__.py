"""Everything shapecheck prints: rich tables and compiler-style text (``text``), JSON, SARIF 2.1.0,
JUnit XML and GitHub workflow commands, plus the renderings of ``diff`` and ``verify``.

Results and reports carry ``to_dict()``; the modules here only render.
"""
from __future__ import annotations

from .text import diagnostic_lines, print_diagnostic, render_model_report, render_result, render_specs

__all__ = ["diagnostic_lines", "print_diagnostic", "render_model_report", "render_result", "render_specs"]
