"""Merged spec data -> a compiled, frozen ``Spec``: declarations, lets, outputs, rules, semantics, examples.

Every rule is parsed and compiled once and analysed (``analysis.py``); every error names the
file and line.  The parts are built in the order a reader meets them, so the first error is
the first one in the file.
"""
from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

from ..errors import UsageError
from ..types import canonical_dtype
from ..notation import analysis, Fn, compile_expr, NotationError, substitute, unparse
from .checks import check_lets, check_names, parse_located, parse_text
from .schema import CASE_STATUSES, AttrDecl, Case, Example, InputDecl, OutputDecl, Rule, Spec, normalize_domain
from .source import WHERE, FileCtx
from .attributes import ATTR_TYPES, convert_attr


def build_spec(data: dict, ctx: FileCtx, family: tuple[str, ...] = (), check_kernels: bool = True) -> Spec:
    """Turn merged spec data into a compiled ``Spec``; every error names file and line.  ``check_kernels``:
    check ``[semantics]`` against its kernel's arguments (importing every kernel); the shipped specs,
    which the test suite checks so, are loaded without it (``default_registry``)."""
    for key in ("op", "domain", "version"):
        if key not in data:
            raise ctx.err(f"missing required key {key!r}")
    if not isinstance(data["version"], int):
        raise ctx.err("version must be an integer", ctx.find_key("version"))
    see_also = data.get("see_also", [])
    if not isinstance(see_also, list) or not all(isinstance(x, str) and x.strip() for x in see_also):
        raise ctx.err("see_also must be a list of spec names such as \"openvino:ScatterNDUpdate-15\"",
                      ctx.find_key("see_also"))
    types = _types(data, ctx)
    inputs = _inputs(data, ctx)
    attributes = _attributes(data, ctx)
    known = {i.name for i in inputs} | set(attributes) | set(types) | {"output_count"} | set(data.get("let", {}))
    lets = _lets(data, ctx, known)
    let_trees = {name: parse_text(text) for name, (text, _fn) in lets.items()}
    input_names = {i.name for i in inputs}
    outputs = _outputs(data, ctx, known, input_names, let_trees)
    constraints, warnings = _rules(data, ctx, known, let_trees, input_names)
    semantics, semantics_fns, kernel_inputs = _semantics(dict(data.get("semantics", {})), ctx, known, inputs,
                                                         check_kernels)
    return Spec(op=data["op"], domain=normalize_domain(str(data["domain"])), version=data["version"], file=ctx.path,
                summary=data.get("summary", "").strip(), source=data.get("source", ""),
                extends=data.get("extends"), deprecated=str(data.get("deprecated", "") or ""),
                types=types, lets=lets, let_trees=let_trees, inputs=inputs, outputs=outputs, attributes=attributes,
                constraints=constraints, warnings=warnings, semantics=semantics, semantics_fns=semantics_fns,
                kernel_inputs=kernel_inputs, examples=_examples(data, ctx),
                value_reads=(reads := frozenset().union(*(r.value_inputs for r in constraints + warnings + outputs))),
                value_passes=frozenset().union(*(o.value_rule_inputs for o in outputs)) - reads,
                notes=[n.strip() for n in data.get("notes", [])], family=family,
                see_also=[x.strip() for x in see_also])


def _types(data: dict, ctx: FileCtx) -> dict[str, frozenset]:
    out = {}
    for tv, members in data.get("types", {}).items():
        try:
            out[tv] = frozenset(canonical_dtype(m) for m in members)
        except UsageError as exc:
            raise ctx.err(f"type set {tv}: {exc}", ctx.find(tv)) from None
    return out


def _inputs(data: dict, ctx: FileCtx) -> list[InputDecl]:
    out = []
    for raw in data.get("inputs", []):
        if "name" not in raw or "type" not in raw:
            raise ctx.err("every input needs a name and a type", ctx.find("[[inputs]]"))
        out.append(InputDecl(raw["name"], raw["type"], raw.get("doc", "").strip(), bool(raw.get("optional", False)),
                             bool(raw.get("variadic", False))))
    if any(i.variadic for i in out[:-1]):
        raise ctx.err("only the last input can be variadic", ctx.find("variadic"))
    return out


