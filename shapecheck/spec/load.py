"""Spec files -> ``Spec`` objects: parse TOML, apply ``extends``, compile every rule once.

A spec file is data (TOML): no code in it is ever run.  A later version names the
one it builds on with ``extends`` and states only what changed, so the file shows
the difference.  The registry maps ``(domain, op)`` to its versions and resolves an
opset to the newest version whose ``version`` is at most that opset.

A file may also declare a ``[family]``: ops that share every rule and differ only in a few
``let`` definitions (``Add = { fn = '"+"' }``, ``Sub = { fn = '"-"' }``).  Each member becomes
a spec of its own, named and resolved like any other; a family file's ``extends = "Add-13"``
makes each member extend its own op's version 13 (``Sub-13``).

>>> reg = default_registry()
>>> reg.resolve("ScatterND", 17).name
'ScatterND-16'
"""
from __future__ import annotations

import bisect
import copy
import dataclasses
import inspect
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ..errors import SpecError, UsageError
from ..types import ELEMENT_TYPES, canonical_dtype
from . import analysis
from .compile import FUNCTIONS, SPECIAL_FORMS, Fn, compile_expr
from .tensor_attrs import ATTR_TYPES, convert_attr
from .notation import Node, NotationError, names_in, parse, substitute, unparse

ONNX_DOMAIN = "ai.onnx"
DOMAIN_ALIASES = {"": ONNX_DOMAIN, "ai.onnx": ONNX_DOMAIN, "onnx": ONNX_DOMAIN, "openvino": "openvino"}

_TOP_KEYS = {"op", "domain", "version", "extends", "deprecated", "summary", "source", "semantics",
             "types", "add_types", "remove_types", "let", "inputs", "outputs", "attributes",
             "constraints", "remove_constraints", "warnings", "examples", "notes", "family", "see_also"}


@dataclass(frozen=True)
class Rule:
    """A numbered constraint (or warning) of a spec: its id, notation text and message."""

    id: str
    rule: str
    message: str
    tree: Node = field(repr=False, compare=False)
    fn: Fn = field(repr=False, compare=False)
    line: int = 0
    note: str = ""
    fix: str = ""
    expanded: str = ""   # the rule with let names replaced by their definitions
    cases: tuple["Case", ...] = ()   # queries that prove, refute or leave it conditional
    # found once at load time (spec/analysis.py), read by the solver
    equalities: tuple = field(default=(), repr=False, compare=False)
    value_inputs: frozenset = field(default=frozenset(), repr=False, compare=False)
    leaves: tuple = field(default=(), repr=False, compare=False)
    no_refute: str = ""              # why no query can refute it (instead of a refuted case)
    no_conditional: str = ""         # why no query can leave it conditional

    @property
    def plain(self) -> str:
        return self.expanded or self.rule


@dataclass(frozen=True)
class Case:
    """One query of a constraint's own test: the status it must end in (and a condition it must state)."""

    expect: str                  # proved | refuted | conditional | unchecked
    inputs: dict
    attrs: dict
    condition: str = ""
    line: int = 0
    file: str = ""               # the spec file it is written in (a parent's, when inherited)


CASE_STATUSES = ("proved", "refuted", "conditional", "unchecked")


@dataclass(frozen=True)
class InputDecl:
    """An input; a ``variadic`` one (the last) takes one or more tensors, seen by rules as a tuple."""

    name: str
    type: str
    doc: str = ""
    optional: bool = False
    variadic: bool = False


@dataclass(frozen=True)
class OutputDecl:
    """An output's type and shape rules, and for shape tensors its ``value`` rule.

    A ``variadic`` output (the last) stands for every remaining output of the node: its
    rules see ``i``, the output's position among them, and ``output_count``.
    """

    name: str
    type: str
    shape: str
    type_fn: Fn = field(repr=False, compare=False)
    shape_fn: Fn = field(repr=False, compare=False)
    value: str = ""
    value_fn: Fn | None = field(default=None, repr=False, compare=False)
    variadic: bool = False
    optional: bool = False


