"""What a diagnostic shows of a refuted rule: the values involved and a fix.

>>> fmt((2, 3)), fmt("float")
('[2,3]', "'float'")
"""
from __future__ import annotations

from typing import TYPE_CHECKING


from ..notation import EvalError, NeedInt, TensorVal, Unknown, UnknownShape, compile_expr, names_in, unparse, walk
from ..registry import Registry, Rule, Spec
from ..dims import expr_str, is_unknown, is_symbolic
from ..types import value_str
from .query import versions

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

__all__ = ["fmt", "values_involved", "fix", "deprecation_fix"]


def deprecation_fix(spec: Spec, registry: Registry | None) -> str:
    older = [s for s in versions(spec, registry) if s.version < spec.version and not s.deprecated]
    fix = "replace the node by its successor named in the message"
    if older:
        fix += f", or keep the model's opset below {spec.version}"
    return fix


def fmt(v) -> str | None:
    if isinstance(v, tuple):
        return "[" + ",".join(expr_str(d) if not is_unknown(d) else "?" for d in v) + "]"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if is_symbolic(v):
        return expr_str(v)
    if isinstance(v, str):
        return repr(v) if v not in ("none",) else "'none'"
    if isinstance(v, TensorVal):
        return None if v.value is None else value_str(v.value)
    if isinstance(v, np.ndarray):
        return value_str(v)
    if isinstance(v, UnknownShape):
        return "unknown rank"
    if isinstance(v, Unknown):
        return "unknown"
    return None


def values_involved(spec: Spec, rule: Rule, env: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for text, leaf, fn in rule.leaves:
        if text in out or (leaf.kind == "name" and leaf.value in spec.types):
            continue
        try:
            v = fn(env)
        except (EvalError, NeedInt, KeyError):
            continue
        s = fmt(v)
        if s is not None:
            out[text] = s
        if len(out) >= 6:
            break
    if any(n.kind == "comp" for n in walk(rule.tree)):
        # a quantified rule: show the tensors it ranges over
        values = rule.value_inputs
        for name in sorted(names_in(rule.tree)):
            t = env.get(name)
            if isinstance(t, TensorVal):
                if t.shape is not None:
                    out.setdefault(f"{name}.shape", fmt(t.shape))
                if name in values and t.value is not None:
                    out.setdefault(name, value_str(t.value))
    return out


def fix(rule: Rule, env: dict, later: Spec | None) -> str:
    """What would make a refuted rule hold: an expected shape, the allowed values, a later version
    (``later``, one that accepts the query, found by the solver)."""
    parts = []
    t = rule.tree
    if t.kind == "compare" and t.value == ("==",):
        lhs, rhs = t.children
        try:
            want = compile_expr(rhs)(env)
        except (EvalError, NeedInt):
            want = None
        if isinstance(want, tuple) and lhs.kind == "attr" and lhs.value == "shape":
            parts.append(f"give {unparse(lhs.children[0])} the shape {fmt(want)}")
        elif isinstance(want, str):
            parts.append(f"make {unparse(lhs)} {want}")
    if t.kind == "compare" and t.value == ("in",):
        try:
            allowed = compile_expr(t.children[1])(env)
        except (EvalError, NeedInt):
            allowed = None
        if isinstance(allowed, frozenset):
            parts.append(f"use one of {', '.join(sorted(map(str, allowed)))}")
    if later:
        parts.append(f"or raise the opset: {later.name} (opset {later.version}) accepts this")
    if rule.fix:
        parts.insert(0, rule.fix)
    return "; ".join(parts)