def _attributes(data: dict, ctx: FileCtx) -> dict[str, AttrDecl]:
    out = {}
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
        out[name] = AttrDecl(name, atype, default, raw.get("doc", "").strip())
    return out


def _lets(data: dict, ctx: FileCtx, known: set[str]) -> dict[str, tuple[str, Fn]]:
    out = {}
    for name, text in data.get("let", {}).items():
        line = ctx.let_line(name)
        tree = parse_located(ctx, text, line, f"let {name}")
        check_names(ctx, tree, known - {name}, line, f"let {name}")
        out[name] = (text, compile_expr(tree))
    return out


def _outputs(data: dict, ctx: FileCtx, known: set[str], input_names: set[str], let_trees: dict) -> list[OutputDecl]:
    out = []
    for raw in data.get("outputs", []):
        line = ctx.find("[[outputs]]")
        for key in ("name", "type"):   # no shape: a sequence, optional or map (its type says it all)
            if key not in raw:
                raise ctx.err(f"every output needs a {key}", line)
        variadic = bool(raw.get("variadic", False))
        fns = []
        reads: dict[str, frozenset] = {}
        for key in ("type", "shape", "value", "bounds"):
            if key not in raw:
                fns.append(None)
                continue
            tree = parse_located(ctx, raw[key], line, f"output {raw['name']} {key}")
            check_names(ctx, tree, known | ({"i"} if variadic else set()), line, f"output {raw['name']} {key}")
            fns.append(compile_expr(tree))
            reads[key] = analysis.reads_values(tree, input_names, let_trees)
        out.append(OutputDecl(raw["name"], raw["type"], raw.get("shape", ""), fns[0], fns[1], raw.get("value", ""),
                              fns[2], variadic, bool(raw.get("optional", False)),
                              reads.get("type", frozenset()) | reads.get("shape", frozenset()),
                              reads.get("value", frozenset()) | reads.get("bounds", frozenset()),
                              raw.get("bounds", ""), fns[3]))
    if any(o.variadic for o in out[:-1]):
        raise ctx.err("only the last output can be variadic", ctx.find("variadic"))
    return out


def _rules(data: dict, ctx: FileCtx, known: set[str], let_trees: dict, input_names: set[str]
           ) -> tuple[list[Rule], list[Rule]]:
    """The constraints and warnings, compiled, with ids unique and what the solver needs analysed."""
    ids: dict[str, int] = {}  # id -> line of its first definition
    found: dict[str, list[Rule]] = {"constraints": [], "warnings": []}
    for key, what in (("constraints", "constraint"), ("warnings", "warning")):
        for raw in data.get(key, []):
            rule = _compile_rule(ctx, raw, known, what)
            if rule.id in ids:
                # the line of the second definition, not the first (line_for_id finds the first)
                line = ctx.line_for_id(rule.id, ids[rule.id]) or rule.line
                raise ctx.err(f"duplicate id {rule.id} (first defined at line {ids[rule.id]})", line)
            ids[rule.id] = rule.line
            found[key].append(rule)
    check_lets(ctx, let_trees)
    for target in found.values():
        for i, r in enumerate(target):
            try:
                expanded = unparse(substitute(r.tree, let_trees))
            except NotationError as exc:
                raise ctx.err(f"{r.id}: {exc}", r.line) from None
            target[i] = dataclasses.replace(r, expanded=expanded,
                                            equalities=analysis.equalities(r.tree),
                                            value_inputs=analysis.reads_values(r.tree, input_names, let_trees),
                                            leaves=analysis.leaves(r.tree))
    return found["constraints"], found["warnings"]


def _examples(data: dict, ctx: FileCtx) -> list[Example]:
    out = []
    seen = 0
    for i, raw in enumerate(data.get("examples", [])):
        name = raw.get("name", f"example {i + 1}")
        seen = ctx.find(str(name), seen) or ctx.find(str(name))   # examples come in file order
        out.append(Example(name, dict(raw.get("inputs", {})), dict(raw.get("attrs", {})),
                           dict(raw.get("expect", {})), seen))
    return out


