"""Shared by the random differential tests: print the disagreement classes found, require each in the docs."""
from __future__ import annotations

from pathlib import Path

FINDINGS = Path(__file__).resolve().parents[2] / "docs" / "runtime-findings.md"


def report_classes(title: str, classes: dict[str, str], capsys) -> list[str]:
    """Print ``classes`` (id -> an example) and return the ids docs/runtime-findings.md lacks."""
    with capsys.disabled():
        print(f"\n{title} disagreement classes found:")
        for cid, example in sorted(classes.items()):
            print(f"  {cid}: e.g. {example}")
    documented = FINDINGS.read_text(encoding="utf-8")
    return [cid for cid in classes if f"`class: {cid}`" not in documented]