@dataclass(frozen=True)
class AttrDecl:
    name: str
    type: str  # "int" | "string" | "float" | "ints" | "floats" | "strings" | "tensor" | "sparse_tensor"
    default: Any = None
    doc: str = ""


@dataclass(frozen=True)
class Example:
    name: str
    inputs: dict
    attrs: dict
    expect: dict
    line: int = 0


@dataclass
class Spec:
    """Everything one operator version says, compiled."""

    op: str
    domain: str
    version: int
    file: str
    summary: str = ""
    source: str = ""
    extends: str | None = None
    deprecated: str = ""
    types: dict[str, frozenset] = field(default_factory=dict)
    lets: dict[str, tuple[str, Fn]] = field(default_factory=dict)
    inputs: list[InputDecl] = field(default_factory=list)
    outputs: list[OutputDecl] = field(default_factory=list)
    attributes: dict[str, AttrDecl] = field(default_factory=dict)
    constraints: list[Rule] = field(default_factory=list)
    warnings: list[Rule] = field(default_factory=list)
    semantics: dict[str, Any] = field(default_factory=dict)
    semantics_fns: dict[str, Fn] = field(default_factory=dict, repr=False)
    kernel_inputs: dict[str, str] = field(default_factory=dict)   # kernel argument -> input it passes
    examples: list[Example] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict, repr=False)   # the merged file data it was built from
    family: tuple[str, ...] = ()   # the members of the [family] this spec was built from, in file order
    see_also: list[str] = field(default_factory=list)   # specs of other operators to diff against

    @property
    def name(self) -> str:
        return spec_name(self.domain, self.op, self.version)

    @property
    def qualified_op(self) -> str:
        return self.op if self.domain == ONNX_DOMAIN else f"{self.domain}:{self.op}"

    def rule(self, rid: str) -> Rule:
        for r in self.constraints + self.warnings:
            if r.id == rid:
                return r
        raise KeyError(rid)


def spec_name(domain: str, op: str, version: int) -> str:
    return f"{op}-{version}" if domain == ONNX_DOMAIN else f"{domain}:{op}-{version}"


def split_op(op: str, domain: str | None = None) -> tuple[str, str]:
    """``"openvino:ScatterElementsUpdate"`` -> ``("openvino", "ScatterElementsUpdate")``."""
    if ":" in op:
        domain, op = op.split(":", 1)
    return normalize_domain(domain or ""), op


def normalize_domain(domain: str) -> str:
    return DOMAIN_ALIASES.get(domain, domain)


# ---------------------------------------------------------------- loading

MAX_SPEC_BYTES = 1 << 18   # a spec file is a page of text; the largest shipped one is about 5 KB
MAX_LET_CHAIN = 32         # lets defined through lets defined through lets ...


class _FileCtx:
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


