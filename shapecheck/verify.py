"""Confirm the solver by running the executor on instances of a symbolic query.

``verify`` solves a symbolic query (``data float[N,C]``, ``indices int64[M,K]`` ...), draws
concrete values for its symbols -- values that satisfy its conditions and, for a
conditional or invalid query, values that break them -- builds random tensors of those
shapes and checks three things agree on every instance:

* the symbolic prediction (the query's conditions evaluated under the substitution),
* the solver on the concrete instance (valid, or the refuted constraint ids),
* the executor (runs with the inferred output type, or raises ``ConstraintError`` naming
  one of the refuted constraints).

Nothing here knows an operator: index ranges come from the spec's semantics kind
(``kernels.EXTENTS``) and whether negative indices or an axis value are accepted is
decided by asking the solver on the concrete instance.

>>> rep = verify("ScatterND", 18, {"data": "float[N,C]", "indices": "int64[M,K]",
...              "updates": "float[M,C]"}, {}, samples=6, seed=1)
>>> rep.ok, len(rep.samples), rep.status
(True, 6, 'conditional')
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from .errors import ConstraintError, ShapeCheckError, UsageError
from .executor import run_spec
from .findings import DEPRECATED
from .kernels import EXTENTS, INDEX_ARG
from .result import Result
from .solver import prepare_attrs, prepare_inputs, solve, spec_env
from .spec.compile import EvalError, NeedInt, Unknown
from .spec.load import Registry, Spec, default_registry
from .types import ELEMENT_TYPES, TensorType, numpy_dtype, unknown_dim

_MAX_RANK = 4          # ranks drawn for inputs of unknown rank
_TRIES = 60            # attempts to satisfy (or break) a query's conditions
_MAX_ELEMENTS = 1 << 24  # elements over all inputs of one drawn instance
_MAX_SAMPLES = 10_000


@dataclass
class Sample:
    """One drawn instance and what each party said about it."""

    index: int
    intent: str                      # satisfy | break | bad-index | any
    substitution: dict[str, int]
    shapes: dict[str, list[int]]
    dtypes: dict[str, str]
    predicted: str                   # valid | invalid: C3 | values | unknown (from the symbolic result)
    solver: str                      # valid | invalid: C3, C5 (the solver on the concrete instance)
    executor: str                    # ok float[3,4] | ConstraintError C3 | <Exception>: message
    expected: str                    # the inferred output type under the substitution
    agree: bool
    why: str = ""
    arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in ("index", "intent", "substitution", "shapes", "dtypes", "predicted",
                                           "solver", "executor", "expected", "agree")}
        if self.why:
            d["why"] = self.why
        return d


@dataclass
class VerifyReport:
    """Every sample of one ``verify`` run, and a reproducer for each disagreement."""

    op: str
    opset: int
    spec: str
    inputs: dict[str, str]
    attrs: dict[str, Any]
    status: str
    conditions: list[str]
    seed: int
    samples: list[Sample] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s.agree for s in self.samples)

    @property
    def reproducers(self) -> list[dict[str, Any]]:
        return [_reproducer(self, s) for s in self.samples if not s.agree]

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "opset": self.opset, "spec": self.spec,
                "query": {"inputs": dict(self.inputs), "attrs": dict(self.attrs)},
                "status": self.status, "conditions": list(self.conditions), "seed": self.seed,
                "ok": self.ok, "samples": [s.to_dict() for s in self.samples], "reproducers": self.reproducers}


def _reproducer(rep: VerifyReport, s: Sample) -> dict[str, Any]:
    inputs = {n: {"dtype": s.dtypes[n], "shape": list(a.shape), "values": np.asarray(a).tolist()}
              for n, a in s.arrays.items()}
    code = ["import numpy as np, shapecheck",
            "from shapecheck.types import numpy_dtype",
            "inputs = {"]
    for n, v in inputs.items():
        code.append(f"    {n!r}: np.array({v['values']!r}, dtype=numpy_dtype({v['dtype']!r})).reshape({v['shape']}),")
    code += ["}", f"shapecheck.execute({rep.op!r}, {rep.opset}, inputs, {rep.attrs!r})"]
    return {"sample": s.index, "seed": rep.seed, "op": rep.op, "opset": rep.opset, "attrs": dict(rep.attrs),
            "substitution": s.substitution, "inputs": inputs, "why": s.why, "python": "\n".join(code)}


# ---------------------------------------------------------------- the run

def verify(op: str, opset: int, inputs: dict[str, str], attrs: dict | None = None, samples: int = 20, seed: int = 0,
           registry: Registry | None = None) -> VerifyReport:
    """Draw ``samples`` instances of a symbolic query and confirm solver and executor agree on each.

    >>> verify("ScatterElements", 18, {"data": "float[N,C]", "indices": "int64[M,C]",
    ...        "updates": "float[M,C]"}, {"axis": 0}, samples=3).ok
    True
    """
    attrs = dict(attrs or {})
    if not 1 <= samples <= _MAX_SAMPLES:
        raise UsageError(f"verify draws 1 to {_MAX_SAMPLES} samples, not {samples}")
    reg = registry or default_registry()
    spec = reg.resolve(op, opset)
    variadic = [i.name for i in spec.inputs if i.variadic]
    if variadic:
        raise UsageError(f"verify draws one tensor per input and {spec.name} takes a variable number of "
                         f"{variadic[0]!r} tensors; it cannot sample this operator yet (its differential tests "
                         "against onnxruntime cover it instead)")
    base = prepare_inputs(spec, inputs)           # UsageError for a bad or missing input
    prepare_attrs(spec, attrs)                    # UsageError for an unknown or ill-typed attribute
    top = solve(spec, base, attrs, opset=opset, registry=reg)
    _refuse_huge(spec, base)
    rng = np.random.default_rng(seed)
    rep = VerifyReport(spec.qualified_op, opset, spec.name, {k: str(v) for k, v in inputs.items()}, attrs,
                       top.status, list(top.conditions), seed)
    drawer = _Drawer(spec, base, attrs, rng, reg)
    for i in range(samples):
        rep.samples.append(drawer.sample(i, _intent(top, i, rng)))
    return rep


def _intent(top: Result, i: int, rng: np.random.Generator) -> str:
    """Satisfy the conditions, break them, or plant an out-of-range index value."""
    if i % 5 == 4:
        return "bad-index"
    if top.status == "valid":
        return "satisfy"
    return "satisfy" if i % 2 == 0 else "break"


class _Drawer:
    def __init__(self, spec: Spec, base: dict[str, TensorType], attrs: dict, rng: np.random.Generator,
                 registry: Registry):
        self.spec, self.base, self.attrs, self.rng, self.registry = spec, base, attrs, rng, registry
        self.value_inputs = set().union(*(r.value_inputs for r in spec.constraints)) if spec.constraints else set()
        self.cache: dict[tuple, tuple[dict[str, TensorType], Result]] = {}

    # -- structure: ranks and element types left unknown by the query
    def _structure(self, intent: str) -> tuple[dict[str, TensorType], Result, dict[str, int]]:
        open_rank = [n for n, t in self.base.items() if t.shape is None]
        open_dtype = [n for n, t in self.base.items() if t.dtype is None]
        best = None
        for _ in range(30 if (open_rank or open_dtype) else 1):
            ranks = {n: int(self.rng.integers(0, _MAX_RANK + 1)) for n in open_rank}
            dtypes = {n: self._dtype_choice(n) for n in open_dtype}
            key = (tuple(sorted(ranks.items())), tuple(sorted(dtypes.items())))
            if key not in self.cache:
                types = {n: TensorType(dtypes.get(n, t.dtype),
                                       tuple(unknown_dim(f"{n}.shape[{i}]") for i in range(ranks[n]))
                                       if n in ranks else t.shape, t.value)
                         for n, t in self.base.items()}
                self.cache[key] = (types, solve(self.spec, types, self.attrs, registry=self.registry))
            types, res = self.cache[key]
            best = (types, res, {f"rank({n})": r for n, r in ranks.items()})
            if intent != "satisfy" or res.status != "invalid":
                break
        return best

    def _dtype_choice(self, name: str) -> str:
        decl = next(i for i in self.spec.inputs if i.name == name)
        choices = sorted(self.spec.types.get(decl.type, ELEMENT_TYPES))
        return str(self.rng.choice(choices))

    # -- dims: values for every symbol, satisfying or breaking the conditions
    def _dims(self, types: dict[str, TensorType], res: Result, intent: str) -> tuple[dict, str, set[str]]:
        syms: set = set()
        for t in types.values():
            for d in t.shape or ():
                if isinstance(d, sympy.Basic):
                    syms |= d.free_symbols
        rels, unparsed = _relations(res, syms)
        target = rels[int(self.rng.integers(len(rels)))][0] if intent == "break" and rels else None
        others = [r for r, _ in rels if r is not target]
        sub = None
        for attempt in range(_TRIES):
            # the second half ignores the other equalities: they may pin the target (K == C forces K <= C)
            cand = self._assign(syms, others if attempt < _TRIES // 2 or target is None else [])
            if cand is None or not _nonnegative(types, cand):
                continue
            if target is not None and _holds(target, cand):
                continue      # meant to break this condition
            if intent == "satisfy" and not all(_holds(r, cand) for r in others):
                continue
            sub = cand
            break
        if sub is None:  # could not satisfy (or break): any non-negative values, the solver still decides
            for _ in range(_TRIES):
                sub = {s: self._small() for s in sorted(syms, key=str)}
                if _nonnegative(types, sub):
                    break
        failed = {i for r, ids in rels if not _holds(r, sub) for i in ids}
        if failed:
            predicted = "invalid: " + ", ".join(sorted(failed))
        elif res.violations:
            predicted = "invalid: " + ", ".join(sorted(_ids(res.violations)))
        else:
            predicted = "unknown" if unparsed else "valid"
        return sub, predicted, failed or _ids(res.violations)

    def _small(self) -> int:
        return int(self.rng.choice([0, 1, 2, 3, 4, 5, 6], p=[.04, .2, .22, .2, .16, .1, .08]))

    def _assign(self, syms: set, rels: list) -> dict | None:
        """Random values, solving each equality for one of its still-free symbols."""
        sub: dict = {}
        order = [r for r in rels if isinstance(r, sympy.Eq)]
        self.rng.shuffle(order)
        for eq in order:
            e = sympy.sympify(sympy.expand(eq.lhs - eq.rhs).xreplace(sub))
            free = sorted(e.free_symbols, key=str)
            if not free:
                continue
            pick = free[int(self.rng.integers(len(free)))]
            for s in free:
                if s is not pick:
                    sub[s] = self._small()
            sols = [v for v in sympy.solve(e.xreplace(sub), pick) if v.is_integer and v >= 0]
            if not sols:
                return None
            sub[pick] = int(sols[0])
        for s in sorted(syms, key=str):     # never set order: it depends on the hash seed
            sub.setdefault(s, self._small())
        return sub

    # -- one instance
    def sample(self, index: int, intent: str) -> Sample:
        types, res, rank_sub = self._structure(intent)
        sub, predicted, predicted_ids = self._dims(types, res, "satisfy" if intent == "bad-index" else intent)
        unchecked = {c.id for c in res.constraints if c.status == "unchecked"}
        shapes = {n: tuple(int(_at(d, sub)) if isinstance(d, sympy.Basic) else d for d in t.shape)
                  for n, t in types.items()}
        _refuse_huge(self.spec, {n: TensorType(t.dtype, shapes[n]) for n, t in types.items()})
        arrays: dict[str, np.ndarray] = {}
        for n, t in types.items():
            if t.value is not None:
                arrays[n] = np.asarray(t.value)
            elif n not in self.value_inputs:
                arrays[n] = _random_array(self.rng, t.dtype, shapes[n])
        values_state = self._value_arrays(types, shapes, arrays, intent)
        if predicted == "valid" and values_state != "in-range":
            predicted = "values"   # valid unless a run-time value constraint is broken (on purpose or unavoidably)
        expected = _expected(res, sub)
        s = Sample(index, intent, {**rank_sub, **{_sym_name(k): int(v) for k, v in sorted(sub.items(), key=lambda kv: str(kv[0]))}},
                   {n: list(a.shape) for n, a in arrays.items()}, {n: types[n].dtype for n in arrays},
                   predicted, "", "", str(expected) if expected else "?", True, arrays=arrays)
        self._judge(s, predicted_ids, unchecked, values_state, expected)
        return s

    def _value_arrays(self, types, shapes, arrays, intent: str) -> str:
        """Fill inputs whose contents constraints read; returns in-range | bad | random."""
        state = "in-range"
        pending = [n for n in types if n not in arrays]
        # scalar-like value inputs (an axis given as a tensor) first: the index range depends on them
        index_input = self._index_input()
        for n in sorted(pending, key=lambda n: n == index_input):
            t = types[n]
            if n == index_input:
                state = _worst(state, self._indices(types, shapes, arrays, intent))
                continue
            cands = [v for v in range(-4, 5) if v >= 0 or not _unsigned(t.dtype)]
            self.rng.shuffle(cands)
            arrays[n] = _filled(t.dtype, shapes[n], cands[0])
            if intent == "break":
                state = _worst(state, "random")
                continue
            for v in cands:  # ask the solver which value it accepts; the index values are not drawn yet
                arrays[n] = _filled(t.dtype, shapes[n], v)
                if not self._broken_by(types, shapes, arrays, n):
                    break
            else:
                state = _worst(state, "random")
        return state

    def _indices(self, types, shapes, arrays, intent: str) -> str:
        name = self._index_input()
        t = types[name]
        shape = shapes[name]
        extent = self._extent(types, arrays, shapes)
        if extent is None:
            arrays[name] = _as(self.rng.integers(0, 3, size=shape), t.dtype)
            return "random"
        hi = np.maximum(extent, 1)
        idx = (self.rng.random(shape) * hi).astype(np.int64)
        if extent.size and extent.min() == 0:
            state = "bad"      # an axis of size 0 leaves no valid index value
        else:
            state = "in-range"
        arrays[name] = _as(idx, t.dtype)
        if intent == "bad-index" and idx.size:
            bad = idx.copy().reshape(-1)
            pos = int(self.rng.integers(bad.size))
            bad[pos] = extent.reshape(-1)[pos] if self.rng.random() < .6 or _unsigned(t.dtype) else -extent.reshape(-1)[pos] - 1
            arrays[name] = _as(bad.reshape(shape), t.dtype)
            return "bad"
        if state == "in-range" and idx.size and not _unsigned(t.dtype) and self.rng.random() < .5:
            # negative indices only where the solver accepts them on this very instance
            neg = np.where(self.rng.random(shape) < .5, idx - extent, idx)
            before = self._violations(types, shapes, arrays)
            arrays[name] = _as(neg, t.dtype)
            if self._violations(types, shapes, arrays) - before:
                arrays[name] = _as(idx, t.dtype)
        return state

    def _extent(self, types, arrays, shapes) -> np.ndarray | None:
        """Size of the data axis each index entry addresses, from the spec's semantics parameters."""
        kind = self.spec.semantics.get("kind")
        fn = EXTENTS.get(kind)
        if fn is None:
            return None
        tt = self._types(types, arrays, shapes)
        try:
            attr_values, _ = prepare_attrs(self.spec, self.attrs)
            env = spec_env(self.spec, tt, attr_values)
            args = {}
            for key, f in self.spec.semantics_fns.items():
                bound = self.spec.kernel_inputs.get(key)
                args[key] = shapes[bound] if bound else f(env)
            if any(isinstance(v, Unknown) for v in args.values()):
                return None
            return fn(**args)
        except (EvalError, NeedInt, IndexError, TypeError, KeyError, ValueError):
            return None   # a malformed instance (axis out of range, k > r): the solver will refute it

    def _index_input(self) -> str | None:
        """The input whose values are indices: the one the spec binds to its kernel's index argument."""
        arg = INDEX_ARG.get(self.spec.semantics.get("kind", ""))
        return self.spec.kernel_inputs.get(arg) if arg else None

    def _types(self, types, arrays, shapes) -> dict[str, TensorType]:
        return {n: TensorType(types[n].dtype, shapes[n], arrays.get(n)) for n in types}

    def _violations(self, types, shapes, arrays) -> set[str]:
        tt = self._types(types, arrays, shapes)
        try:
            return _ids(solve(self.spec, tt, self.attrs, hints=False).violations)
        except ShapeCheckError:
            return {"?"}

    def _broken_by(self, types, shapes, arrays, name: str) -> bool:
        reading = {r.id for r in self.spec.constraints if name in r.value_inputs}
        return bool(self._violations(types, shapes, arrays) & reading)

    # -- the verdicts
    def _judge(self, s: Sample, predicted_ids: set[str], unchecked: set[str], values_state: str,
               expected: TensorType | None) -> None:
        arrays = {n: a for n, a in s.arrays.items()}
        concrete = solve(self.spec, {n: _typed(a, s.dtypes[n]) for n, a in arrays.items()}, self.attrs, hints=False)
        ids = _ids(concrete.violations)
        s.solver = "valid" if concrete.ok else "invalid: " + ", ".join(sorted(ids))
        problems = []
        if s.predicted == "valid" and not concrete.ok:
            problems.append("the symbolic result predicts valid, the solver refutes the instance")
        elif s.predicted.startswith("invalid") and concrete.ok:
            # (the ids may differ: a condition such as k == 1 is filed under the rule that needed it, C7,
            # while breaking it first refutes another, C6 k <= r)
            problems.append(f"the symbolic result predicts {s.predicted}, the solver says {s.solver}")
        elif s.predicted == "values" and not concrete.ok and not ids <= unchecked | {DEPRECATED}:
            problems.append(f"only run-time value constraints ({', '.join(sorted(unchecked))}) may fail here, "
                            f"the solver says {s.solver}")
        if s.intent == "bad-index" and values_state == "bad" and concrete.ok:
            problems.append("an out-of-range index value was accepted")
        try:
            out, _ = run_spec(self.spec, arrays, self.attrs)   # this very spec, not one found again by name
            got = next(iter(out.values()))
            s.executor = f"ok {_type_text(got, self._out_dtype(concrete))}"
            if not concrete.ok:
                problems.append("the executor ran an instance the solver refutes")
            else:
                want = concrete.outputs[self.spec.outputs[0].name]
                if got.dtype != numpy_dtype(want.dtype) or tuple(got.shape) != tuple(want.shape):
                    problems.append(f"the executor produced {s.executor[3:]}, the solver inferred {want}")
                if expected is not None and expected.is_static and (
                        tuple(got.shape) != tuple(expected.shape) or expected.dtype != want.dtype):
                    problems.append(f"the output {s.executor[3:]} is not the inferred type under the substitution ({expected})")
        except ConstraintError as exc:
            s.executor = f"ConstraintError {exc.constraint}"
            if concrete.ok:
                problems.append(f"the executor raised {exc.constraint} on an instance the solver accepts")
            elif exc.constraint not in ids:
                problems.append(f"the executor names {exc.constraint}, the solver refutes {', '.join(sorted(ids))}")
        except Exception as exc:  # anything else is a bug in shapecheck: report it, do not crash
            s.executor = f"{type(exc).__name__}: {exc}"
            problems.append("the executor raised something other than ConstraintError")
        s.agree = not problems
        s.why = "; ".join(problems)

    def _out_dtype(self, concrete: Result) -> str:
        t = concrete.outputs.get(self.spec.outputs[0].name)
        return t.dtype if t is not None and t.dtype else "?"


