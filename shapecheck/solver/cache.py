"""Solve each query shape once: results cached up to a renaming of the dim symbols.

A large model asks the same question many times with different dim names
(``[m0,1]``, ``[m1,1]``, ...).  The query is renamed to canonical symbols in order of
first appearance, solved (or found in the cache), and the result renamed back, so
the answer is the one ``solve`` would give for the original names.

>>> from shapecheck.registry import default_registry
>>> from shapecheck.types import parse_type
>>> cache = SolveCache()
>>> spec = default_registry().resolve("ScatterND", 18)
>>> q = lambda m: {"data": parse_type("float[N,4]"), "indices": parse_type(f"int64[{m},1]"),
...                "updates": parse_type("float[K,4]")}
>>> cache.solve(spec, q("M1"), {}).conditions, cache.solve(spec, q("M2"), {}).conditions, cache.misses
(['K == M1'], ['K == M2'], 1)
"""
from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..result import Result
from .rename import renamed, renamed_result
from .solve import solve
from ..registry import Spec
from ..dims import Name, is_runtime, is_symbolic, runtime_dim, is_unknown, normalize_dim
from ..containers import dims_in, is_container, rebuilt
from ..tensor_data import holds_integers
from ..types import TensorType

if TYPE_CHECKING:
    import sympy
else:
    from ..deferred import sympy

_TOKEN = re.compile(r"_[cu]\d+_")


class SolveCache:
    """``solve`` with a cache keyed by the spec, the canonical input types and the attributes.

    What the keys cover, and why that is enough (a result must never depend on what the process
    checked before):

    * the spec by its name, which names its version: a registry owns its cache (``of``), and a
      registry maps a name to one spec, so the name stands for the whole spec;
    * each input's element type and shape, and its value (with the value's own dtype and shape:
      ``TensorType.signature``) wherever some rule reads or passes on the value; values no rule
      reads are left out of both the key and the query that is solved (``_canonicalize``), so the
      result cannot depend on them;
    * every attribute with its Python type (``attrs_key``; a tensor attribute by its bytes);
    * every other keyword of ``solve`` (output count, the registry hints name versions in, how
      unknown attributes are reported).  The model's opset is not in the canonical key: the spec
      it resolved to is, and the opset only labels the result (``Result.opset``).

    The options of a check never reach a cached result: ``strict``, ``runtime`` and ``select``/
    ``ignore`` apply to the model's report after the pass; the empty-dims assumption and the
    exporter's recorded ranges are the pass's facts (``model.facts``), which settle the types
    before a query is made, so the query itself differs; ``--dims`` binds the input dims before
    the pass, so every query holds its numbers.  ``folds`` keys the kernel's
    outputs by the spec, the output count, every input's signature and the attributes
    (``model.node.fold``).
    """

    def __init__(self, limit: int = 200_000):
        self._results: dict[tuple, Result] = {}     # canonical query -> canonical result
        self._renamed: dict[tuple, Result] = {}     # exact query -> its result, when it repeats verbatim
        self.limit = limit                          # entries kept; past it the cache starts over
        self.misses = 0
        self.hits = 0
        # constant folding (``model.node.fold``) by spec, input values and attributes: pure too
        self.folds: dict[tuple, Any] = {}

    @classmethod
    def of(cls, registry: Any) -> "SolveCache":
        """The cache a registry owns: results are pure functions of (spec, query), so every model
        checked against the same registry in this process shares them."""
        if registry.solve_cache is None:
            registry.solve_cache = cls()   # the field Registry declares for it
        return registry.solve_cache

    def solve(self, spec: Spec, types: dict[str, TensorType], attrs: dict[str, Any], *, items: Any = False,
              **kw) -> Result:
        """``solve(spec, types, attrs, **kw)``, cached; ``items`` is ``attrs_key(attrs)`` when the caller has it."""
        if items is False:
            items = attrs_key(attrs)
        if items is None:
            return solve(spec, types, attrs, **kw)
        opset = kw.get("opset")
        # in call order (a caller passes them in one order); the model's opset only labels the result,
        # so the ts14 and ts17 exports of one model share their solves
        extra = tuple((k, v) for k, v in kw.items() if k != "opset")
        reads = spec.value_reads
        passes = spec.value_passes
        floats = sizes_in_float(types)
        exact = (spec.name, tuple((n, signature_of(t) if kept(n, t, reads, passes, floats) else shape_signature_of(t))
                                  for n, t in types.items()), items, extra, opset)
        done = self._renamed.get(exact)
        if done is not None:
            self.hits += 1
            return done
        canon, back = _canonicalize(types, reads, passes)
        key = (spec.name, tuple((n, signature_of(t)) for n, t in canon.items()), items, extra)
        result = self._results.get(key)
        if result is None:
            self.misses += 1
            if len(self._results) >= self.limit or len(self._renamed) >= 4 * self.limit:
                self._results.clear()
                self._renamed.clear()
                self.folds.clear()
            result = solve(spec, canon, attrs, **kw)
            self._results[key] = result
        else:
            self.hits += 1
        result = _rename(result, back) if back else result
        if result.opset != opset:
            result = replace(result, opset=opset)
        self._renamed[exact] = result
        return result


