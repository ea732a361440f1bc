"""The CLI's output without rich (``shapecheck/report/console.py``) is rich's, character for character.

``escape`` against ``rich.markup.escape`` on random text; ``LazyConsole.print`` against a rich
``Console`` with the same options on random markup; and the CLI's whole output on the shipped
models against the same run in which rich writes it (``TTY_COMPATIBLE=0`` leaves every line to
rich, which then writes to the pipe as to any file)."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from rich.console import Console
from rich.errors import MarkupError
from rich.markup import escape as rich_escape

from shapecheck.report.console import LazyConsole, escape

ROOT = Path(__file__).resolve().parent.parent
TEXT = st.lists(st.sampled_from(list("[]\\/ab :#@=x1_-é") + ["[a]", "[/]", "[bold]", "\\[", "\t", "\r", "\x1b"]),
                max_size=30).map("".join)
TAGS = ["bold", "bold red", "red", "green", "bold green", "yellow", "dim", "cyan", "bold yellow"]


@settings(max_examples=800, deadline=None)
@given(TEXT)
def test_escape_is_rich_s(text):
    assert escape(text) == rich_escape(text)


@st.composite
def markup(draw):
    """Lines as the reports write them: escaped text, and tags of ours around some of it."""
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        text = escape(draw(TEXT))
        tag = draw(st.one_of(st.none(), st.sampled_from(TAGS)))
        parts.append(text if tag is None else f"[{tag}]{text}[/{'' if draw(st.booleans()) else tag}]")
    return draw(st.sampled_from([" ", "", "  "])).join(parts)


@settings(max_examples=800, deadline=None)
@given(markup(), st.booleans())
def test_a_line_is_written_as_rich_writes_it(line, stderr_like):
    ours, theirs = io.StringIO(), io.StringIO()
    options = dict(highlight=False, soft_wrap=True) if stderr_like else dict(highlight=False, width=120)
    try:
        Console(file=theirs, emoji=False, **options).print(line, soft_wrap=True)
    except MarkupError:   # pieces joined into a stray closing tag ("[" + "/]"): rich refuses, ours writes it
        return
    LazyConsole(file=ours, **options).print(line, soft_wrap=True)
    assert ours.getvalue() == theirs.getvalue()


def test_what_it_does_not_write_itself_goes_to_rich():
    out = io.StringIO()
    console = LazyConsole(file=out, width=40)
    console.print("x " * 30)   # wrapped at the width: rich's
    assert console._rich is not None and out.getvalue().count("\n") == 2
    tty = LazyConsole(file=out)
    out.isatty = lambda: True   # a terminal: rich writes its styles
    assert tty.is_terminal and tty._rich is not None


MODELS = [*sorted(ROOT.glob("examples/*.onnx")), ROOT / "tests/fixtures/zoo/cnn_ts17.onnx",
          ROOT / "tests/fixtures/exports/kv_sink_ts17.onnx", ROOT / "examples/scatter_update.xml"]


@pytest.mark.parametrize("options", [[], ["-q"], ["--nodes", "all"]])
def test_the_cli_writes_what_rich_writes(options):
    code = ("import sys; from shapecheck.cli import main; c = main(sys.argv[1:]); "
            "sys.stderr.write('rich imported' if 'rich' in sys.modules else ''); sys.exit(c)")
    argv = [sys.executable, "-c", code, "check", "--jobs", "1", *options, *map(str, MODELS)]   # in order
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}   # one width for both: 120
    ours = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    theirs = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=300,
                            env={**env, "TTY_COMPATIBLE": "0"})
    assert ours.returncode == theirs.returncode == 1
    assert ours.stdout == theirs.stdout and ours.stdout.count("\n") > len(MODELS)
    assert ours.stderr.replace("rich imported", "") == theirs.stderr.replace("rich imported", "")
    assert ("rich imported" in ours.stderr) == (options == ["--nodes", "all"])   # a table is rich's


def test_names_are_written_as_they_are_not_as_emoji():
    from rich.table import Table
    out = io.StringIO()
    console = LazyConsole(file=out, width=100)
    console.print(escape("node ':fire:' (#0)"), soft_wrap=True)
    table = Table()
    table.add_column("node")
    table.add_row(escape(":fire:"))
    console.print(table)
    assert out.getvalue().count(":fire:") == 2 and "\N{FIRE}" not in out.getvalue()
