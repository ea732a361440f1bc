"""A query (input types, attributes) + its spec -> a ``Result``.

Every constraint ends as proved, refuted, conditional (with the residual relation in
the user's symbols), unchecked (needs run-time index values) or skipped.  When every dim is
an ``int`` the constraints run on plain integers; sympy is used only where symbols are.

Unknown dims and ranks are *unified* with what the constraints require (``updates``
of unknown rank gets the shape C7 asks for), and a symbol used as a slice bound
(ScatterND's ``k``) is solved from the rank equations when one value fits.

>>> from shapecheck.spec.load import default_registry
>>> spec = default_registry().resolve("ScatterND", 18)
>>> r = solve(spec, {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"})
>>> r.status, str(r.outputs["output"])
('valid', 'float[N,C]')
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import sympy

from .errors import UsageError
from .result import ConstraintResult, Finding, Result
from .spec.compile import (EvalError, NeedInt, Rel, TensorVal, Unknown, UnknownDType, UnknownRank, UnknownShape,
                           as_cond, compile_expr, fresh_shape, lazy)
from .spec.load import Registry, Rule, Spec
from .spec.notation import Node, names_in, unparse
from .types import TensorType, as_tensor_type, expr_str, is_unknown, normalize_dim, numpy_dtype, unknown_dim, valued, value_str

_MAX_RANK_GUESS = 8


# ---------------------------------------------------------------- query preparation

def prepare_inputs(spec: Spec, inputs: dict[str, Any]) -> dict[str, TensorType]:
    """Type strings / arrays -> TensorTypes; a missing or unknown input is a UsageError."""
    if not isinstance(inputs, dict):
        raise UsageError(f"{spec.name}: inputs must be a mapping of input name to type")
    declared = [i.name for i in spec.inputs]
    extra = [n for n in inputs if n not in declared]
    if extra:
        raise UsageError(f"{spec.name} has no input {extra[0]!r}; its inputs are {', '.join(declared)}")
    out = {}
    for decl in spec.inputs:
        if decl.name not in inputs or inputs[decl.name] is None:
            if decl.optional:
                continue
            raise UsageError(f"{spec.name} needs input {decl.name!r} ({decl.doc or decl.type}); "
                             f"give all of {', '.join(declared)}")
        given = inputs[decl.name]
        if decl.variadic:
            if not isinstance(given, (list, tuple)) or not given:
                given = [given] if not isinstance(given, (list, tuple)) else given
            if not given:
                raise UsageError(f"{spec.name} needs at least one {decl.name!r} input")
            out[decl.name] = tuple(as_tensor_type(g, f"{decl.name}[{i}]") for i, g in enumerate(given))
        else:
            out[decl.name] = as_tensor_type(given, decl.name)
    return out


def prepare_attrs(spec: Spec, attrs: dict[str, Any] | None, unknown: str = "error",
                  registry: Registry | None = None) -> tuple[dict, list[Finding]]:
    """Apply defaults and check types.  ``unknown="error"`` raises; ``"finding"`` returns violations."""
    attrs = dict(attrs or {})
    findings: list[Finding] = []
    out: dict[str, Any] = {}
    for name, value in attrs.items():
        decl = spec.attributes.get(name)
        if decl is None:
            have = ", ".join(spec.attributes) or "no attributes"
            later = _first_version_with_attr(spec, name, registry)
            fix = f"remove {name!r}" + (f", or use {later} (opset >= {later.rsplit('-', 1)[1]})" if later else "")
            msg = f"{spec.name} has no attribute {name!r} (it has {have})"
            if unknown == "error":
                raise UsageError(msg + f"; {fix}")
            findings.append(Finding("A1", "attributes are declared by the spec", msg, {name: _repr(value)}, fix))
            continue
        conv = _convert_attr(decl.type, value)
        if conv is None:
            msg = f"{spec.name} attribute {name!r} must be {decl.type}, got {_repr(value)}"
            if decl.type in ("int", "ints") and not isinstance(value, bool) and _is_int_like(value):
                msg += f" (an {decl.type} attribute holds int64 values)"
            if unknown == "error":
                raise UsageError(msg)
            findings.append(Finding("A2", f"{name} is {decl.type}", msg, {name: _repr(value)}, f"give {name} a {decl.type} value"))
            continue
        out[name] = conv
    for name, decl in spec.attributes.items():
        if name not in out:
            out[name] = decl.default
    return out, findings


_INT64 = range(-(1 << 63), 1 << 63)


def _repr(value: Any) -> str:
    """A value as a message shows it: short, and never an error (ints past 4300 digits cannot print)."""
    try:
        text = repr(value)
    except ValueError:
        return f"<a {type(value).__name__} too long to print>"
    return text if len(text) <= 80 else text[:77] + "..."


def _is_int_like(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_is_int_like(v) for v in value)
    return isinstance(value, (int, np.integer)) or (isinstance(value, str) and value.strip().lstrip("-").isdigit())


def _convert_attr(atype: str, value: Any) -> Any:
    if atype == "int":
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, np.integer)):
            return int(value) if int(value) in _INT64 else None
        if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) <= 20:
            return _convert_attr(atype, int(value))
        return None
    if atype == "string":
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else None
    if atype == "float":
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    if atype == "ints":
        try:
            out = tuple(int(v) for v in value)
        except (TypeError, ValueError, OverflowError):
            return None
        return out if all(v in _INT64 for v in out) else None
    from .spec.tensor_attrs import convert_attr   # tensor, sparse_tensor, floats, strings
    return convert_attr(atype, value)


def _versions(spec: Spec, registry: Registry | None) -> list[Spec]:
    """Every version of ``spec``'s operator in the registry the query was given, for hints."""
    if registry is None:
        from .spec.load import default_registry
        registry = default_registry()
    return registry.versions(spec.op, spec.domain)


