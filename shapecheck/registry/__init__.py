"""Spec files -> a ``Registry`` of ``Spec`` objects: read, merge ``extends``, expand ``[family]``, build.

A spec file is data (TOML): no code in it is ever run.  A later version names the
one it builds on with ``extends`` and states only what changed, so the file shows
the difference.  The registry maps ``(domain, op)`` to its versions and resolves an
opset to the newest version whose ``version`` is at most that opset.

A file may also declare a ``[family]``: ops that share every rule and differ only in a few
``let`` definitions (``Add = { fn = '"+"' }``, ``Sub = { fn = '"-"' }``).  Each member becomes
a spec of its own, named and resolved like any other; a family file's ``extends = "Add-13"``
makes each member extend its own op's version 13 (``Sub-13``).

The jobs are in modules of their own: ``source`` (reading a file), ``merge`` (``extends`` and
``[family]``), ``build`` (data -> ``Spec``), ``checks`` (the load-time checks of names, lets and
kernel bindings), ``attributes`` (tensor, sparse, float and string attribute values), ``schema``
(the dataclasses), ``base`` (``Registry``), ``lazy`` (the registry that compiles an op on first use).
This module reads the files and is the package's face: consumers import ``Spec``, ``Rule``,
``Registry`` and the loading entry points from ``shapecheck.registry``.

>>> reg = default_registry()
>>> reg.resolve("ScatterND", 17).name
'ScatterND-16'
"""
from __future__ import annotations

import os
from functools import lru_cache, partial
from pathlib import Path
from typing import Iterable

from ..errors import SpecError, UsageError
from .build import build_spec
from .cache import SpecIndex, cache_dir
from .lazy import LazyRegistry
from .merge import family_members, merge
from .base import Registry
from .schema import ONNX_DOMAIN, Rule, Spec, normalize_domain, spec_name, split_op
from .source import FileCtx, read, read_domain


def load_files(paths: Iterable[Path], base: Registry | None = None) -> list[Spec]:
    """Load spec files; ``extends`` may name a spec in these files or in ``base``.

    A ``[family]`` file gives one spec per member; a spec name defined twice is an error.
    """
    return [spec for spec, _data in load_specs(paths, base) if spec is not None]


def load_registry(paths: Iterable[Path], base: Registry | None = None) -> Registry:
    """``base``'s specs (if any) plus those of ``paths``, with the data each was built from."""
    reg = Registry(base or ())
    for spec, data in load_specs(paths, base):
        if spec is not None:
            reg.add(spec, data)
    return reg


def _read_all(paths: Iterable[Path]) -> tuple[dict[str, tuple[dict, FileCtx]], dict[str, tuple[str, ...]]]:
    """Every file's data (one entry per ``[family]`` member) and the family each member is of."""
    raws: dict[str, tuple[dict, FileCtx]] = {}
    families: dict[str, tuple[str, ...]] = {}
    for p in paths:
        data, ctx = read(p)
        for key in ("op", "domain", "version"):
            if key not in data and "extends" not in data and not (key == "op" and "family" in data):
                raise ctx.err(f"missing required key {key!r}")
        for member, mdata, mctx in family_members(data, ctx):
            raws[f"{p}#{member}" if member else str(p)] = (mdata, mctx)
            if member:
                families[f"{p}#{member}"] = tuple(data["family"])
    return raws, families