# ---------------------------------------------------------------- helpers

def _refuse_huge(spec: Spec, types: dict[str, TensorType]) -> None:
    """A UsageError for an instance with more elements than verify can build in memory."""
    total = 0
    for n, t in types.items():
        if t.shape is None or t.value is not None:
            continue
        count = 1
        for d in t.shape:
            count *= d if type(d) is int else 1
        total += count
        if total > _MAX_ELEMENTS:
            raise UsageError(f"verify {spec.name}: input {n} of shape {t.shape_str()} makes an instance of "
                             f"{total} or more elements, above the {_MAX_ELEMENTS} verify builds; "
                             "use smaller concrete dims or symbols (verify draws small values for them)")


def _ids(findings) -> set[str]:
    return {i for f in findings for i in f.constraint.split("+")}


def _relations(res: Result, syms: set) -> tuple[list[tuple[Any, list[str]]], list[str]]:
    """The result's conditions as sympy relations over the query's symbols (+ the constraints they come from)."""
    rels, unparsed = [], []
    for text in res.conditions:
        rel = res.relations.get(text)
        rel = rel.sympy() if rel is not None else None
        if rel is None or isinstance(rel, sympy.logic.boolalg.BooleanAtom) or not rel.free_symbols <= syms:
            unparsed.append(text)
            continue
        rels.append((rel, res.condition_sources.get(text, [])))
    return rels, unparsed