def _compile_rule(ctx: FileCtx, raw: dict, known: set[str], what: str) -> Rule:
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
    tree = parse_located(ctx, text, line, f"{what} {rid}")
    check_names(ctx, tree, known, line, f"{what} {rid}")
    return Rule(rid, text.strip(), raw.get("message", "").strip(), tree, compile_expr(tree), line,
                raw.get("note", "").strip(), raw.get("fix", "").strip(),
                cases=tuple(_case(ctx, c, rid, line) for c in raw.get("cases", [])),
                no_refute=str(raw.get("no_refute", "")).strip(), no_conditional=str(raw.get("no_conditional", "")).strip())


def _case(ctx: FileCtx, raw: Any, rid: str, line: int) -> Case:
    """``[[constraints.cases]]``: expect, inputs (name -> type text), optional attrs and condition."""
    if not isinstance(raw, dict) or raw.get("expect") not in CASE_STATUSES or not isinstance(raw.get("inputs"), dict):
        raise ctx.err(f"constraint {rid}: every case needs expect (one of {', '.join(CASE_STATUSES)}) "
                      "and inputs (a table of input name -> type)", line)
    extra = set(raw) - {"expect", "inputs", "attrs", "condition", WHERE}
    if extra:
        raise ctx.err(f"constraint {rid}: a case has unknown key(s) {', '.join(sorted(extra))}", line)
    path, at = raw.get(WHERE, (ctx.path, 0))
    return Case(raw["expect"], dict(raw["inputs"]), dict(raw.get("attrs", {})), str(raw.get("condition", "")),
                at or line, path)


def _semantics(sem: dict, ctx: FileCtx, known: set[str], inputs: list[InputDecl], check_kernels: bool = True
               ) -> tuple[dict[str, Any], dict[str, Fn], dict[str, str]]:
    """``[semantics]`` (optional): the kernel kind and a binding for every kernel argument.

    Each key but ``kind`` names a kernel argument and holds a notation expression; an
    expression that is a bare input name passes that input's array.
    """
    fns: dict[str, Fn] = {}
    kernel_inputs: dict[str, str] = {}   # kernel argument -> input it passes
    if not sem:
        return {}, fns, kernel_inputs
    line0 = ctx.find("[semantics]")
    names = {i.name for i in inputs}
    for key, text in sem.items():
        if key == "kind":
            continue
        line = ctx.find(f"{key} =", line0)
        tree = parse_located(ctx, str(text), line, f"semantics {key}")
        check_names(ctx, tree, known, line, f"semantics {key}")
        fns[key] = compile_expr(tree)
        if tree.kind == "name" and tree.value in names:
            kernel_inputs[key] = tree.value
    if check_kernels:
        _check_kernel(sem.get("kind"), fns, ctx, line0)
    return sem, fns, kernel_inputs


def _check_kernel(kind: Any, fns: dict[str, Fn], ctx: FileCtx, line0: int) -> None:
    """``[semantics]`` names a kernel and binds each of its arguments by name."""
    from ..kernels import KERNELS
    if kind not in KERNELS:
        raise ctx.err(f"[semantics] kind {kind!r} has no kernel; known kinds are {', '.join(sorted(KERNELS))}", line0)
    params = inspect.signature(KERNELS[kind]).parameters.values()
    required = {p.name for p in params if p.default is p.empty and p.kind is not p.VAR_KEYWORD}
    accepted = {p.name for p in params}
    missing, extra = required - set(fns), set(fns) - accepted
    if missing or (extra and not any(p.kind is p.VAR_KEYWORD for p in params)):
        raise ctx.err(f"[semantics] must bind every argument of kernel {kind!r} by name: "
                      f"{', '.join(sorted(accepted))}" + (f"; missing {', '.join(sorted(missing))}" if missing else "")
                      + (f"; unknown {', '.join(sorted(extra))}" if extra else ""), line0)