def _read(path: Path) -> tuple[dict, _FileCtx]:
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
    ctx = _FileCtx(path, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
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


_WHERE = "\0where"   # a key no spec writes: (file, line) of a case, kept through ``extends``


def _locate_cases(data: dict, ctx: _FileCtx) -> None:
    """Tag each ``[[constraints.cases]]`` with the file and line it is written at, so that a case
    inherited through ``extends`` still points there (the n-th header is the n-th case)."""
    cases = [case for c in data.get("constraints", []) if isinstance(c, dict) and isinstance(c.get("cases"), list)
             for case in c["cases"] if isinstance(case, dict)]
    heads = [ctx.line_at(m.start()) for m in re.finditer(r"(?m)^[ \t]*\[\[constraints\.cases\]\]", ctx.text)]
    for case, line in zip(cases, heads if len(heads) == len(cases) else [0] * len(cases)):
        case[_WHERE] = (ctx.path, line)


def _merge(base: dict, child: dict) -> dict:
    """Apply a child spec's changes to its parent's (already merged) data."""
    out = copy.deepcopy(base)
    for key in ("op", "domain", "version", "summary", "source", "inputs", "outputs", "deprecated", "see_also"):
        if key in child:
            out[key] = copy.deepcopy(child[key])
    for key in ("deprecated", "see_also"):
        if key not in child:
            out.pop(key, None)  # deprecation and cross-operator pairs are facts of one version, never inherited
    out["extends"] = child.get("extends")
    types = dict(out.get("types", {}))
    types.update(child.get("types", {}))
    for tv, extra in child.get("add_types", {}).items():
        types[tv] = list(types.get(tv, [])) + [t for t in extra if t not in types.get(tv, [])]
    for tv, gone in child.get("remove_types", {}).items():
        types[tv] = [t for t in types.get(tv, []) if t not in gone]
    out["types"] = types
    for key in ("let", "attributes", "semantics"):
        merged = dict(out.get(key, {}))
        merged.update(child.get(key, {}))
        out[key] = merged
    for key in ("constraints", "warnings"):
        by_id = {c["id"]: c for c in out.get(key, [])}
        order = [c["id"] for c in out.get(key, [])]
        for c in child.get(key, []):
            if c.get("id") not in by_id:
                order.append(c.get("id"))
            by_id[c.get("id")] = c
        for rid in child.get("remove_constraints", []):
            by_id.pop(rid, None)
        out[key] = [by_id[i] for i in order if i in by_id]
    # an example expecting an output the child renamed (Min-6 extends Max-6: max -> min) is not inherited
    names = {o.get("name") for o in out.get("outputs", [])}
    out["examples"] = [e for e in out.get("examples", []) if {k.split("[")[0] for k in e.get("expect", {})} <= names] + \
        list(child.get("examples", []))
    out["notes"] = list(out.get("notes", [])) + list(child.get("notes", []))
    return out


def _compile_rule(ctx: _FileCtx, raw: dict, known: set[str], what: str) -> Rule:
    rid = raw.get("id")
    if not isinstance(rid, str) or not re.fullmatch(r"[A-Z][A-Za-z0-9_]*", rid):
        raise ctx.err(f"every {what} needs an id such as \"C1\", got {rid!r}", ctx.line_for_text(str(raw.get("rule", ""))))
    text = raw.get("rule")
    line = ctx.line_for_id(rid)
    if not isinstance(text, str):
        raise ctx.err(f"{what} {rid} needs a rule (one line of notation)", line)
    line = ctx.line_for_text(text, line)
    extra = set(raw) - {"id", "rule", "message", "note", "fix", "cases", "no_refute", "no_conditional"}
    if extra:
        raise ctx.err(f"{what} {rid}: unknown key(s) {', '.join(sorted(extra))}", line)
    tree = _parse(ctx, text, line, f"{what} {rid}")
    _check_names(ctx, tree, known, line, f"{what} {rid}")
    return Rule(rid, text.strip(), raw.get("message", "").strip(), tree, compile_expr(tree), line,
                raw.get("note", "").strip(), raw.get("fix", "").strip(),
                cases=tuple(_case(ctx, c, rid, line) for c in raw.get("cases", [])),
                no_refute=str(raw.get("no_refute", "")).strip(), no_conditional=str(raw.get("no_conditional", "")).strip())


def _case(ctx: _FileCtx, raw: Any, rid: str, line: int) -> Case:
    """``[[constraints.cases]]``: expect, inputs (name -> type text), optional attrs and condition."""
    if not isinstance(raw, dict) or raw.get("expect") not in CASE_STATUSES or not isinstance(raw.get("inputs"), dict):
        raise ctx.err(f"constraint {rid}: every case needs expect (one of {', '.join(CASE_STATUSES)}) "
                      "and inputs (a table of input name -> type)", line)
    extra = set(raw) - {"expect", "inputs", "attrs", "condition", _WHERE}
    if extra:
        raise ctx.err(f"constraint {rid}: a case has unknown key(s) {', '.join(sorted(extra))}", line)
    path, at = raw.get(_WHERE, (ctx.path, 0))
    return Case(raw["expect"], dict(raw["inputs"]), dict(raw.get("attrs", {})), str(raw.get("condition", "")),
                at or line, path)


@lru_cache(maxsize=None)
def _parse_text(text: str) -> Node:
    """A notation text's tree, once per text: family members and ``extends`` chains repeat
    the same rules many times, and trees are immutable."""
    return parse(text)


def _parse(ctx: _FileCtx, text: str, line: int, what: str) -> Node:
    try:
        return _parse_text(text)
    except NotationError as exc:
        raise ctx.err(f"{what}: {exc} at column {exc.column + 1} of `{_excerpt(text.strip(), exc.column)}`",
                      line) from None


def _excerpt(text: str, column: int, width: int = 80) -> str:
    """``text`` as it fits in a message: around ``column`` when it is long."""
    if len(text) <= width:
        return text
    lo = max(0, min(column - width // 2, len(text) - width))
    return ("..." if lo else "") + text[lo:lo + width] + ("..." if lo + width < len(text) else "")


def _check_names(ctx: _FileCtx, tree: Node, known: set[str], line: int, what: str) -> None:
    missing = names_in(tree) - known
    if missing:
        raise ctx.err(f"{what}: unknown name(s) {', '.join(sorted(missing))}; known are inputs, attributes, "
                      f"lets and type sets: {', '.join(sorted(known))}", line)
    for fn in _calls(tree):
        if fn not in FUNCTIONS and fn not in SPECIAL_FORMS:
            raise ctx.err(f"{what}: unknown function {fn}(); the notation has "
                          f"{', '.join(sorted(set(FUNCTIONS) | SPECIAL_FORMS))}", line)
    for n in _nodes(tree):
        if n.kind == "attr" and n.value not in _FIELDS:
            raise ctx.err(f"{what}: unknown field .{n.value}; a tensor has {', '.join(sorted(_FIELDS))}", line)


def _check_lets(ctx: _FileCtx, trees: dict[str, Node]) -> None:
    """A let that reaches itself through others, or a chain of lets too long to evaluate, is an error."""
    deps = {name: sorted(names_in(t) & set(trees)) for name, t in trees.items()}
    depth: dict[str, int] = {}
    for root in trees:
        stack, path = [(root, iter(deps[root]))], [root]
        while stack:
            name, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                depth[name] = 1 + max((depth[d] for d in deps[name]), default=0)
                if depth[name] > MAX_LET_CHAIN:
                    raise ctx.err(f"let {name} is defined through a chain of more than {MAX_LET_CHAIN} lets; "
                                  "shapecheck evaluates at most that many", ctx.find_key(name))
                continue
            if nxt in path:
                cycle = " -> ".join(path[path.index(nxt):] + [nxt])
                raise ctx.err(f"let {nxt} refers to itself ({cycle}); a let must be defined without itself",
                              ctx.find_key(nxt))
            if nxt not in depth:
                stack.append((nxt, iter(deps[nxt])))
                path.append(nxt)


_FIELDS = {"shape", "dtype", "rank", "value"}  # the fields compile_expr knows


def _nodes(tree: Node) -> Iterable[Node]:
    yield tree
    for c in tree.children:
        if isinstance(c, Node):
            yield from _nodes(c)


def _calls(tree: Node) -> Iterable[str]:
    if tree.kind == "call":
        yield tree.value
    for c in tree.children:
        if isinstance(c, Node):
            yield from _calls(c)


def build_spec(data: dict, ctx: _FileCtx) -> Spec:
    """Turn merged spec data into a compiled ``Spec``; every error names file and line."""
    for key in ("op", "domain", "version"):
        if key not in data:
            raise ctx.err(f"missing required key {key!r}")
    if not isinstance(data["version"], int):
        raise ctx.err("version must be an integer", ctx.find_key("version"))
    domain = normalize_domain(str(data["domain"]))
    spec = Spec(op=data["op"], domain=domain, version=data["version"], file=ctx.path,
                summary=data.get("summary", "").strip(), source=data.get("source", ""),
                extends=data.get("extends"), deprecated=str(data.get("deprecated", "") or ""),
                notes=[n.strip() for n in data.get("notes", [])])
    see_also = data.get("see_also", [])
    if not isinstance(see_also, list) or not all(isinstance(x, str) and x.strip() for x in see_also):
        raise ctx.err("see_also must be a list of spec names such as \"openvino:ScatterNDUpdate-15\"",
                      ctx.find_key("see_also"))
    spec.see_also = [x.strip() for x in see_also]
    for tv, members in data.get("types", {}).items():
        try:
            spec.types[tv] = frozenset(canonical_dtype(m) for m in members)
        except UsageError as exc:
            raise ctx.err(f"type set {tv}: {exc}", ctx.find(tv)) from None
    for raw in data.get("inputs", []):
        if "name" not in raw or "type" not in raw:
            raise ctx.err("every input needs a name and a type", ctx.find("[[inputs]]"))
        spec.inputs.append(InputDecl(raw["name"], raw["type"], raw.get("doc", "").strip(), bool(raw.get("optional", False)),
                                     bool(raw.get("variadic", False))))
    if any(i.variadic for i in spec.inputs[:-1]):
        raise ctx.err("only the last input can be variadic", ctx.find("variadic"))
    for name, raw in data.get("attributes", {}).items():
        atype = raw.get("type")
        if atype not in ("int", "string", "float", "ints", *ATTR_TYPES):
            raise ctx.err(f"attribute {name}: type must be int, string, float, ints, "
                          f"{', '.join(ATTR_TYPES)}, got {atype!r}", ctx.find(f"attributes.{name}"))
        default = raw.get("default")
        if atype in ATTR_TYPES and default is not None:   # a tensor default is written as a type: "float[1] = [0]"
            default = convert_attr(atype, default)
            if default is None:
                raise ctx.err(f"attribute {name}: default {raw.get('default')!r} is no {atype}",
                              ctx.find(f"attributes.{name}"))
        spec.attributes[name] = AttrDecl(name, atype, default, raw.get("doc", "").strip())
    known = {i.name for i in spec.inputs} | set(spec.attributes) | set(spec.types) | {"output_count"}
    lets = data.get("let", {})
    known |= set(lets)
    for name, text in lets.items():
        line = ctx.let_line(name)
        tree = _parse(ctx, text, line, f"let {name}")
        _check_names(ctx, tree, known - {name}, line, f"let {name}")
        spec.lets[name] = (text, compile_expr(tree))
    for raw in data.get("outputs", []):
        line = ctx.find("[[outputs]]")
        for key in ("name", "type", "shape"):
            if key not in raw:
                raise ctx.err(f"every output needs a {key}", line)
        variadic = bool(raw.get("variadic", False))
        fns = []
        for key in ("type", "shape", "value"):
            if key not in raw:
                fns.append(None)
                continue
            tree = _parse(ctx, raw[key], line, f"output {raw['name']} {key}")
            _check_names(ctx, tree, known | ({"i"} if variadic else set()), line, f"output {raw['name']} {key}")
            fns.append(compile_expr(tree))
        spec.outputs.append(OutputDecl(raw["name"], raw["type"], raw["shape"], fns[0], fns[1], raw.get("value", ""),
                                       fns[2], variadic, bool(raw.get("optional", False))))
    if any(o.variadic for o in spec.outputs[:-1]):
        raise ctx.err("only the last output can be variadic", ctx.find("variadic"))
    ids: dict[str, int] = {}  # id -> line of its first definition
    for key, target, what in (("constraints", spec.constraints, "constraint"), ("warnings", spec.warnings, "warning")):
        for raw in data.get(key, []):
            rule = _compile_rule(ctx, raw, known, what)
            if rule.id in ids:
                # the line of the second definition, not the first (line_for_id finds the first)
                line = ctx.line_for_id(rule.id, ids[rule.id]) or rule.line
                raise ctx.err(f"duplicate id {rule.id} (first defined at line {ids[rule.id]})", line)
            ids[rule.id] = rule.line
            target.append(rule)
    let_trees = {name: _parse_text(text) for name, (text, _fn) in spec.lets.items()}
    _check_lets(ctx, let_trees)
    input_names = {i.name for i in spec.inputs}
    for target in (spec.constraints, spec.warnings):
        for i, r in enumerate(target):
            try:
                expanded = unparse(substitute(r.tree, let_trees))
            except NotationError as exc:
                raise ctx.err(f"{r.id}: {exc}", r.line) from None
            target[i] = dataclasses.replace(r, expanded=expanded,
                                            equalities=analysis.equalities(r.tree),
                                            value_inputs=analysis.reads_values(r.tree, input_names, let_trees),
                                            leaves=analysis.leaves(r.tree))
    _build_semantics(spec, dict(data.get("semantics", {})), ctx, known)
    seen = 0
    for i, raw in enumerate(data.get("examples", [])):
        name = raw.get("name", f"example {i + 1}")
        seen = ctx.find(str(name), seen) or ctx.find(str(name))   # examples come in file order
        spec.examples.append(Example(name, dict(raw.get("inputs", {})), dict(raw.get("attrs", {})),
                                     dict(raw.get("expect", {})), seen))
    return spec


def _build_semantics(spec: Spec, sem: dict, ctx: _FileCtx, known: set[str]) -> None:
    """``[semantics]`` (optional): the kernel kind and a binding for every kernel argument.

    Each key but ``kind`` names a kernel argument and holds a notation expression; an
    expression that is a bare input name passes that input's array.
    """
    if not sem:
        return
    line0 = ctx.find("[semantics]")
    from ..kernels import KERNELS
    kind = sem.get("kind")
    if kind not in KERNELS:
        raise ctx.err(f"[semantics] kind {kind!r} has no kernel; known kinds are {', '.join(sorted(KERNELS))}", line0)
    spec.semantics = sem
    inputs = {i.name for i in spec.inputs}
    for key, text in sem.items():
        if key == "kind":
            continue
        line = ctx.find(f"{key} =", line0)
        tree = _parse(ctx, str(text), line, f"semantics {key}")
        _check_names(ctx, tree, known, line, f"semantics {key}")
        spec.semantics_fns[key] = compile_expr(tree)
        if tree.kind == "name" and tree.value in inputs:
            spec.kernel_inputs[key] = tree.value
    params = inspect.signature(KERNELS[kind]).parameters.values()
    required = {p.name for p in params if p.default is p.empty and p.kind is not p.VAR_KEYWORD}
    accepted = {p.name for p in params}
    missing, extra = required - set(spec.semantics_fns), set(spec.semantics_fns) - accepted
    if missing or (extra and not any(p.kind is p.VAR_KEYWORD for p in params)):
        raise ctx.err(f"[semantics] must bind every argument of kernel {kind!r} by name: "
                      f"{', '.join(sorted(accepted))}" + (f"; missing {', '.join(sorted(missing))}" if missing else "")
                      + (f"; unknown {', '.join(sorted(extra))}" if extra else ""), line0)


# ---------------------------------------------------------------- registry

class Registry:
    """All loaded specs, by ``(domain, op)`` and by name."""

    def __init__(self, specs: Iterable[Spec] = ()):
        self.by_name: dict[str, Spec] = {}
        self.by_op: dict[tuple[str, str], list[Spec]] = {}
        # domain -> facts about the whole domain (specs/<dir>/_domain.toml): highest_opset, ...
        self.domains: dict[str, dict] = dict(getattr(specs, "domains", {}))
        for s in specs:
            self.add(s)

    def add(self, spec: Spec) -> None:
        self.by_name[spec.name] = spec
        versions = self.by_op.setdefault((spec.domain, spec.op), [])
        versions[:] = sorted([v for v in versions if v.version != spec.version] + [spec], key=lambda s: s.version)

    def __iter__(self):
        return iter(sorted(self.by_name.values(), key=lambda s: (s.domain != ONNX_DOMAIN, s.domain, s.op, s.version)))

    def versions(self, op: str, domain: str | None = None) -> list[Spec]:
        dom, name = split_op(op, domain)
        return list(self.by_op.get((dom, name), []))

    def has_op(self, op: str, domain: str | None = None) -> bool:
        return bool(self.versions(op, domain))

    def resolve(self, op: str, opset: int, domain: str | None = None) -> Spec:
        """The newest version of ``op`` whose version is at most ``opset``."""
        dom, name = split_op(op, domain)
        versions = self.by_op.get((dom, name))
        if not versions:
            known = sorted({s.qualified_op for s in self.by_name.values()})
            raise UsageError(f"unknown operator {op!r}; shapecheck has specs for {', '.join(known)} "
                             "(OpenVINO operators are written openvino:NAME)")
        if not isinstance(opset, int) or isinstance(opset, bool):
            raise UsageError(f"opset must be an integer, got {opset!r}")
        best = None
        for s in versions:
            if s.version <= opset:
                best = s
        if best is None:
            raise UsageError(f"{op} does not exist at opset {opset}: its first version is {versions[0].name} "
                             f"(opset {versions[0].version}); raise the model's opset_import for domain "
                             f"{dom!r} to at least {versions[0].version}")
        return best

    def get(self, name: str) -> Spec:
        """A spec by its name: ``ScatterND-16``, ``openvino:ScatterElementsUpdate-3``."""
        if name in self.by_name:
            return self.by_name[name]
        m = re.fullmatch(r"(?:([A-Za-z.]+):)?([A-Za-z_][A-Za-z0-9_]*)-(\d+)", name.strip())
        if m:
            dom = normalize_domain(m.group(1) or "")
            key = spec_name(dom, m.group(2), int(m.group(3)))
            if key in self.by_name:
                return self.by_name[key]
        raise UsageError(f"unknown spec {name!r}; known specs are {', '.join(s.name for s in self)}")


def load_files(paths: Iterable[Path], base: Registry | None = None) -> list[Spec]:
    """Load spec files; ``extends`` may name a spec in these files or in ``base``.

    A ``[family]`` file gives one spec per member; a spec name defined twice is an error.
    """
    raws: dict[str, tuple[dict, _FileCtx]] = {}
    families: dict[str, tuple[str, ...]] = {}
    for p in paths:
        data, ctx = _read(p)
        for key in ("op", "domain", "version"):
            if key not in data and "extends" not in data and not (key == "op" and "family" in data):
                raise ctx.err(f"missing required key {key!r}")
        for member, mdata, mctx in _family_members(data, ctx):
            raws[f"{p}#{member}" if member else str(p)] = (mdata, mctx)
            if member:
                families[f"{p}#{member}"] = tuple(data["family"])
    # a child's name is known only once its parent is merged, so resolve in rounds
    built: dict[str, dict] = {}
    where: dict[str, str] = {}   # spec name -> the file that defines it
    pending = dict(raws)
    out: list[Spec] = []
    while pending:
        progressed = False
        for key, (data, ctx) in list(pending.items()):
            parent = data.get("extends")
            if parent:
                pdata = built.get(parent)
                if pdata is None and base is not None and parent in base.by_name:
                    pdata = base.by_name[parent].data
                if pdata is None:
                    continue
                full = _merge(pdata, data)
            else:
                full = data
            spec = build_spec(full, ctx)
            spec.data = full     # what a spec in another directory that extends this one merges onto
            if spec.name in where:
                raise ctx.err(f"{spec.name} is defined twice: here and in {where[spec.name]}",
                              ctx.find(ctx.member or "version"))
            where[spec.name] = ctx.path
            spec.family = families.get(key, ())
            built[spec.name] = full
            out.append(spec)
            del pending[key]
            progressed = True
        if not progressed:
            key, (data, ctx) = next(iter(pending.items()))
            raise ctx.err(f"extends {data.get('extends')!r}, which is no known spec (or the chain is circular)",
                          ctx.find("extends"))
    return out


_SPEC_NAME = re.compile(r"(?:([A-Za-z.]+):)?([A-Za-z_][A-Za-z0-9_]*)-(\d+)")


def _family_members(data: dict, ctx: _FileCtx) -> list[tuple[str, dict, _FileCtx]]:
    """``[family]``: one (member, data, ctx) per member, its lets merged over the file's; else the file itself.

    With ``extends = "Add-13"`` each member extends its own op's version 13 (``Sub-13``).
    """
    fam = data.get("family")
    if fam is None:
        return [("", data, ctx)]
    line0 = ctx.find("[family]") or ctx.find("family")
    if not isinstance(fam, dict) or not fam:
        raise ctx.err("[family] must be a table of op name -> table of let definitions "
                      "(Sub = { fn = '\"-\"' }), with at least one member", line0)
    if "op" in data and data["op"] not in fam:
        raise ctx.err(f"op {data['op']!r} is not a member of [family] ({', '.join(fam)}); "
                      "name the first member, or leave op out", ctx.find("op ="))
    parent = data.get("extends")
    m = _SPEC_NAME.fullmatch(parent.strip()) if isinstance(parent, str) else None
    if parent is not None and m is None:
        raise ctx.err(f"a family file's extends must name a spec as Op-VERSION (Add-13), got {parent!r}",
                      ctx.find("extends"))
    base_lets = data.get("let", {})
    out = []
    for member, lets in fam.items():
        line = ctx.find(f"{member} =", line0 - 1 if line0 else 0) or line0
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", member):
            raise ctx.err(f"[family] member {member!r} is not an op name", line)
        if not isinstance(lets, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in lets.items()):
            raise ctx.err(f"[family] member {member} must be a table of let definitions "
                          f"(name = \"notation\"), got {lets!r}", line)
        mdata = {k: copy.deepcopy(v) for k, v in data.items() if k != "family"}
        mdata["op"] = member
        mdata["let"] = {**base_lets, **lets}
        if m is not None:
            mdata["extends"] = f"{m.group(1) + ':' if m.group(1) else ''}{member}-{m.group(3)}"
        mctx = copy.copy(ctx)
        mctx.member, mctx.member_lets = member, {name: line for name in lets}
        out.append((member, mdata, mctx))
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
    files = sorted(p for p in root.glob("**/*.toml")
                   if "runtimes" not in p.relative_to(root).parts[:-1] and not p.name.startswith("_"))
    if not files:
        raise UsageError(f"{root}: no spec files (*.toml) in this directory")
    return files


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    """The shipped specs, each operator's compiled once per process, when first needed."""
    from .lazy import LazyRegistry
    reg = LazyRegistry(spec_files(specs_dir()))
    reg.domains = load_domains(specs_dir())
    return reg


def load_domains(root: Path) -> dict[str, dict]:
    """``_domain.toml`` files under ``root``: per-domain facts such as the highest known opset."""
    out: dict[str, dict] = {}
    for f in sorted(root.glob("**/_domain.toml")):
        data, ctx = _read_domain(f)
        if not isinstance(data.get("domain"), str) or not isinstance(data.get("highest_opset", 0), int):
            raise ctx.err("a _domain.toml needs domain (a string) and highest_opset (an integer)")
        out[normalize_domain(data["domain"])] = data
    return out


def _read_domain(path: Path) -> tuple[dict, _FileCtx]:
    text = path.read_text(encoding="utf-8")
    ctx = _FileCtx(path, text)
    try:
        return tomllib.loads(text), ctx
    except tomllib.TOMLDecodeError as exc:
        raise ctx.err(f"not valid TOML: {exc}") from None


def registry_with(extra_dirs: Iterable[str | Path]) -> Registry:
    """The shipped specs plus spec files from ``extra_dirs`` (a compiler team's own operators).

    One directory given as a string (or path) is that directory, never its characters.
    """
    if isinstance(extra_dirs, (str, Path)):
        extra_dirs = [extra_dirs]
    base = default_registry()
    reg = Registry(base)
    files: list[Path] = []
    for d in extra_dirs:
        files += spec_files(Path(d))
    for s in load_files(files, base=base):
        reg.add(s)
    return reg


__all__ = ["Spec", "Rule", "Registry", "default_registry", "registry_with", "load_files", "spec_name",
           "split_op", "ELEMENT_TYPES", "ONNX_DOMAIN"]
