"""Spec data before it is built: ``extends`` merging of a child onto its parent, ``[family]`` expansion.

Both work on the TOML data (dicts), never on built specs.

>>> merge({"op": "X", "version": 1, "let": {"a": "1"}}, {"version": 2, "let": {"b": "2"}})["let"]
{'a': '1', 'b': '2'}
"""
from __future__ import annotations

import copy
import re
from typing import Any

from .schema import SPEC_NAME
from .source import FileCtx


def merge(base: dict, child: dict) -> dict:
    """Apply a child spec's changes to its parent's (already merged) data."""
    out = _copied(base)
    for key in ("op", "domain", "version", "summary", "source", "inputs", "outputs", "deprecated", "see_also"):
        if key in child:
            out[key] = _copied(child[key])
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
    gone = set(child.get("remove_examples", []))    # a narrower child (Abs-1: floats only) drops examples by name
    out["examples"] = [e for e in out.get("examples", []) if {k.split("[")[0] for k in e.get("expect", {})} <= names
                       and e.get("name") not in gone] + list(child.get("examples", []))
    out["notes"] = list(out.get("notes", [])) + list(child.get("notes", []))
    return out


def _copied(x: Any) -> Any:
    """A deep copy of TOML data (dicts, lists and immutable values), as ``copy.deepcopy`` makes it
    at a fraction of its cost (a model's specs merged on every CLI run)."""
    if type(x) is dict:
        return {k: _copied(v) for k, v in x.items()}
    if type(x) is list:
        return [_copied(v) for v in x]
    return x


def family_members(data: dict, ctx: FileCtx) -> list[tuple[str, dict, FileCtx]]:
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
    m = SPEC_NAME.fullmatch(parent.strip()) if isinstance(parent, str) else None
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
        mdata = {k: _copied(v) for k, v in data.items() if k != "family"}
        mdata["op"] = member
        mdata["let"] = {**base_lets, **lets}
        if m is not None:
            mdata["extends"] = f"{m.group(1) + ':' if m.group(1) else ''}{member}-{m.group(3)}"
        mctx = copy.copy(ctx)
        mctx.member, mctx.member_lets = member, {name: line for name in lets}
        out.append((member, mdata, mctx))
    return out
