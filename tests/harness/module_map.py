"""The module map of ``docs/design.md``, generated from the packages' faces: each package's row is the
first paragraph of its ``__init__.py``'s docstring and the modules in it, each top-level module's row
the first paragraph of its docstring.  ``tests/test_layout.py`` checks the map is current;
``python -m tests.harness.module_map`` rewrites it in place."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shapecheck"
DESIGN = ROOT / "docs" / "design.md"
BEGIN = "<!-- module map: generated from the packages' faces by python -m tests.harness.module_map -->"
END = "<!-- end of module map -->"


def _summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n")[0].split()).replace("|", "\\|")


def module_map() -> str:
    """The map as a markdown table: the packages, then the top-level modules."""
    rows = ["| package or module | its modules | job (from its docstring) |", "|---|---|---|"]
    for face in sorted(PACKAGE.glob("*/__init__.py")):
        rooms = ", ".join(f"`{p.stem}`" for p in sorted(face.parent.glob("*.py")) if p.name != "__init__.py")
        rows.append(f"| `{face.parent.name}/` | {rooms} | {_summary(face)} |")
    for module in sorted(PACKAGE.glob("*.py")):
        if module.name not in ("__init__.py", "__main__.py"):
            rows.append(f"| `{module.name}` | | {_summary(module)} |")
    return "\n".join(rows)


def current() -> str:
    """The map docs/design.md holds now."""
    text = DESIGN.read_text(encoding="utf-8")
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip()


if __name__ == "__main__":
    text = DESIGN.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DESIGN.write_text(text[:start] + "\n" + module_map() + "\n" + text[end:], encoding="utf-8")
