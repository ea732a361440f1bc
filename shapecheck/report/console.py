"""The CLI's output streams: rich's console, imported only for what needs it.

Importing rich takes 0.07-0.1 s, a fifth of checking a small model from the CLI.  Most output is
lines of console markup printed without wrapping (``soft_wrap``) to a file or a pipe, where rich
writes the text without its styles.  ``LazyConsole`` writes those lines itself, as rich would;
anything else (a table, a wrapped line, a terminal, a forced colour) goes to a rich ``Console``
made on first use with the same options.  ``escape`` is rich's ``markup.escape``.
``tests/test_console.py`` compares both with rich's on random markup.

>>> import io
>>> out = io.StringIO()
>>> LazyConsole(file=out).print(f"[bold red]FAILED[/]  {escape('x[1]: [a]')}", soft_wrap=True)
>>> out.getvalue()
'FAILED  x[1]: [a]\\n'
"""
from __future__ import annotations

import builtins
import os
import re
import sys
from typing import Any, Callable

_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")   # rich.markup's tags, with the backslashes before them
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")   # what rich strips or expands: left to rich
# what makes rich treat a file as a terminal, or not, whatever isatty says
_TERMINAL_ENV = ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES")


def escape(markup: str) -> str:
    """Text escaped so that console markup shows it as it is (``[a]`` is not a tag), as
    ``rich.markup.escape`` escapes it.

    >>> escape("error[unreadable]: x\\\\")
    'error\\\\[unreadable]: x\\\\\\\\'
    """
    markup = _TAG.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", markup)
    if markup.endswith("\\") and not markup.endswith("\\\\"):
        return markup + "\\"
    return markup


def plain(markup: str) -> str:
    """Console markup as rich writes it without styles: the tags gone, an escaped tag and the
    backslashes before it as the text they stand for, and ``\\[`` as ``[``.

    >>> plain("[bold]a[/] \\\\[b] [green]c[/green]")
    'a [b] c'
    """
    out, pos = [], 0
    for m in _TAG.finditer(markup):
        out.append(markup[pos:m.start()].replace("\\[", "["))   # a bracket escaped where no tag follows
        slashes, tag = m.group(1), m.group(2)
        pairs, escaped = divmod(len(slashes), 2)
        out.append("\\" * pairs)
        if escaped:
            out.append(tag)
        pos = m.end()
    out.append(markup[pos:].replace("\\[", "["))
    return "".join(out)


class LazyConsole:
    """A rich ``Console``'s ``print`` and ``is_terminal`` for markup lines without wrapping to a
    file or pipe, without importing rich; every other use goes to the rich console it stands for."""

    def __init__(self, *, stderr: bool = False, soft_wrap: bool = False, file: Any = None, **options: Any) -> None:
        self._stderr, self._soft_wrap, self._file = stderr, soft_wrap, file
        self._options = {"stderr": stderr, "soft_wrap": soft_wrap, "file": file, "emoji": False, **options}
        self._rich: Any = None

    @property
    def file(self) -> Any:
        """The stream, read when written to (a test's captured ``sys.stdout``, as rich reads it)."""
        return self._file if self._file is not None else (sys.stderr if self._stderr else sys.stdout)

    def rich(self) -> Any:
        """The rich console this stands for, made on first use."""
        if self._rich is None:
            from rich.console import Console
            self._rich = Console(**self._options)
        return self._rich

    @property
    def is_terminal(self) -> bool:
        if self._rich is None and not self._maybe_terminal():
            return False
        return self.rich().is_terminal

    def _maybe_terminal(self) -> bool:
        """Whether rich could take the stream for a terminal (then rich decides)."""
        if any(k in os.environ for k in _TERMINAL_ENV) or getattr(builtins, "get_ipython", None) is not None \
                or getattr(sys.stdin, "__module__", "").startswith("idlelib"):
            return True
        isatty: Callable[[], bool] | None = getattr(self.file, "isatty", None)
        try:
            return isatty is not None and bool(isatty())
        except ValueError:
            return False

    def print(self, *objects: Any, soft_wrap: bool | None = None, **options: Any) -> None:
        wrap = self._soft_wrap if soft_wrap is None else soft_wrap
        if (self._rich is None and wrap and not options and len(objects) == 1 and type(objects[0]) is str
                and not _CONTROL.search(objects[0]) and not self._maybe_terminal()):
            self.file.write(plain(objects[0]) + "\n")
            return
        self.rich().print(*objects, soft_wrap=soft_wrap, **options)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.rich(), attr)


__all__ = ["LazyConsole", "escape", "plain"]