_PLAIN = (int, float, str, bool, type(None))


def attrs_key(attrs: dict[str, Any]) -> tuple | None:
    """Attributes as a hashable key: lists as tuples, a tensor attribute (a protobuf message or a
    numpy array, which do not hash) as its bytes; None when some value still does not hash.

    Every value carries its Python type, because ``1 == 1.0 == True`` in Python: an INT attribute
    and a FLOAT one of the same number are different queries (a type finding on one of them).

    >>> attrs_key({"axis": 1}) == attrs_key({"axis": 1.0}), attrs_key({"axes": [1, 2]}) == attrs_key({"axes": (1, 2)})
    (False, True)
    """
    items = []
    for k in sorted(attrs):
        v = attrs[k]
        if isinstance(v, (list, tuple)):
            v = tuple((type(x).__name__, x) for x in v)
        elif type(v) not in _PLAIN and hasattr(v, "SerializeToString"):
            v = (type(v).__name__, v.SerializeToString(deterministic=True))
        elif type(v).__name__ == "ndarray":   # a tensor attribute as an onnx_ir model gives it
            v = ("ndarray", v.dtype.str, v.shape, v.tobytes())
        else:
            v = (type(v).__name__, v)
        items.append((k, v))
    key = tuple(items)
    try:
        hash(key)
    except TypeError:
        return None
    return key


@lru_cache(maxsize=None)   # keyed by all three arguments, which make the placeholder
def _canonical(i: int, unknown: bool, light: bool = False) -> sympy.Symbol:
    # canonical placeholders are shared by all queries: a result only ever holds them between solve and rename
    if light:
        return Name(f"_c{i}_")      # a light check's (dims/light.py)
    if unknown:
        return sympy.Dummy(f"_u{i}_", integer=True, nonnegative=True)
    return sympy.Symbol(f"_c{i}_", integer=True, nonnegative=True)


def passed_on(t) -> bool:
    """Whether a value an output's value rule reads is kept: shape-like contents (integers, few
    of them, or symbolic), which later nodes compute shapes from.  Other values (weights) pass
    on only by constant folding (``model.node.fold``)."""
    items = t if isinstance(t, tuple) else (t,)
    if any(is_container(x) for x in items):
        return True   # a sequence's elements' values (shape tensors) are kept like a tensor's
    return any(x.sym is not None or x.bounds is not None
               or (x.value is not None and x.value.dtype.kind in "iub" and x.value.size <= MAX_PASSED)
               or _one_integral_float(x) for x in items)


def _one_integral_float(x: Any) -> bool:
    """A float scalar holding an integer (a 1.0 expanded to a mask of ones): its value is an element
    bound of what passes it on (``functions.bounds``), as an integer's is."""
    v = x.value
    return v is not None and v.size == 1 and v.dtype.kind == "f" and holds_integers(v)