def _first_version_with_attr(spec: Spec, name: str, registry: Registry | None) -> str | None:
    return next((s.name for s in _versions(spec, registry) if s.version > spec.version and name in s.attributes), None)


# ---------------------------------------------------------------- environments

def _env(spec: Spec, types: dict[str, TensorType], attrs: dict[str, Any], output_count: int | None = None) -> dict:
    env: dict = {}
    env.update(spec.types)
    env.update(attrs)
    for name, t in types.items():
        env[name] = (tuple(TensorVal(f"{name}[{i}]", x) for i, x in enumerate(t)) if isinstance(t, tuple)
                     else TensorVal(name, t))
    for decl in spec.inputs:   # an absent optional input is None: rules test it with present(x) / absent(x)
        if decl.optional and decl.name not in env:
            env[decl.name] = None
    for name, (_text, fn) in spec.lets.items():
        env[name] = lazy(fn)
    env["output_count"] = len(spec.outputs) if output_count is None else output_count
    return env


def _lacks_value(t: TensorType | tuple) -> bool:
    """True when a tensor's contents (or any of a variadic input's) are not known."""
    if isinstance(t, tuple):
        return any(_lacks_value(x) for x in t)
    return t.value is None and t.sym is None


def spec_env(spec: Spec, types: dict[str, TensorType], attrs: dict[str, Any], output_count: int | None = None) -> dict:
    """The evaluation environment of a spec for these (already prepared) types and attributes."""
    return _env(spec, types, attrs, output_count)


def _subst_type(t: TensorType, dims: dict, shape: tuple | None = None, dtype: str | None = None) -> TensorType:
    new_shape = shape if shape is not None else t.shape
    sym = t.sym
    if new_shape is not None and dims:
        new_shape = tuple(normalize_dim(d.xreplace(dims)) if isinstance(d, sympy.Basic) else d for d in new_shape)
        if sym is not None:
            sym = tuple(normalize_dim(d.xreplace(dims)) if isinstance(d, sympy.Basic) else d for d in sym)
    return TensorType(dtype if dtype is not None else t.dtype, new_shape, t.value, sym)


