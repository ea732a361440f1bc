"""A registry that compiles an operator's specs the first time a model or a query needs them.

Compiling every shipped spec costs far more than checking a small model, so the default
registry starts from an *index*: which spec files define which ``(domain, op)``, read from
each file's top-level ``op``, ``domain`` and ``extends`` keys and its ``[family]`` members
(a text scan; no TOML parse, no rule compiled), and each file's ``version``.  ``resolve``
compiles the one version an opset selects; the versions it extends are read for the data it
inherits, not compiled.  ``versions`` and ``get`` compile every version of an op (after the ops
they extend) on first use; iterating the registry compiles all.

>>> from shapecheck.registry import load_specs, specs_dir, spec_files
>>> reg = LazyRegistry(spec_files(specs_dir()), load_specs)
>>> reg.has_op("ScatterND"), len(reg.by_name)          # has_op reads the index only
(True, 0)
>>> reg.resolve("ScatterND", 17).name, sorted(reg.by_name)
('ScatterND-16', ['ScatterND-16'])
>>> [s.name for s in reg.versions("ScatterND")]
['ScatterND-11', 'ScatterND-13', 'ScatterND-16', 'ScatterND-18']
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterable

from .base import Registry
from .cache import SpecIndex
from .schema import ONNX_DOMAIN, SPEC_NAME, Spec, normalize_domain, spec_name, split_op

_TOP_KEY = re.compile(r'^(op|domain|extends)\s*=\s*"([^"]*)"\s*(?:#.*)?$')
_VERSION = re.compile(r"^version\s*=\s*(\d+)\s*(?:#.*)?$")
_SECTION = re.compile(r"^\[+\s*([A-Za-z0-9_.]+)\s*\]+")
_MEMBER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=")
_FAMILY = re.compile(r"^\[\s*family\s*\]", re.M)


def scan(path: Path) -> tuple[str, list[str], str | None, int | None]:
    """(domain, ops, parent spec name, version) a spec file defines, from its top-level keys.

    >>> from shapecheck.registry import specs_dir
    >>> scan(specs_dir() / "onnx" / "Add-13.toml")
    ('ai.onnx', ['Add', 'Sub', 'Mul', 'Div'], 'Add-7', 13)
    """
    keys: dict[str, str] = {}
    version = None
    members: list[str] = []
    section = ""
    quote = False
    text = path.read_text(encoding="utf-8")
    family = _FAMILY.search(text) is not None
    for line in text.splitlines():
        if line.count('"""') % 2 or line.count("'''") % 2:
            quote = not quote
            continue
        if quote:
            continue
        m = _SECTION.match(line)
        if m:
            section = m.group(1)
            if not family:   # the top-level keys come before every section: the rules are not read
                break
            continue
        if section == "":
            k = _TOP_KEY.match(line)
            if k:
                keys[k.group(1)] = k.group(2)
            v = _VERSION.match(line)
            if v:
                version = int(v.group(1))
        elif section == "family":
            k = _MEMBER.match(line)
            if k:
                members.append(k.group(1))
    parent = keys.get("extends")
    pm = SPEC_NAME.fullmatch(parent.strip()) if parent else None
    domain = keys.get("domain") or (pm.group(1) if pm and pm.group(1) else ONNX_DOMAIN)
    ops = members or [keys.get("op") or (pm.group(2) if pm else path.stem.rsplit("-", 1)[0])]
    return normalize_domain(domain), ops, parent, version