def sizes_in_float(types: dict) -> bool:
    """Whether a query holds a size in float: a float scalar beside it is then an operand of its
    arithmetic (``functions/float_sizes.py``), or moves the bounds of sizes counted in float (OPT's
    running count of a mask of ones, less 1); elsewhere float values are weights no rule reads."""
    return any((x.sym is not None or x.bounds is not None) and x.dtype in ("float", "double")
               for t in types.values() for x in (t if isinstance(t, tuple) else (t,)) if not is_container(x))


def kept(name: str, t: Any, reads: frozenset, passes: frozenset, floats: bool) -> bool:
    """Whether an input's value is part of a query's key: a value a rule reads, or one an output's
    value rule passes on (``passed_on``; a float scalar too where the query holds sizes in float)."""
    if name in reads:
        return True
    if name not in passes:
        return False
    return passed_on(t) or (floats and not isinstance(t, tuple) and not is_container(t) and t.value is not None
                            and t.value.size == 1 and t.value.dtype.kind == "f")


MAX_PASSED = 4096   # elements of an integer value passed on through an output's value rule


def _canonicalize(types: dict[str, TensorType], reads: frozenset, passes: frozenset
                  ) -> tuple[dict[str, TensorType], dict]:
    """``types`` over canonical symbols, without the values no rule depends on (so weights of
    the same shape share a result); and the map back to the original symbols."""
    fwd: dict = {}
    back: dict = {}
    out = {}

    def canon(s):
        c = fwd.get(s)
        if c is None:
            c = fwd[s] = _canonical(len(back), is_unknown(s), type(s) is Name)
            back[c] = s
        return c

    def dims(ds):
        out = []
        for d in ds:
            if type(d) is int or isinstance(d, bool):
                out.append(d)
            elif d.is_Symbol:
                out.append(canon(d))
            else:
                syms = sorted(d.free_symbols, key=_name)
                for s in syms:
                    canon(s)
                out.append(renamed(d, tuple((s, fwd[s]) for s in syms)))
        return tuple(out)

    def one(t: TensorType, read: bool) -> TensorType:
        if is_container(t):
            return rebuilt(t, lambda x: one(x, read), lambda d: dims((d,))[0])
        if not read and (t.value is not None or t.sym is not None or t.bounds is not None):
            t = TensorType(t.dtype, t.shape)
        if (t.shape is None or all(type(d) is int for d in t.shape)) and t.sym is None and \
                (t.bounds is None or all(type(d) is int for d in t.bounds)):
            return t
        return TensorType(t.dtype, None if t.shape is None else dims(t.shape), t.value,
                          None if t.sym is None else dims(t.sym), None if t.bounds is None else dims(t.bounds))

    floats = sizes_in_float(types)
    for name, t in types.items():
        read = kept(name, t, reads, passes, floats)
        out[name] = tuple(one(x, read) for x in t) if isinstance(t, tuple) else one(t, read)
    return out, back


def _name(s: sympy.Symbol) -> str:
    return s.name


def signature_of(t) -> tuple:
    return tuple(x.signature() for x in t) if isinstance(t, tuple) else t.signature()


def shape_signature_of(t) -> tuple:
    """``signature_of`` without the value: for an input no rule reads the contents of."""
    if isinstance(t, tuple):
        return tuple(shape_signature_of(x) for x in t)
    return t.signature() if is_container(t) else (t.dtype, t.shape)


def _with_runtime_dims(outputs, back: dict) -> dict:
    """``back`` plus a renamed copy of each run-time size whose upper bound names canonical symbols."""
    extra = {}
    for t in outputs:
        for d in dims_in(t):
            if is_symbolic(d):
                for s in d.free_symbols:
                    upper = getattr(s, "upper", None)
                    if is_runtime(s) and is_symbolic(upper) and s not in extra:
                        extra[s] = runtime_dim(s.name, normalize_dim(upper.xreplace(back)))
    return {**back, **extra} if extra else back


def _rename(r: Result, back: dict) -> Result:
    names = {c.name: (s.name if not is_unknown(s) else s.name) for c, s in back.items()}

    def text(s: str) -> str:
        return _TOKEN.sub(lambda m: names.get(m.group(), m.group()), s) if ("_c" in s or "_u" in s) else s

    return renamed_result(r, _with_runtime_dims(r.outputs.values(), back), text)