class _Bindings:
    """What unification learned: unknown dims, ranks, dtypes, and integers for slice-bound symbols."""

    def __init__(self):
        self.dims: dict = {}          # Dummy -> dim
        self.shapes: dict = {}        # input name -> fresh shape (was unknown rank)
        self.dtypes: dict = {}        # input name -> dtype (was unknown)
        self.ints: dict = {}          # symbol -> int, needed to slice a shape
        self.conds: dict[str, list[Rel]] = {}   # rule id -> relations assumed by these bindings
        self.refuted: dict[str, str] = {}       # rule id -> why no binding can satisfy it

    def types(self, base: dict[str, TensorType], dims=True, user_ints=True) -> dict[str, TensorType]:
        sub = dict(self.dims) if dims else {}
        for s, v in self.ints.items():
            if user_ints or is_unknown(s):
                sub[s] = v
        out = {}
        for name, t in base.items():
            if isinstance(t, tuple):
                out[name] = tuple(_subst_type(x, sub) for x in t) if sub else t
                continue
            out[name] = _subst_type(t, sub, self.shapes.get(name), self.dtypes.get(name) if dims else None)
        return out


def _resolve(b: _Bindings, d):
    if isinstance(d, sympy.Basic) and b.dims:
        for _ in range(8):
            nd = d.xreplace(b.dims)
            if nd == d:
                break
            d = nd
        return normalize_dim(d)
    return d


def _unify(b: _Bindings, lhs, rhs) -> bool:
    changed = False
    if isinstance(lhs, UnknownShape) and lhs.owner and isinstance(rhs, tuple) and lhs.owner not in b.shapes:
        b.shapes[lhs.owner] = fresh_shape(lhs.owner, len(rhs))
        return True
    if isinstance(rhs, UnknownShape) and rhs.owner and isinstance(lhs, tuple) and rhs.owner not in b.shapes:
        b.shapes[rhs.owner] = fresh_shape(rhs.owner, len(lhs))
        return True
    for a, c in ((lhs, rhs), (rhs, lhs)):
        if isinstance(a, UnknownRank) and a.owner and type(c) is int and c >= 0 and a.owner not in b.shapes:
            b.shapes[a.owner] = fresh_shape(a.owner, c)
            return True
    if isinstance(lhs, UnknownDType) and isinstance(rhs, str) and lhs.owner and lhs.owner not in b.dtypes:
        b.dtypes[lhs.owner] = rhs
        return True
    if isinstance(rhs, UnknownDType) and isinstance(lhs, str) and rhs.owner and rhs.owner not in b.dtypes:
        b.dtypes[rhs.owner] = lhs
        return True
    if isinstance(lhs, tuple) and isinstance(rhs, tuple) and len(lhs) == len(rhs):
        for x, y in zip(lhs, rhs):
            x, y = _resolve(b, x), _resolve(b, y)
            if x == y:
                continue
            if is_unknown(x) and not (isinstance(y, sympy.Basic) and x in y.free_symbols):
                b.dims[x] = y
                changed = True
            elif is_unknown(y) and not (isinstance(x, sympy.Basic) and y in x.free_symbols):
                b.dims[y] = x
                changed = True
    return changed


def _equalities(spec: Spec, rule: Rule) -> tuple:
    """The top-level ``a == b`` parts of a rule, compiled when the spec was loaded."""
    return rule.equalities


def _value_inputs(spec: Spec, rule: Rule) -> frozenset[str]:
    """Inputs whose contents (not shape or type) a rule reads, found when the spec was loaded."""
    return rule.value_inputs


# ---------------------------------------------------------------- solving

def _learn(spec: Spec, base: dict[str, TensorType], attrs: dict) -> _Bindings:
    b = _Bindings()
    for _round in range(6):
        changed = False
        env = _env(spec, b.types(base), attrs)
        for rule in spec.constraints:
            for lhs_fn, rhs_fn in _equalities(spec, rule):
                try:
                    lhs, rhs = lhs_fn(env), rhs_fn(env)
                except NeedInt as need:
                    if _solve_int(spec, b, base, attrs, rule, need.expr):
                        changed = True
                        break
                    continue
                except EvalError:
                    continue
                if _unify(b, lhs, rhs):
                    changed = True
                    for ch in (lhs, rhs):
                        if isinstance(ch, (UnknownShape, UnknownRank)) and ch.owner in b.shapes:
                            b.conds.setdefault(rule.id, []).append(
                                Rel("==", sympy.Symbol(f"rank({ch.owner})"), len(b.shapes[ch.owner])))
            if changed:
                break
        if not changed and _solve_rank(spec, b, base, attrs):
            changed = True
        if not changed:
            break
    return b


