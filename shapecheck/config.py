"""Configuration: ``[tool.shapecheck]`` in ``pyproject.toml`` (found from the working directory up), or
the file ``--config`` names; command-line flags override it.

Keys: ``paths`` and ``exclude`` (globs), ``strict``, ``allow-empty-dims``, ``runtime``, ``format``,
``specs`` (extra spec directories, relative to the file), ``select`` and ``ignore`` (constraint ids
such as ``C5`` or ``ScatterND-18/C7``, and finding kinds such as ``pinned``, ``runtime-check``,
``declaration``, ``G2``).  An unknown key, or a value of the wrong type, is an error naming the file.

>>> cfg = Config.from_table({"strict": True, "ignore": ["runtime-check"]}, "pyproject.toml")
>>> cfg.strict, cfg.ignored("runtime-check", ""), cfg.ignored("C7", "ScatterND-18")
(True, True, False)
"""
from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import UsageError

_TYPES: dict[str, Any] = {"paths": list, "exclude": list, "strict": bool, "allow-empty-dims": bool,
                          "runtime": str, "format": str, "specs": list, "select": list, "ignore": list}


@dataclass
class Config:
    """What a configuration file sets; ``None`` where it says nothing."""

    source: str = ""
    paths: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    strict: bool | None = None
    allow_empty_dims: bool | None = None
    runtime: str | None = None
    format: str | None = None
    specs: list[str] = field(default_factory=list)
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)

    @classmethod
    def from_table(cls, table: dict[str, Any], source: str) -> "Config":
        base = Path(source).resolve().parent
        out = cls(source=source)
        for key, value in table.items():
            want = _TYPES.get(key)
            if want is None:
                raise UsageError(f"{source}: [tool.shapecheck] has no setting {key!r}; it knows "
                                 f"{', '.join(sorted(_TYPES))}")
            if not isinstance(value, want) or (want is list and not all(isinstance(v, str) for v in value)):
                raise UsageError(f"{source}: [tool.shapecheck] {key} must be "
                                 f"{'a list of strings' if want is list else want.__name__}, got {value!r}")
            if key in ("specs", "paths"):
                value = [str(base / v) for v in value]
            setattr(out, key.replace("-", "_"), value)
        return out

    def ignored(self, kind: str, spec: str) -> bool:
        """Whether a finding of this kind (``C7``, ``pinned``) at this spec is left out of the report."""
        names = {kind, f"{spec}/{kind}"} if spec else {kind}
        if self.select and not names & set(self.select):
            return True
        return bool(names & set(self.ignore))

    def excluded(self, path: str) -> bool:
        return any(fnmatch.fnmatch(path, pat) or fnmatch.fnmatch(os.path.basename(path), pat) for pat in self.exclude)


def load_config(explicit: str | None = None, start: str | os.PathLike = ".") -> Config:
    """The configuration ``explicit`` names, else the nearest ``pyproject.toml`` with a
    ``[tool.shapecheck]`` table, else an empty one."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise UsageError(f"--config {explicit}: no such file")
        data = _read(path)
        table = data.get("tool", {}).get("shapecheck", data) if path.name == "pyproject.toml" or "tool" in data \
            else data
        return Config.from_table(table, str(path))
    here = Path(start).resolve()
    for d in (here, *here.parents):
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            table = _read(candidate).get("tool", {}).get("shapecheck")
            if table is not None:
                return Config.from_table(table, str(candidate))
    return Config()


def _read(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):   # imported here: a run without a configuration file needs none of it
        import tomllib
    else:   # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the configuration ({exc})") from None


__all__ = ["Config", "load_config"]
