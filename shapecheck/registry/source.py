r"""Reading a spec file: size and encoding limits, TOML, and an index of where things are for messages.

>>> from pathlib import Path
>>> ctx = FileCtx(Path("X-1.toml"), 'op = "X"\n[[constraints]]\nid = "C1"\n')
>>> ctx.line_for_id("C1"), ctx.find_key("op")
(3, 1)
"""
from __future__ import annotations

import bisect
import re
import sys
from pathlib import Path

from ..errors import SpecError
from .cache import toml_data

_TOP_KEYS = {"op", "domain", "version", "extends", "deprecated", "summary", "source", "semantics",
             "types", "add_types", "remove_types", "let", "inputs", "outputs", "attributes",
             "constraints", "remove_constraints", "warnings", "examples", "remove_examples", "notes", "family",
             "see_also"}


MAX_SPEC_BYTES = 1 << 18   # a spec file is a page of text; the largest shipped one is about 5 KB


class FileCtx:
    """A spec file's text and an index of where things are, built once (a rule's line is a lookup)."""

    _ID = re.compile(r'"([A-Z][A-Za-z0-9_]*)"')
    _KEY = re.compile(r'^[ \t]*([^\s=#"\[]+)[ \t]*=', re.MULTILINE)

    def __init__(self, path: Path, text: str):
        self.path, self.text = str(path), text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.ids: dict[str, list[int]] = {}
        for m in self._ID.finditer(text):
            self.ids.setdefault(m.group(1), []).append(self.line_at(m.start()))
        self.keys: dict[str, int] = {}
        for m in self._KEY.finditer(text):
            self.keys.setdefault(m.group(1), self.line_at(m.start()))
        self.member = ""                       # the [family] member being built, if any
        self.member_lets: dict[str, int] = {}  # its own let names -> the line of its entry

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def find(self, needle: str, start: int = 0) -> int:
        """1-based line of the first ``needle`` at or after 0-based line ``start``; 0 when absent."""
        if not needle or start >= len(self.starts):
            return 0
        off = self.text.find(needle, self.starts[start])
        return 0 if off < 0 else self.line_at(off)

    def find_key(self, key: str) -> int:
        """The line of ``key = ...`` (a let, a semantics parameter)."""
        return self.keys.get(key) or self.find(f"{key} =")

    def err(self, message: str, line: int = 0) -> SpecError:
        return SpecError(f"[family] member {self.member}: {message}" if self.member else message, self.path, line)

    def let_line(self, name: str) -> int:
        return self.member_lets.get(name) or self.find_key(name)

    def line_for_id(self, rid: str, after: int = 0) -> int:
        return next((ln for ln in self.ids.get(rid, ()) if ln > after), 0)

    def line_for_text(self, text: str, near: int = 0) -> int:
        probe = text.strip().splitlines()[0][:40] if text.strip() else text
        return self.find(probe, max(near - 1, 0)) or self.find(probe) or near


def read(path: Path) -> tuple[dict, FileCtx]:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise SpecError(f"cannot read spec: {exc.strerror}", str(path)) from None
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError(f"the file is larger than {MAX_SPEC_BYTES} bytes, the most a spec file may be "
                        "(one operator version is a page of text)", str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SpecError(f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start} cannot be decoded "
                        f"({exc.reason}); save the spec as UTF-8", str(path), line) from None
    ctx = FileCtx(path, text)
    try:
        data = toml_data(text, _loads)   # kept between runs by the text's hash (cache.py)
    except _TomlError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise ctx.err(f"not valid TOML: {exc}", int(m.group(1)) if m else 0) from None
    except RecursionError:
        raise ctx.err("not valid TOML for shapecheck: arrays or tables nest too deeply") from None
    except ValueError as exc:  # an integer past Python's 4300-digit limit
        raise ctx.err(f"not valid TOML for shapecheck: {exc}") from None
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ctx.err(f"unknown key(s) {', '.join(sorted(unknown))}; a spec has "
                      f"{', '.join(sorted(_TOP_KEYS))}", ctx.find(sorted(unknown)[0]))
    _locate_cases(data, ctx)
    return data, ctx


WHERE = "\0where"   # a key no spec writes: (file, line) of a case, kept through ``extends``


def _locate_cases(data: dict, ctx: FileCtx) -> None:
    """Tag each ``[[constraints.cases]]`` with the file and line it is written at, so that a case
    inherited through ``extends`` still points there (the n-th header is the n-th case)."""
    cases = [case for c in data.get("constraints", []) if isinstance(c, dict) and isinstance(c.get("cases"), list)
             for case in c["cases"] if isinstance(case, dict)]
    heads = [ctx.line_at(m.start()) for m in re.finditer(r"(?m)^[ \t]*\[\[constraints\.cases\]\]", ctx.text)]
    for case, line in zip(cases, heads if len(heads) == len(cases) else [0] * len(cases)):
        case[WHERE] = (ctx.path, line)


def read_domain(path: Path) -> tuple[dict, FileCtx]:
    text = path.read_text(encoding="utf-8")
    ctx = FileCtx(path, text)
    try:
        return toml_data(text, _loads), ctx
    except _TomlError as exc:
        raise ctx.err(f"not valid TOML: {exc}") from None


class _TomlError(ValueError):
    """tomllib's ``TOMLDecodeError``, under a name this module has without importing tomllib."""


def _loads(text: str) -> dict:
    """tomllib's parse, imported for the first text the cache does not hold (cache.py): a CLI run
    whose specs are all kept never imports it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _TomlError(str(exc)) from None