def _solve_rank(spec: Spec, b: _Bindings, base, attrs) -> bool:
    """Find the one rank that an input of unknown rank can have so that every shape equality has matching ranks.

    ScatterND with data of unknown rank and indices [M,1], updates [M,C] has data of rank 2: no
    other rank makes ``updates.shape == indices.shape[:-1] ++ data.shape[k:]`` hold.  The rank found
    is stated as a condition (``rank(data) == 2``), as when an equality binds it directly.
    """
    pending = [n for n, t in base.items() if not isinstance(t, tuple) and t.shape is None and n not in b.shapes]
    always = _refuted_ids(spec, _env(spec, b.types(base), attrs)) if pending else set()
    for name in pending:
        fits = []
        for r in range(_MAX_RANK_GUESS + 1):
            trial = _Bindings()
            trial.dims, trial.dtypes, trial.ints = b.dims, b.dtypes, b.ints
            trial.shapes = {**b.shapes, name: fresh_shape(name, r)}
            env = _env(spec, trial.types(base), attrs)
            verdict, rid = _ranks_agree(spec, env)
            if verdict is None:
                return False          # something else is unknown too: the rank is not determined here
            if verdict and not _refuted_ids(spec, env) - always:   # a rank that breaks another rule (k <= r) is no fit
                fits.append((r, rid))
        if len(fits) == 1:
            r, rid = fits[0]
            b.shapes[name] = fresh_shape(name, r)
            b.conds.setdefault(rid, []).append(Rel("==", sympy.Symbol(f"rank({name})"), r))
            return True
    return False


def _ranks_agree(spec: Spec, env: dict) -> tuple[bool | None, str]:
    """True when every top-level shape equality compares shapes of equal length (None: undetermined),
    and the id of the first rule whose shapes were compared."""
    seen = ""
    for rule in spec.constraints:
        for lhs_fn, rhs_fn in _equalities(spec, rule):
            try:
                lhs, rhs = lhs_fn(env), rhs_fn(env)
            except (NeedInt, EvalError):
                continue
            if isinstance(lhs, tuple) and isinstance(rhs, tuple):
                seen = seen or rule.id
                if len(lhs) != len(rhs):
                    return False, seen
    return (True if seen else None), seen


def _solve_int(spec: Spec, b: _Bindings, base, attrs, rule: Rule, expr) -> bool:
    """Find the one integer that a slice-bound symbol can take so that every shape equality has matching ranks."""
    free = [s for s in getattr(expr, "free_symbols", ()) if s not in b.ints]
    if len(free) != 1:
        return False
    sym = free[0]
    feasible = []
    undetermined = False
    # constraints refuted whatever the symbol is (a dtype mismatch) say nothing about its value
    always = _refuted_ids(spec, _env(spec, b.types(base), attrs))
    for v in range(_MAX_RANK_GUESS + 1):
        trial = _Bindings()
        trial.dims, trial.shapes, trial.dtypes = b.dims, b.shapes, b.dtypes
        trial.ints = dict(b.ints)
        trial.ints[sym] = v
        env = _env(spec, trial.types(base), attrs)
        ok = True
        for r in spec.constraints:
            for lhs_fn, rhs_fn in _equalities(spec, r):
                try:
                    lhs, rhs = lhs_fn(env), rhs_fn(env)
                except (NeedInt, EvalError):
                    continue
                if isinstance(lhs, tuple) and isinstance(rhs, tuple) and len(lhs) != len(rhs):
                    ok = False
                elif isinstance(lhs, Unknown) or isinstance(rhs, Unknown):
                    undetermined = True
        # a value that refutes another constraint (k <= r for k > r) is no solution either
        if ok and _refuted_ids(spec, env) - always:
            ok = False
        if ok:
            feasible.append(v)
    if len(feasible) == 1 and not undetermined:
        b.ints[sym] = feasible[0]
        b.conds.setdefault(rule.id, []).append(Rel("==", sym, feasible[0]))
        return True
    if not feasible:
        b.refuted[rule.id] = (f"no value of {expr_str(sym)} makes the ranks agree "
                              f"(tried 0..{_MAX_RANK_GUESS})")
    return False


