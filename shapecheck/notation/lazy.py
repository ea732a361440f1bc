"""A registry that compiles an operator's specs the first time a model or a query needs them.

Compiling every shipped spec costs far more than checking a small model, so the default
registry starts from an *index*: which spec files define which ``(domain, op)``, read from
each file's top-level ``op``, ``domain`` and ``extends`` keys and its ``[family]`` members
(a text scan; no TOML parse, no rule compiled).  ``versions``, ``resolve`` and ``get`` load
an op's files (after the ops they extend) on first use; iterating the registry loads all.

>>> from shapecheck.notation.load import load_specs, specs_dir, spec_files
>>> reg = LazyRegistry(spec_files(specs_dir()), load_specs)
>>> reg.has_op("ScatterND"), len(reg.by_name)          # has_op reads the index only
(True, 0)
>>> reg.resolve("ScatterND", 18).name, sorted(reg.by_name)
('ScatterND-18', ['ScatterND-11', 'ScatterND-13', 'ScatterND-16', 'ScatterND-18'])
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterable

from .registry import Registry
from .schema import ONNX_DOMAIN, SPEC_NAME, Spec, normalize_domain, split_op

_TOP_KEY = re.compile(r'^(op|domain|extends)\s*=\s*"([^"]*)"\s*(?:#.*)?$')
_SECTION = re.compile(r"^\[+\s*([A-Za-z0-9_.]+)\s*\]+")
_MEMBER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=")
_FAMILY = re.compile(r"^\[\s*family\s*\]", re.M)


def scan(path: Path) -> tuple[str, list[str], str | None]:
    """(domain, ops, parent spec name) a spec file defines, from its top-level keys.

    >>> from shapecheck.notation.load import specs_dir
    >>> scan(specs_dir() / "onnx" / "Add-13.toml")
    ('ai.onnx', ['Add', 'Sub', 'Mul', 'Div'], 'Add-7')
    """
    keys: dict[str, str] = {}
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
        elif section == "family":
            k = _MEMBER.match(line)
            if k:
                members.append(k.group(1))
    parent = keys.get("extends")
    pm = SPEC_NAME.fullmatch(parent.strip()) if parent else None
    domain = keys.get("domain") or (pm.group(1) if pm and pm.group(1) else ONNX_DOMAIN)
    ops = members or [keys.get("op") or (pm.group(2) if pm else path.stem.rsplit("-", 1)[0])]
    return normalize_domain(domain), ops, parent


class LazyRegistry(Registry):
    """``Registry`` over spec files, each operator compiled on first use (see the module doc)."""

    def __init__(self, files: Iterable[Path], loader: Callable[..., Any]):
        """``loader(files, base=registry)`` compiles spec files: ``load.load_specs``, passed in so
        that this module does not import the loader that builds it (no import cycle)."""
        super().__init__()
        self._loader = loader
        self._files: dict[tuple[str, str], list[Path]] = {}
        self._parents: dict[Path, list[tuple[str, str]]] = {}
        self._ops: dict[Path, list[tuple[str, str]]] = {}
        self._loaded: set[tuple[str, str]] = set()
        self._all = False
        for f in files:
            domain, ops, parent = scan(f)
            self._ops[f] = [(domain, op) for op in ops]
            for op in ops:
                self._files.setdefault((domain, op), []).append(f)
            if parent:
                pdom, pop = split_op(parent.rsplit("-", 1)[0])
                self._parents[f] = [(pdom, op) for op in ops] if len(ops) > 1 else [(pdom, pop)]

    def _load(self, key: tuple[str, str]) -> None:
        """Compile ``key``'s spec files together with every file they need: the files of the ops
        they extend, and the other ops a family file defines."""
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
        files = sorted({f for k in keys for f in self._files[k]})
        for spec, data in self._loader(files, base=self):
            self.add(spec, data)

    def load_all(self) -> None:
        if not self._all:
            self._all = True
            for key in sorted(self._files):
                self._load(key)

    def __iter__(self):
        self.load_all()
        return super().__iter__()

    def versions(self, op: str, domain: str | None = None) -> list[Spec]:
        self._load(split_op(op, domain))
        return super().versions(op, domain)

    def has_op(self, op: str, domain: str | None = None) -> bool:
        return split_op(op, domain) in self._files

    def resolve(self, op: str, opset: int, domain: str | None = None) -> Spec:
        key = split_op(op, domain)
        self._load(key)
        if key not in self._files:
            self.load_all()   # the error lists every known op
        return super().resolve(op, opset, domain)

    def get(self, name: str) -> Spec:
        m = SPEC_NAME.fullmatch(name.strip())
        if m:
            self._load((normalize_domain(m.group(1) or ""), m.group(2)))
        if name not in self.by_name:
            self.load_all()
        return super().get(name)
