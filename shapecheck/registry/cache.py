"""The spec files' index and parsed TOML, kept between runs in the user's cache directory.

A CLI run reads the top-level keys of every one of the ~560 spec files (``lazy.scan``: which ops
each defines) and parses the TOML of the few its model uses; on a small model that is a fifth of
the run.  Both answers depend on the file alone, so they are kept:

* the index, one JSON file per spec directory: each file's scan, by its path, size and
  modification time (a file whose size or time changed is scanned again);
* each spec text's TOML data, one JSON file per text, by a hash of the text, so that an edited
  spec is parsed anew whatever its time says.

JSON, never pickle: a cache file holds data, which is read as data.  The directory is
``$SHAPECHECK_CACHE_DIR`` (empty: nothing is kept), else ``$XDG_CACHE_HOME/shapecheck`` or
``~/.cache/shapecheck``.  Every file is written whole, through a temporary file and a rename; a
cache that cannot be read or written is ignored: the answers are then computed, as without it.

>>> import tempfile
>>> from shapecheck.registry import specs_dir
>>> from shapecheck.registry.lazy import scan
>>> index = SpecIndex(specs_dir(), Path(tempfile.mkdtemp()))
>>> f = specs_dir() / "onnx" / "Add-13.toml"
>>> index.scan(f, scan) == scan(f), index.save(), SpecIndex(specs_dir(), index.where).scan(f, None) == scan(f)
(True, None, True)
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

FORMAT = 1   # the layout of the cache's files; a new layout is a new directory
CACHE_ENV = "SHAPECHECK_CACHE_DIR"


def cache_dir() -> Path | None:
    """Where the cache is kept, or None when it is not (``SHAPECHECK_CACHE_DIR`` empty)."""
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        return Path(env) / f"v{FORMAT}" if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "shapecheck" / f"v{FORMAT}"


class SpecIndex:
    """Each spec file's scan under ``root``, kept in ``where`` (None: nothing is kept)."""

    def __init__(self, root: Path, where: Path | None) -> None:
        self.where = where
        self.path = None if where is None else where / f"index-{_digest(str(root.resolve()))}.json"
        self.entries: dict[str, list] = {}
        self.dirty = False
        if self.path is not None:
            got = _read_json(self.path)
            if isinstance(got, dict):
                self.entries = got

    def scan(self, f: Path, scanner: Callable[[Path], tuple] | None) -> tuple:
        """``scanner(f)``, or what it gave while ``f`` has the same size and modification time."""
        st = os.stat(f)
        key = str(f)
        e = self.entries.get(key)
        if isinstance(e, list) and len(e) == 6 and e[0] == st.st_mtime_ns and e[1] == st.st_size:
            return e[2], list(e[3]), e[4], e[5]
        if scanner is None:
            raise KeyError(key)
        got = scanner(f)
        self.entries[key] = [st.st_mtime_ns, st.st_size, got[0], list(got[1]), got[2], got[3]]
        self.dirty = True
        return got

    def save(self) -> None:
        """Write the index when it changed (and the cache is kept)."""
        if self.dirty and self.path is not None:
            self.dirty = not _write_json(self.path, self.entries)


def toml_data(text: str, parse: Callable[[str], dict]) -> dict:
    """``parse(text)`` (tomllib's), or the data it gave for the same text before.  A parse error
    is raised as ``parse`` raises it, and nothing is kept for it."""
    where = cache_dir()
    if where is None:
        return parse(text)
    path = where / "toml" / f"{_digest(text)}.json"
    got = _read_json(path)
    if isinstance(got, dict):
        return got
    data = parse(text)
    try:
        if json.loads(json.dumps(data)) == data:   # TOML's dates, or a NaN, are not kept: parsed each time
            _write_json(path, data)
    except (TypeError, ValueError):
        pass
    return data


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: Any) -> bool:
    """Write ``data`` to ``path`` whole (a temporary file renamed over it); False when it could not."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, separators=(",", ":"))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return True
    except OSError:
        return False


__all__ = ["CACHE_ENV", "SpecIndex", "cache_dir", "toml_data"]