def _refuted_ids(spec: Spec, env: dict) -> set[str]:
    """Ids of the constraints that evaluate to plain False in ``env``."""
    out = set()
    for r in spec.constraints:
        try:
            v = r.fn(env)
        except (NeedInt, EvalError):
            continue
        if v is False or (isinstance(v, (bool, np.bool_)) and not v):
            out.add(r.id)
    return out


def _rule_status(spec: Spec, rule: Rule, env: dict, types: dict[str, TensorType], b: _Bindings):
    """-> (status, conditions as (text, sympy relation or None), Cond-or-None, error text)"""
    if rule.id in b.refuted:
        return "refuted", [], None, b.refuted[rule.id]
    need = _value_inputs(spec, rule)
    if any(_lacks_value(types[n]) for n in need if n in types):
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
    flat = [x for t in base.values() for x in (t if isinstance(t, tuple) else (t,))]
    symbolic = any(t.dtype is None or t.shape is None or any(type(d) is not int for d in t.shape) or t.sym is not None
                   for t in flat)
    unknowns = symbolic and any(t.dtype is None or t.shape is None or any(is_unknown(d) for d in t.shape)
                                for t in flat)
    # unification is needed for unknown dims, ranks and types, or for a symbol used as a slice bound
    b = _learn(spec, base, attr_values) if unknowns else _Bindings()
    while True:
        types = b.types(base, dims=False) if symbolic else base
        env = _env(spec, types, attr_values, output_count)
        statuses = [(rule, *_rule_status(spec, rule, env, types, b)) for rule in spec.constraints]
        if unknowns or not any(st[-1] == "need-int" for st in statuses):
            break
        b, unknowns = _learn(spec, base, attr_values), True
    statuses = [(rule, status, conds, err) for rule, status, conds, _cond, err in statuses]

    result = Result(status="valid", spec=spec.name, op=spec.qualified_op, opset=opset)
    result.violations.extend(attr_findings)
    any_refuted = any(s == "refuted" for _, s, _, _ in statuses) or bool(attr_findings)
    for rule, status, conds, err in statuses:
        if status == "error":
            status = "skipped" if any_refuted else "refuted"
        cr = ConstraintResult(rule.id, rule.rule, rule.message, status, [t for t, _ in conds])
        if status == "refuted":
            cr.values = _values_involved(spec, rule, env)
        result.constraints.append(cr)
        if status == "refuted":
            result.violations.append(Finding(rule.id, rule.rule, rule.message, cr.values,
                                             _fix(spec, rule, env, base, attrs, hints, registry), err))
        for c, rel in conds:
            if c not in result.conditions:
                result.conditions.append(c)
                result.relations[c] = rel
            result.condition_sources.setdefault(c, []).append(rule.id)

    contradiction = _contradiction(result)
    if contradiction:
        result.violations.append(contradiction)

    out_types = b.types(base, dims=True, user_ints=False) if symbolic else base
    out_env = _env(spec, out_types, attr_values, output_count)
    for key, out, pos in output_slots(spec, output_count):
        if pos is not None:
            out_env = dict(out_env)
            out_env["i"] = pos
        result.outputs[key] = _output_type(out, out_env)

    for rule in spec.warnings:
        need = _value_inputs(spec, rule)
        if any(_lacks_value(types[n]) for n in need if n in types):
            continue
        try:
            v = rule.fn(env)
        except (EvalError, NeedInt):
            continue
        if v is False or (isinstance(v, (bool, np.bool_)) and not v):
            result.warnings.append(Finding(rule.id, rule.rule, rule.message))
    if spec.deprecated:
        # onnx.checker and onnxruntime reject a deprecated op at the opsets where it is deprecated
        result.violations.append(Finding("deprecated", f"{spec.op} is deprecated at opset {spec.version}",
                                         spec.deprecated, {}, _deprecation_fix(spec, registry)))

    if result.violations:
        result.status = "invalid"
    elif result.conditions:
        result.status = "conditional"
    return result


def _deprecation_fix(spec: Spec, registry: Registry | None) -> str:
    older = [s for s in _versions(spec, registry) if s.version < spec.version and not s.deprecated]
    fix = "replace the node by its successor named in the message"
    if older:
        fix += f", or keep the model's opset below {spec.version}"
    return fix


