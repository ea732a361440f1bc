"""The README's examples run exactly as shown.

* Every line of a code block that starts with ``$ shapecheck`` is run (from the repository root,
  with ``COLUMNS=100``); the lines under it, up to a blank line or the next ``$``, are what it
  prints: stdout and stderr together, in order, trailing spaces aside.
* Every code block that starts with ``>>>`` runs as a doctest.
"""
from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
from pathlib import Path

import pytest

from shapecheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```[a-z]*\n(.*?)^```", README, re.S | re.M)


def shell_examples() -> list[tuple[str, str]]:
    out = []
    for block in BLOCKS:
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ shapecheck"):
                i += 1
                continue
            cmd = lines[i][2:]
            while cmd.endswith("\\"):
                i += 1
                cmd = cmd[:-1] + lines[i].strip()
            i += 1
            expected = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("$ "):
                expected.append(lines[i])
                i += 1
            out.append((cmd, "\n".join(expected)))
    return out


EXAMPLES = shell_examples()


def test_the_readme_has_examples_of_each_kind():
    assert len(EXAMPLES) >= 4 and any(b.startswith(">>>") for b in BLOCKS)
    first = README.split("```", 2)[1]
    assert "python -m pip install . && shapecheck check examples/kv_cache.onnx" in first
    assert 'python -m pip install ".[test]" && python -m pytest' in first


@pytest.mark.parametrize("cmd,expected", EXAMPLES, ids=[c[:70] for c, _ in EXAMPLES])
def test_shell_example(cmd, expected, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    argv = shlex.split(cmd)
    assert argv[0] == "shapecheck"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        main(argv[1:])
    got = "\n".join(line.rstrip() for line in buf.getvalue().rstrip("\n").splitlines())
    assert got == "\n".join(line.rstrip() for line in expected.splitlines())


@pytest.mark.parametrize("index", [i for i, b in enumerate(BLOCKS) if b.startswith(">>>")])
def test_python_example(index, monkeypatch):
    monkeypatch.chdir(ROOT)
    test = doctest.DocTestParser().get_doctest(BLOCKS[index], {}, f"README block {index}", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