def _nonnegative(types: dict[str, TensorType], sub: dict) -> bool:
    for t in types.values():
        for d in t.shape or ():
            if isinstance(d, sympy.Basic):
                v = _at(d, sub)
                if not v.is_Integer or v < 0:
                    return False
    return True


def _worst(a: str, b: str) -> str:
    order = ("in-range", "random", "bad")
    return max(a, b, key=order.index)


def _at(d, sub: dict) -> sympy.Expr:
    """A dim under the substitution, always as a sympy value."""
    return sympy.sympify(sympy.sympify(d).xreplace(sub))


def _holds(rel, sub: dict) -> bool:
    v = rel.subs(sub)
    return bool(v) if isinstance(v, sympy.logic.boolalg.BooleanAtom) else False


def _sym_name(s) -> str:
    return s.name


def _expected(res: Result, sub: dict) -> TensorType | None:
    """The symbolic result's output type under the substitution."""
    out = next(iter(res.outputs.values()), None)
    if out is None or out.shape is None:
        return out
    shape = tuple(int(v) if (v := _at(d, sub)).is_Integer else v for d in out.shape)
    return TensorType(out.dtype, shape)


def _unsigned(dtype: str | None) -> bool:
    return bool(dtype) and (dtype.startswith("uint") or dtype == "bool")