def output_slots(spec: Spec, output_count: int | None = None) -> list[tuple[str, Any, int | None]]:
    """(result key, output declaration, position among a variadic output's tensors) in node order.

    >>> from shapecheck.spec.load import default_registry
    >>> [k for k, _, _ in output_slots(default_registry().resolve("ScatterND", 18))]
    ['output']
    """
    fixed = [o for o in spec.outputs if not o.variadic]
    out: list[tuple[str, Any, int | None]] = [(o.name, o, None) for o in fixed]
    if spec.outputs and spec.outputs[-1].variadic:
        last = spec.outputs[-1]
        n = max((output_count if output_count is not None else len(spec.outputs)) - len(fixed), 1)
        out += [(f"{last.name}[{i}]", last, i) for i in range(n)]
    return out


def _output_type(out, env) -> TensorType:
    def attempt(fn):
        try:
            return fn(env) if fn is not None else None
        except (EvalError, NeedInt):
            return None
    dt = attempt(out.type_fn)
    shape = attempt(out.shape_fn)
    dtype = dt if isinstance(dt, str) else None
    if isinstance(shape, tuple):   # a dim the rules cannot tell (a length known at run time) is a fresh unknown
        shape = tuple(unknown_dim(f"{out.name}.shape[{i}]") if isinstance(d, Unknown) else normalize_dim(d)
                      for i, d in enumerate(shape))
    else:
        shape = None
    value = attempt(out.value_fn)
    if isinstance(value, np.ndarray):
        if shape is not None and value.shape == shape and dtype is not None:
            return TensorType(dtype, shape, value.astype(numpy_dtype(dtype), copy=False))
        return TensorType(dtype, shape)
    if value is None or isinstance(value, Unknown):
        return TensorType(dtype, shape)
    return valued(dtype, shape, value if isinstance(value, tuple) else (value,))


def _contradiction(result: Result) -> Finding | None:
    """Conditions that cannot all hold (``N == 4`` and ``N == 5``) make the query invalid."""
    eqs = equalities(result.relations.items())
    return contradiction_of(eqs, lambda t: result.condition_sources.get(t, [])) if len(eqs) >= 2 else None


def equalities(relations: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The (text, relation) pairs whose relation is an equality between dims (``Rel`` objects)."""
    return [(t, r) for t, r in relations if isinstance(r, Rel) and r.op == "=="]


def contradiction_of(eqs: list[tuple[str, Any]], sources) -> Finding | None:
    """A Finding when the equalities ``eqs`` (text, sympy Eq) have no common solution.

    Each group of equalities linked by shared symbols is decided on its own, and only when it
    is linear (``N == M``, ``2*N == K + 1``): ``linsolve`` answers those in polynomial time.
    A nonlinear or very large group is left undecided (its conditions are still stated), so a
    model with thousands of conditions never waits on a Groebner basis.
    """
    eqs = _linked(eqs)
    if len(eqs) < 2:
        return None
    for group in _groups(eqs):
        bad = _inconsistent(group)
        if bad:
            return _contradiction_finding(group, sources)
    return None


_MAX_GROUP = 64   # equalities decided together at most


def _groups(eqs: list[tuple[str, Any]]) -> list[list[tuple[str, Any]]]:
    """Equalities that share symbols, directly or through others (union-find over symbols)."""
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) is not x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for _, e in eqs:
        syms = list(e.free_symbols)
        for a in syms[1:]:
            ra, rb = find(syms[0]), find(a)
            if ra is not rb:
                parent[ra] = rb
    by_root: dict = {}
    for t, e in eqs:
        key = find(next(iter(e.free_symbols))) if e.free_symbols else None
        by_root.setdefault(key, []).append((t, e))
    return [g for g in by_root.values() if len(g) >= 2 or not g[0][1].free_symbols]


def _inconsistent(group: list[tuple[str, Any]]) -> bool:
    if len(group) > _MAX_GROUP:
        return False
    exprs = [sympy.expand(sympy.sympify(e.lhs) - e.rhs) for _, e in group]
    syms = sorted(set().union(*(x.free_symbols for x in exprs)), key=str)
    if not syms:
        return any(x != 0 for x in exprs)
    try:
        if any(sympy.Poly(x, *syms).total_degree() > 1 for x in exprs):
            return False          # nonlinear: not decided here
        sol = sympy.linsolve(exprs, syms)
    except (sympy.PolynomialError, NotImplementedError, ValueError, TypeError):
        return False
    if sol == sympy.EmptySet:
        return True
    for point in sol:            # dims are nonnegative integers: a forced negative or fractional value is no solution
        for v in point:
            if v.is_number and (v < 0 or not v.is_integer):
                return True
    return False


def _contradiction_finding(eqs: list[tuple[str, Any]], sources) -> Finding:
    ids = []
    for t, _ in eqs:
        for i in sources(t):
            if i not in ids:
                ids.append(i)
    texts = [t for t, _ in eqs]
    return Finding("+".join(ids) or "conditions", " and ".join(texts),
                   "these conditions cannot all hold", {},
                   "make the dims agree: " + ", ".join(texts), "no values of the dims satisfy them together")


def _linked(eqs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Only equalities sharing a symbol with another can contradict each other (or themselves)."""
    count: dict = {}
    for _, e in eqs:
        for s in e.free_symbols:
            count[s] = count.get(s, 0) + 1
    return [(t, e) for t, e in eqs if any(count[s] > 1 for s in e.free_symbols) or not e.free_symbols]


# ---------------------------------------------------------------- explaining

def _fmt(v) -> str | None:
    if isinstance(v, tuple):
        return "[" + ",".join(expr_str(d) if not is_unknown(d) else "?" for d in v) + "]"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, sympy.Basic):
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


