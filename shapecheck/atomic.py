"""Writing output files without ever losing one: the one helper every writer uses.

* An output path that resolves to the same file as an input (the model, its external data,
  an IR ``.bin``), through a symbolic link, a hard link or a linked directory, is refused.
* The bytes go to a temporary file in the target's directory, which then replaces the
  target in one ``os.replace``: a write that fails halfway (disk full, a file-size limit,
  an interruption) leaves the old file as it was and no temporary file behind.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_atomic(d / "out.txt", b"hello", inputs=[])
>>> (d / "out.txt").read_bytes()
b'hello'
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .errors import OutputError


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True when both paths exist and name the same file (links and linked directories resolved)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def refuse_inputs(out: str | os.PathLike, inputs: Iterable[str | os.PathLike], what: str = "output") -> None:
    """A UsageError when ``out`` is, or leads to, one of ``inputs``."""
    for src in inputs:
        if src and (same_file(out, src) or os.path.realpath(out) == os.path.realpath(src)):
            raise OutputError(f"{what} {out} is the same file as the input {src} (the path, a link or a linked "
                             "directory leads to it); shapecheck never modifies a model in place: choose another path")


def write_atomic(path: str | os.PathLike, data: bytes, *, inputs: Iterable[str | os.PathLike] = (),
                 what: str = "output") -> None:
    """Write ``data`` to ``path`` atomically, after checking it is none of ``inputs``."""
    path = Path(path)
    parent = writable(path, inputs, what)
    fd, tmp = None, None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
        with os.fdopen(fd, "wb") as fh:
            fd = None
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        _default_mode(tmp)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise OutputError(f"cannot write {what} {path}: {exc.strerror or exc}; nothing was written "
                         "(an existing file there is unchanged)") from None
    finally:
        if fd is not None:
            os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def writable(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = (), what: str = "output") -> Path:
    """The folder ``path`` is written into, after checking that a file may be written there (none of
    ``inputs``, not a directory, in a folder that exists); an ``OutputError`` otherwise."""
    path = Path(path)
    refuse_inputs(path, inputs, what)
    if path.is_dir():
        raise OutputError(f"cannot write {what} {path}: it is a directory; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"cannot write {what} {path}: the directory {parent} does not exist")
    return parent


def _default_mode(tmp: str) -> None:
    """mkstemp creates 0600; a written output gets the mode a plain ``open`` would give it."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)


__all__ = ["copy_atomic", "refuse_inputs", "same_file", "writable", "write_atomic"]


def copy_atomic(src: str | os.PathLike, dst: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (),
                what: str = "output") -> None:
    """Copy the file ``src`` to ``dst`` atomically (a temporary file, then ``os.replace``), in chunks;
    ``dst`` may be none of ``inputs``."""
    import shutil
    dst = Path(dst)
    refuse_inputs(dst, inputs, what)
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".tmp", dir=dst.parent)
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())
        _default_mode(tmp)
        os.replace(tmp, dst)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise OutputError(f"cannot write {what} {dst}: {exc.strerror or exc}") from None
