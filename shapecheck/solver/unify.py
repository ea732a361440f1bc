"""Unification: what the top-level equalities of the rules say about unknown dims, ranks, types and slice bounds.

An unknown dim is bound to what the other side of an equality says (``updates.shape[0] := M``);
an input of unknown rank gets a fresh shape of the rank an equality needs, or the one rank
that makes every shape equality agree (``_solve_rank``); an integer a slice needs (``k`` in
``data.shape[k:]``) is solved when one value fits (``_solve_int``).  Each binding the query
depends on is recorded as a relation (``Bindings.conds``) so it becomes a stated condition.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator


from ..notation import EvalError, NeedInt, Rel, Unknown, UnknownDType, UnknownRank, UnknownShape, fresh_shape
from ..registry import Rule, Spec
from ..containers import is_container, rebuilt
from ..types import TensorType
from ..dims import expr_str, is_unknown, normalize_dim, is_symbolic
from .query import spec_env

if TYPE_CHECKING:
    import numpy as np
    import sympy
else:
    from ..deferred import numpy as np
    from ..deferred import sympy

__all__ = ["Bindings", "learn", "refuted_ids", "subst_type"]


_MAX_RANK_GUESS = 8


def subst_type(t: TensorType, dims: dict, shape: tuple | None = None, dtype: str | None = None) -> TensorType:
    """``t`` with ``dims`` (symbol -> dim) put into its shape, symbolic value and bounds, a container's
    tensors too (``shape``, ``dtype``: replace the type's own)."""
    if is_container(t):   # a sequence's, optional's or map's tensors: their dims substituted (never bound whole)
        return rebuilt(t, lambda x: subst_type(x, dims), lambda d: normalize_dim(d.xreplace(dims)) if dims else d) \
            if dims else t
    new_shape = shape if shape is not None else t.shape
    sym, bounds = t.sym, t.bounds
    if new_shape is not None and dims:
        new_shape = tuple(normalize_dim(d.xreplace(dims)) if is_symbolic(d) else d for d in new_shape)
        if sym is not None:
            sym = tuple(normalize_dim(d.xreplace(dims)) if is_symbolic(d) else d for d in sym)
        if bounds is not None:
            bounds = tuple(normalize_dim(d.xreplace(dims)) if is_symbolic(d) else d for d in bounds)
    return TensorType(dtype if dtype is not None else t.dtype, new_shape, t.value, sym, bounds)


class Bindings:
    """What unification learned: unknown dims, ranks, dtypes, and integers for slice-bound symbols."""

    def __init__(self):
        self.dims: dict = {}          # Dummy -> dim
        self.shapes: dict = {}        # input name -> fresh shape (was unknown rank)
        self.dtypes: dict = {}        # input name -> dtype (was unknown)
        self.ints: dict = {}          # symbol -> int, needed to slice a shape
        self.conds: dict[str, list[Rel]] = {}   # rule id -> relations assumed by these bindings
        self.refuted: dict[str, str] = {}       # rule id -> why no binding can satisfy it

    @property
    def empty(self) -> bool:
        """Nothing learned: ``types`` gives the base types back, whatever it is asked."""
        return not (self.dims or self.shapes or self.dtypes or self.ints)

    def types(self, base: dict[str, TensorType], dims=True, user_ints=True) -> dict[str, TensorType]:
        sub = dict(self.dims) if dims else {}
        for s, v in self.ints.items():
            if user_ints or is_unknown(s):
                sub[s] = v
        out = {}
        for name, t in base.items():
            if isinstance(t, tuple):
                out[name] = tuple(subst_type(x, sub) for x in t) if sub else t
                continue
            out[name] = subst_type(t, sub, self.shapes.get(name), self.dtypes.get(name) if dims else None)
        return out


def _resolve(b: Bindings, d):
    if is_symbolic(d) and b.dims:
        for _ in range(8):
            nd = d.xreplace(b.dims)
            if nd == d:
                break
            d = nd
        return normalize_dim(d)
    return d


def _unify(b: Bindings, lhs, rhs) -> bool:
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
            if is_unknown(x) and not (is_symbolic(y) and x in y.free_symbols):
                b.dims[x] = y
                changed = True
            elif is_unknown(y) and not (is_symbolic(x) and y in x.free_symbols):
                b.dims[y] = x
                changed = True
    return changed


def learn(spec: Spec, base: dict[str, TensorType], attrs: dict) -> Bindings:
    b = Bindings()
    for _round in range(6):
        changed = False
        env = spec_env(spec, b.types(base), attrs)
        for rule in spec.constraints:
            for lhs_fn, rhs_fn in rule.equalities:
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


def _solve_rank(spec: Spec, b: Bindings, base, attrs) -> bool:
    """Find the one rank that an input of unknown rank can have so that every shape equality has matching ranks.

    ScatterND with data of unknown rank and indices [M,1], updates [M,C] has data of rank 2: no
    other rank makes ``updates.shape == indices.shape[:-1] ++ data.shape[k:]`` hold.  The rank found
    is stated as a condition (``rank(data) == 2``), as when an equality binds it directly.
    """
    pending = [n for n, t in base.items() if not isinstance(t, tuple) and not is_container(t) and t.shape is None
               and n not in b.shapes]
    always = refuted_ids(spec, spec_env(spec, b.types(base), attrs)) if pending else set()
    for name in pending:
        fits = []
        for r in range(_MAX_RANK_GUESS + 1):
            trial = Bindings()
            trial.dims, trial.dtypes, trial.ints = b.dims, b.dtypes, b.ints
            trial.shapes = {**b.shapes, name: fresh_shape(name, r)}
            env = spec_env(spec, trial.types(base), attrs)
            verdict, rid = _ranks_agree(spec, env)
            if verdict is None:
                return False          # something else is unknown too: the rank is not determined here
            if verdict and not refuted_ids(spec, env) - always:   # a rank that breaks another rule (k <= r) is no fit
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
    for rule, lhs, rhs in _evaluated_equalities(spec, env):
        if isinstance(lhs, tuple) and isinstance(rhs, tuple):
            seen = seen or rule.id
            if len(lhs) != len(rhs):
                return False, seen
    return (True if seen else None), seen


def _evaluated_equalities(spec: Spec, env: dict) -> Iterator[tuple[Rule, Any, Any]]:
    """(rule, lhs, rhs) of each top-level equality of the constraints that evaluates in ``env``."""
    for rule in spec.constraints:
        for lhs_fn, rhs_fn in rule.equalities:
            try:
                lhs, rhs = lhs_fn(env), rhs_fn(env)
            except (NeedInt, EvalError):
                continue
            yield rule, lhs, rhs


def _solve_int(spec: Spec, b: Bindings, base, attrs, rule: Rule, expr) -> bool:
    """Find the one integer that a slice-bound symbol can take so that every shape equality has matching ranks."""
    free = [s for s in getattr(expr, "free_symbols", ()) if s not in b.ints]
    if len(free) != 1:
        return False
    sym = free[0]
    feasible = []
    undetermined = False
    # constraints refuted whatever the symbol is (a dtype mismatch) say nothing about its value
    always = refuted_ids(spec, spec_env(spec, b.types(base), attrs))
    for v in range(_MAX_RANK_GUESS + 1):
        trial = Bindings()
        trial.dims, trial.shapes, trial.dtypes = b.dims, b.shapes, b.dtypes
        trial.ints = dict(b.ints)
        trial.ints[sym] = v
        env = spec_env(spec, trial.types(base), attrs)
        ok = True
        for _rule, lhs, rhs in _evaluated_equalities(spec, env):
            if isinstance(lhs, tuple) and isinstance(rhs, tuple) and len(lhs) != len(rhs):
                ok = False
            elif isinstance(lhs, Unknown) or isinstance(rhs, Unknown):
                undetermined = True
        # a value that refutes another constraint (k <= r for k > r) is no solution either
        if ok and refuted_ids(spec, env) - always:
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


def refuted_ids(spec: Spec, env: dict) -> set[str]:
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