class LazyRegistry(Registry):
    """``Registry`` over spec files, each operator compiled on first use (see the module doc)."""

    def __init__(self, files: Iterable[Path], loader: Callable[..., Any], index: SpecIndex | None = None):
        """``loader(files, base=registry)`` compiles spec files: ``load.load_specs``, passed in so
        that this module does not import the loader that builds it (no import cycle).  ``index``
        keeps each file's scan between runs (``cache.SpecIndex``)."""
        super().__init__()
        self._loader = loader
        self._files: dict[tuple[str, str], list[Path]] = {}
        self._parents: dict[Path, list[tuple[str, str]]] = {}
        self._parent_version: dict[Path, int | None] = {}
        self._ops: dict[Path, list[tuple[str, str]]] = {}
        self._version: dict[Path, int | None] = {}
        self._loaded: set[tuple[str, str]] = set()   # ops with every version compiled
        self._compiled: set[Path] = set()
        self._merged: set[Path] = set()   # read for the data a child extends, not compiled
        self._all = False
        for f in files:
            domain, ops, parent, version = scan(f) if index is None else index.scan(f, scan)
            self._ops[f] = [(domain, op) for op in ops]
            self._version[f] = version
            for op in ops:
                self._files.setdefault((domain, op), []).append(f)
            if parent:
                pname, _, pversion = parent.rpartition("-")
                pdom, pop = split_op(pname)
                self._parents[f] = [(pdom, op) for op in ops] if len(ops) > 1 else [(pdom, pop)]
                self._parent_version[f] = int(pversion) if pversion.isdigit() else None
        if index is not None:
            index.save()

    def fresh(self) -> "LazyRegistry":
        """A registry over the same index with nothing compiled, without scanning the files again."""
        out = LazyRegistry((), self._loader)
        out._files, out._parents, out._parent_version = self._files, self._parents, self._parent_version
        out._ops, out._version = self._ops, self._version   # the index is never changed after __init__
        out.domains = dict(self.domains)
        return out

    def _load(self, key: tuple[str, str]) -> None:
        """Compile every version of ``key`` together with every file they need: the files of the
        ops they extend, and the other ops a family file defines."""
        if key in self._loaded or key not in self._files:
            return
        keys: set[tuple[str, str]] = set()
        todo = [key]
        while todo:
            k = todo.pop()
            if k in keys or k in self._loaded or k not in self._files:
                continue
            keys.add(k)
            for f in self._files[k]:
                todo += self._parents.get(f, []) + self._ops[f]
        self._loaded |= keys
        self._compile({f for k in keys for f in self._files[k]})

    def _compile(self, files: set[Path], raw_only: set[Path] | None = None) -> None:
        """Compile the files not compiled yet, in one batch (a file's parents may be in it); of
        the ``raw_only`` files, only the merged data their children extend is kept."""
        files = files - self._compiled
        raw_only = (raw_only or set()) - self._compiled - self._merged - files
        self._compiled |= files
        self._merged |= raw_only
        for spec, data in self._loader(sorted(files | raw_only), base=self, raw_only=raw_only):
            if spec is None:
                self.raw[spec_name(normalize_domain(str(data["domain"])), data["op"], data["version"])] = data
            else:
                self.add(spec, data)

    def _load_file(self, f: Path) -> bool:
        """Compile one file, with the merged data of the versions it extends (those are not
        compiled); False when the index does not name them all (the caller loads the whole op)."""
        parents: set[Path] = set()
        todo = [f]
        while todo:
            g = todo.pop()
            wanted = self._parents.get(g, [])
            pversion = self._parent_version.get(g)
            found = [h for k in wanted for h in self._files.get(k, []) if self._version[h] == pversion]
            if wanted and (pversion is None or len(found) < len(wanted)):
                return False
            # a parent compiled or read already has its own parents' data in ``raw``
            new = {h for h in found if h not in self._compiled and h not in self._merged} - parents
            parents |= new
            todo += new
        self._compile({f}, parents)
        return True

    def versions(self, op: str, domain: str | None = None) -> list[Spec]:
        self._load(split_op(op, domain))
        return super().versions(op, domain)

    def has_op(self, op: str, domain: str | None = None) -> bool:
        return split_op(op, domain) in self._files

    def resolve(self, op: str, opset: int, domain: str | None = None) -> Spec:
        """The newest version at most ``opset``, compiling that version's file alone (and the
        files it extends) where the index tells which it is."""
        key = split_op(op, domain)
        if key not in self._files:
            return super().resolve(op, opset, domain)   # unknown: the error names the nearest ops (the index knows them)
        if key not in self._loaded:
            known = [(v, f) for f in self._files[key] if (v := self._version[f]) is not None]
            best = max(((v, f) for v, f in known if isinstance(opset, int) and v <= opset), default=None,
                       key=lambda vf: vf[0])
            if best is None or len(known) < len(self._files[key]) or not self._load_file(best[1]):
                self._load(key)   # no version at or below opset (the error names the first), or no index
        return super().resolve(op, opset, domain)

    def load_all(self) -> None:
        if not self._all:
            self._all = True
            for key in sorted(self._files):
                self._load(key)

    def __iter__(self):
        self.load_all()
        return super().__iter__()

    def get(self, name: str) -> Spec:
        m = SPEC_NAME.fullmatch(name.strip())
        if m:
            self._load((normalize_domain(m.group(1) or ""), m.group(2)))
        elif name not in self.by_name:
            self.load_all()
        return super().get(name)

    def known_ops(self) -> list[str]:
        return sorted({op if dom == ONNX_DOMAIN else f"{dom}:{op}" for dom, op in self._files} | set(super().known_ops()))

    def known_versions(self, domain: str, op: str) -> list[int]:
        files = self._files.get((domain, op), ())
        return sorted({v for f in files if (v := self._version.get(f)) is not None} | set(super().known_versions(domain, op)))