def _values_involved(spec: Spec, rule: Rule, env: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for text, leaf, fn in rule.leaves:
        if text in out or (leaf.kind == "name" and leaf.value in spec.types):
            continue
        try:
            v = fn(env)
        except (EvalError, NeedInt, KeyError):
            continue
        s = _fmt(v)
        if s is not None:
            out[text] = s
        if len(out) >= 6:
            break
    if any(n.kind == "comp" for n in _walk(rule.tree)):
        # a quantified rule: show the tensors it ranges over
        values = _value_inputs(spec, rule)
        for name in sorted(names_in(rule.tree)):
            t = env.get(name)
            if isinstance(t, TensorVal):
                if t.shape is not None:
                    out.setdefault(f"{name}.shape", _fmt(t.shape))
                if name in values and t.value is not None:
                    out.setdefault(name, value_str(t.value))
    return out


def _walk(n: Node) -> Iterable[Node]:
    if isinstance(n, Node):
        yield n
        for c in n.children:
            yield from _walk(c)


def _fix(spec: Spec, rule: Rule, env: dict, base, attrs, hints: bool, registry: Registry | None) -> str:
    """What would make a refuted rule hold: an expected shape, the allowed values, a later version."""
    parts = []
    t = rule.tree
    if t.kind == "compare" and t.value == ("==",):
        lhs, rhs = t.children
        try:
            want = compile_expr(rhs)(env)
        except (EvalError, NeedInt):
            want = None
        if isinstance(want, tuple) and lhs.kind == "attr" and lhs.value == "shape":
            parts.append(f"give {unparse(lhs.children[0])} the shape {_fmt(want)}")
        elif isinstance(want, str):
            parts.append(f"make {unparse(lhs)} {want}")
    if t.kind == "compare" and t.value == ("in",):
        try:
            allowed = compile_expr(t.children[1])(env)
        except (EvalError, NeedInt):
            allowed = None
        if isinstance(allowed, frozenset):
            parts.append(f"use one of {', '.join(sorted(map(str, allowed)))}")
    if hints:
        later = _later_version_accepting(spec, base, attrs, registry)
        if later:
            parts.append(f"or raise the opset: {later.name} (opset {later.version}) accepts this")
    if rule.fix:
        parts.insert(0, rule.fix)
    return "; ".join(parts)


def _later_version_accepting(spec: Spec, base, attrs, registry: Registry | None) -> Spec | None:
    for s in _versions(spec, registry):
        if s.version <= spec.version:
            continue
        try:
            r = solve(s, base, attrs, hints=False)
        except UsageError:
            continue
        if r.ok:
            return s
    return None
