"""``solve``: a query (input types, attributes) + its spec -> a ``Result``.

Each constraint is classified (``_rule_status``) as proved, refuted, conditional (with its
relations), unchecked or skipped; then the conditions are checked for a contradiction, the
outputs inferred, the warnings evaluated.  A pure function of (spec, query, registry).
"""
from __future__ import annotations

from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..errors import UsageError
from ..findings import DEPRECATED
from ..result import ConstraintResult, Finding, Result
from ..notation import EvalError, NeedInt, as_cond
from ..registry import Registry, Rule, Spec
from ..types import TensorType
from ..containers import dims_in, is_container, tensors_in
from ..dims import is_symbolic, is_unknown
from .contradiction import contradiction
from .explain import deprecation_fix, fix, values_involved
from .loose import holds_when
from .outputs import output_slots, output_type
from .query import lacks_value, prepare_attrs, prepare_inputs, spec_env, versions
from .unify import Bindings, learn

__all__ = ["solve"]


def _rule_status(rule: Rule, env: dict, types: dict[str, TensorType], b: Bindings):
    """-> (status, conditions as (text, sympy relation or None), Cond-or-None, error text)"""
    if rule.id in b.refuted:
        return "refuted", [], None, b.refuted[rule.id]
    if rule.value_inputs and any(lacks_value(types[n]) for n in rule.value_inputs if n in types):
        return "unchecked", [], None, ""
    try:
        v = rule.fn(env)
    except NeedInt:
        return "conditional", [(rule.plain, None)], None, "need-int"
    except EvalError as exc:
        return "error", [], None, str(exc)
    extra = [(str(r), r) for r in b.conds.get(rule.id, [])]
    if v is True or (isinstance(v, (bool, np.bool_)) and v):
        return ("conditional" if extra else "proved"), extra, None, ""
    if v is False or isinstance(v, (bool, np.bool_)):
        return "refuted", [], None, ""
    c = as_cond(v)
    conds = [(str(r), r) for r in c.relations()]
    if c.opaque and not conds:
        conds = [(rule.plain, None)]
    if not conds and c.needs_value:
        return ("conditional" if extra else "unchecked"), extra, c, ""
    seen = {t for t, _ in extra}
    return "conditional", extra + [x for x in conds if x[0] not in seen], c, ""


def solve(spec: Spec, inputs: dict[str, Any], attrs: dict[str, Any] | None = None, *,
          opset: int | None = None, unknown_attrs: str = "error", hints: bool = True,
          output_count: int | None = None, registry: Registry | None = None) -> Result:
    """Check one query against one spec and infer its outputs (``output_count`` for variadic outputs);
    hints name versions in ``registry``."""
    base = prepare_inputs(spec, inputs)
    attr_values, attr_findings = prepare_attrs(spec, attrs, unknown_attrs, registry)
    flat = [x for t in base.values() for y in (t if isinstance(t, tuple) else (t,)) for x in tensors_in(y)]
    symbolic = any(t.dtype is None or t.shape is None or any(type(d) is not int for d in t.shape) or t.sym is not None
                   for t in flat) or any(is_symbolic(d) for t in base.values()
                                         for y in (t if isinstance(t, tuple) else (t,)) if is_container(y)
                                         for d in dims_in(y))
    unknowns = symbolic and any(t.dtype is None or t.shape is None or any(is_unknown(d) for d in t.shape)
                                for t in flat)
    # unification is needed for unknown dims, ranks and types, or for a symbol used as a slice bound
    b = learn(spec, base, attr_values) if unknowns else Bindings()
    while True:
        types = b.types(base, dims=False) if symbolic else base
        env = spec_env(spec, types, attr_values, output_count)
        statuses = [(rule, *_rule_status(rule, env, types, b)) for rule in spec.constraints]
        if unknowns or not any(st[-1] == "need-int" for st in statuses):
            break
        b, unknowns = learn(spec, base, attr_values), True

    result = Result(status="valid", spec=spec.name, op=spec.qualified_op, opset=opset)
    result.violations.extend(attr_findings)
    later = _LaterVersion(spec, base, attrs, registry) if hints else None
    _record(result, spec, [(rule, status, conds, err) for rule, status, conds, _cond, err in statuses], env, later)
    found = contradiction(result)
    if found:
        result.violations.append(found)

    if symbolic and not b.empty:
        out_env = spec_env(spec, b.types(base, dims=True, user_ints=False), attr_values, output_count)
    else:   # the outputs see the very types the constraints saw: their lets are computed once
        out_env = env
    for key, out, pos in output_slots(spec, output_count):
        if pos is not None:
            out_env = dict(out_env)
            out_env["i"] = pos
        result.outputs[key] = output_type(out, out_env)

    for rule, status, *_rest in statuses:
        if status == "unchecked" and rule.value_inputs:
            when = holds_when(spec, rule, types, attr_values, output_count)
            if when:
                result.runtime_when[rule.id] = when
    result.warnings.extend(_warnings(spec, env, types))
    if spec.deprecated:
        # onnx.checker and onnxruntime reject a deprecated op at the opsets where it is deprecated
        result.violations.append(Finding(DEPRECATED, f"{spec.op} is deprecated at opset {spec.version}",
                                         spec.deprecated, {}, deprecation_fix(spec, registry)))
    if result.violations:
        result.status = "invalid"
    elif result.conditions:
        result.status = "conditional"
    return result


def _record(result: Result, spec: Spec, statuses: list, env: dict, later: _LaterVersion | None) -> None:
    """Each constraint's status, its violation (values and fix) when refuted, its conditions."""
    any_refuted = any(s == "refuted" for _, s, _, _ in statuses) or bool(result.violations)
    for rule, status, conds, err in statuses:
        if status == "error":
            status = "skipped" if any_refuted else "refuted"
        cr = ConstraintResult(rule.id, rule.rule, rule.message, status, [t for t, _ in conds])
        if status == "refuted":
            cr.values = values_involved(spec, rule, env)
        result.constraints.append(cr)
        if status == "refuted":
            result.violations.append(Finding(rule.id, rule.rule, rule.message, cr.values,
                                             fix(rule, env, later() if later else None), err))
        for c, rel in conds:
            if c not in result.conditions:
                result.conditions.append(c)
                result.relations[c] = rel
            result.condition_sources.setdefault(c, []).append(rule.id)


def _warnings(spec: Spec, env: dict, types: dict[str, TensorType]) -> list[Finding]:
    """The warnings whose rule is plainly False (one reading values not known here is not evaluated)."""
    out = []
    for rule in spec.warnings:
        if any(lacks_value(types[n]) for n in rule.value_inputs if n in types):
            continue
        try:
            v = rule.fn(env)
        except (EvalError, NeedInt):
            continue
        if v is False or (isinstance(v, (bool, np.bool_)) and not v):
            out.append(Finding(rule.id, rule.rule, rule.message))
    return out


class _LaterVersion:
    """The first later version of the spec's operator that accepts the query, looked for once when asked."""

    def __init__(self, spec: Spec, base, attrs, registry: Registry | None):
        self.args = (spec, base, attrs, registry)
        self.found: list[Spec | None] = []

    def __call__(self) -> Spec | None:
        if not self.found:
            self.found.append(_later_version_accepting(*self.args))
        return self.found[0]


def _later_version_accepting(spec: Spec, base, attrs, registry: Registry | None) -> Spec | None:
    for s in versions(spec, registry):
        if s.version <= spec.version:
            continue
        try:
            r = solve(s, base, attrs, hints=False)
        except UsageError:
            continue
        if r.ok:
            return s
    return None