def _as(values: np.ndarray, dtype: str | None) -> np.ndarray:
    return np.asarray(np.asarray(values).astype(numpy_dtype(dtype) if dtype else np.int64))


def _filled(dtype: str | None, shape: tuple[int, ...], v: int) -> np.ndarray:
    return _as(np.full(shape, v), dtype)


def _typed(a: np.ndarray, dtype: str | None) -> TensorType:
    """A concrete array's type; strings stay strings even when the array is empty."""
    return TensorType(dtype, tuple(a.shape), a)


def _random_array(rng: np.random.Generator, dtype: str | None, shape: tuple[int, ...]) -> np.ndarray:
    return np.asarray(_random_values(rng, dtype, shape))  # 0-d results of astype are numpy scalars


def _random_values(rng: np.random.Generator, dtype: str | None, shape: tuple[int, ...]):
    if dtype == "string":
        letters = np.array(list(string.ascii_lowercase), dtype=object)
        return np.asarray(rng.choice(letters, size=shape) + rng.choice(letters, size=shape), dtype=object).reshape(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    np_dt = numpy_dtype(dtype or "float")
    if np_dt.kind in "fV" or dtype == "bfloat16":
        return np.round(rng.standard_normal(shape) * 4, 2).astype(np_dt)
    if np_dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np_dt)
    if np_dt.kind == "u":
        return rng.integers(0, 10, size=shape).astype(np_dt)
    return rng.integers(-9, 10, size=shape).astype(np_dt)


def _type_text(a: np.ndarray, dtype: str) -> str:
    return f"{dtype}[{','.join(str(d) for d in a.shape)}]"


__all__ = ["verify", "VerifyReport", "Sample"]