def load_specs(paths: Iterable[Path], base: Registry | None = None, *,
               raw_only: frozenset[Path] | set[Path] = frozenset(),
               check_kernels: bool = True) -> list[tuple[Spec | None, dict]]:
    """Each spec with the merged data it was built from, parents before their children.

    A file in ``raw_only`` is merged but not compiled (its entries are ``(None, data)``): a
    registry that needs only the data a child extends need not compile the parent.
    ``check_kernels``: see ``build_spec``."""
    raw_paths = {str(p) for p in raw_only}
    pending, families = _read_all(paths)
    # a child's name is known only once its parent is merged, so resolve in rounds
    built: dict[str, dict] = {}
    where: dict[str, str] = {}   # spec name -> the file that defines it
    out: list[tuple[Spec, dict]] = []
    while pending:
        progressed = False
        for key, (data, ctx) in list(pending.items()):
            parent = data.get("extends")
            if parent:
                pdata = built.get(parent)
                if pdata is None and base is not None:
                    pdata = base.raw.get(parent)
                if pdata is None:
                    continue
                full = merge(pdata, data)
            else:
                full = data
            spec: Spec | None = None
            if ctx.path in raw_paths and all(k in full for k in ("op", "domain", "version")):
                name = spec_name(normalize_domain(str(full["domain"])), str(full["op"]), full["version"])
            else:
                spec = build_spec(full, ctx, families.get(key, ()), check_kernels)
                name = spec.name
            if name in where:
                raise ctx.err(f"{name} is defined twice: here and in {where[name]}",
                              ctx.find(ctx.member or "version"))
            where[name] = ctx.path
            built[name] = full
            out.append((spec, full))
            del pending[key]
            progressed = True
        if not progressed:
            key, (data, ctx) = next(iter(pending.items()))
            raise ctx.err(f"extends {data.get('extends')!r}, which is no known spec (or the chain is circular)",
                          ctx.find("extends"))
    return out


def specs_dir() -> Path:
    """The shipped specs: ``specs/`` beside the package in a checkout, ``shapecheck/specs`` when installed."""
    here = Path(__file__).resolve().parent.parent
    for cand in (here.parent / "specs", here / "specs"):
        if cand.is_dir() and any(cand.glob("*/*.toml")):
            return cand
    raise SpecError("no spec files found beside the package (expected specs/<domain>/*.toml)")


def spec_files(root: Path) -> list[Path]:
    if not root.exists():
        raise UsageError(f"{root}: no such spec directory")
    if root.is_file():
        return [root]
    # runtimes/ beside the specs holds portability rules (shapecheck.runtimes), not specs; _*.toml is domain data
    # (os.walk, and the paths sorted by their parts as Path sorts them: a CLI run lists ~560 files)
    files = []
    for folder, _dirs, names in os.walk(root):
        if "runtimes" not in Path(folder).relative_to(root).parts:
            files += [Path(folder, n) for n in names if n.endswith(".toml") and not n.startswith("_")]
    files.sort(key=lambda p: p.parts)
    if not files:
        raise UsageError(f"{root}: no spec files (*.toml) in this directory")
    return files


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The shipped specs, each operator's compiled once per process, when first needed."""
    # the shipped specs' kernels are checked by the test suite (tests/test_specs.py): a check that never
    # executes a node need not import every kernel module
    root = specs_dir()
    reg = LazyRegistry(spec_files(root), partial(load_specs, check_kernels=False), SpecIndex(root, cache_dir()))
    reg.domains = load_domains(specs_dir())
    return reg


def load_domains(root: Path) -> dict[str, dict]:
    """``_domain.toml`` files under ``root``: per-domain facts such as the highest known opset."""
    out: dict[str, dict] = {}
    for f in sorted(root.glob("**/_domain.toml")):
        data, ctx = read_domain(f)
        if not isinstance(data.get("domain"), str) or not isinstance(data.get("highest_opset", 0), int):
            raise ctx.err("a _domain.toml needs domain (a string) and highest_opset (an integer)")
        out[normalize_domain(data["domain"])] = data
    return out


def registry_with(extra_dirs: Iterable[str | Path]) -> Registry:
    """The shipped specs plus spec files from ``extra_dirs`` (a compiler team's own operators).

    One directory given as a string (or path) is that directory, never its characters.
    """
    if isinstance(extra_dirs, (str, Path)):
        extra_dirs = [extra_dirs]
    files: list[Path] = []
    for d in extra_dirs:
        files += spec_files(Path(d))
    return load_registry(files, base=default_registry())


__all__ = ["Spec", "Rule", "Registry", "default_registry", "registry_with", "load_files", "load_registry", "load_specs",
           "spec_name", "split_op", "normalize_domain", "specs_dir", "spec_files", "ONNX_DOMAIN"]
