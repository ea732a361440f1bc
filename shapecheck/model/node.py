"""One node of the forward pass: its spec, its inputs bound by name, its outputs made its own.

* ``resolve``: the spec a node's op and opset resolve to, or why none does;
* ``bind_inputs``: the node's input tensors as the spec's named inputs;
* ``own_unknowns``: unknown dims a spec created, made the node's own (solve results are shared
  by every node with the same signature), with run-time sizes named and listed;
* ``fold``: outputs computed by the spec's own kernel when every input is a small constant;
* ``int64_overflow``: concrete output dims past int64, a finding, and the outputs without them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..findings import OVERFLOW
from ..result import Finding
from ..frontends.graph import ModelGraph, ModelNode
from ..solver.cache import attrs_key, signature_of
from ..registry import Registry
from ..dims import rebuild
from ..functions.constant import FLOAT_EXACT
from ..dims import has_unknown, is_runtime, runtime_dim, expr_str, is_unknown, is_symbolic, unknown_dim
from ..containers import dims_in, is_container, rebuilt, tensors_in
from ..types import TensorType, normalize_dim, tensor_type_of

if TYPE_CHECKING:
    import numpy as np
    import sympy

    from ..dims.runtime import RuntimeDim
else:
    from ..deferred import numpy as np, sympy


UNCHECKED = "unchecked: "
INT64_MAX = (1 << 63) - 1


def int64_overflow(outputs: dict[str, TensorType]) -> tuple[dict[str, TensorType], Finding | None]:
    """(the outputs with every concrete dim past int64 made unknown, a finding naming them or None).

    >>> out, f = int64_overflow({"z": TensorType("float", (1 << 63, 1))})
    >>> str(out["z"]), f.message
    ('float[?,1]', 'the output dim overflows int64: z.shape[0] = 9223372036854775808')
    """
    bad = [(k, i, d) for k, t in outputs.items() for i, d in enumerate(t.shape or ())
           if type(d) is int and not -INT64_MAX - 1 <= d <= INT64_MAX]
    if not bad:
        return outputs, None
    new = dict(outputs)
    for k, i, _d in bad:
        t = new[k]
        new[k] = TensorType(t.dtype, tuple(unknown_dim(f"{k}.shape[{i}]") if j == i else d for j, d in enumerate(t.shape)))
    where = ", ".join(f"{k}.shape[{i}] = {d}" for k, i, d in bad)
    return new, Finding(OVERFLOW, "every output dim fits in int64", f"the output dim overflows int64: {where}",
                        {k: str(outputs[k]) for k, _i, _d in bad}, "make the input dims or the attributes smaller")


def resolve(registry: Registry, node: ModelNode, memo: dict) -> tuple:
    """(spec or None, error or None) for a node, remembered per (op, domain, opset).

    An error starting with ``UNCHECKED`` means the node is left unchecked (with that reason):
    its version is unreadable, beyond the domain's highest known opset, or older than every
    spec where the domain says so (``specs/<domain>/_domain.toml``).
    """
    spec = error = None
    facts = getattr(registry, "domains", {}).get(node.domain, {})
    top = facts.get("highest_opset")
    if registry.has_op(node.op_type, node.domain):
        def known() -> str:   # every version, compiled only for a message
            return ", ".join(s.name for s in registry.versions(node.op_type, node.domain))
        if node.opset is None:
            error = (f"{UNCHECKED}version {node.version or '(none)'!r} is not opsetN, so shapecheck cannot tell which "
                     f"version of {node.op_type} this is (its specs: {known()})")
        elif top is not None and node.opset > top:
            error = (f"{UNCHECKED}version opset{node.opset} is beyond opset{top}, the newest {node.domain} opset "
                     f"shapecheck knows; no spec describes it (its specs: {known()})")
        else:
            try:
                spec = registry.resolve(node.op_type, node.opset, node.domain)
            except UsageError as exc:
                error = str(exc)
                if facts.get("before_first_version") == "unchecked":
                    error = (f"{UNCHECKED}no spec of {node.op_type} is at or below opset{node.opset} "
                             f"(its specs: {known()})")
    elif facts.get("closed") and node.op_type not in facts.get("regions", ()) and not _standard(node):
        error = (f"{node.domain} has no operator {node.op_type!r} at any opset (neither a spec nor the installed onnx "
                 "knows it; onnxruntime refuses the model: no op registered)")
    memo[(node.op_type, node.domain, node.opset, node.version)] = (spec, error)
    return spec, error


def _standard(node: ModelNode) -> bool:
    """Whether the installed onnx knows the operator (one newer than the specs): asked only of an
    operator no spec describes in a closed domain, so a model that has none imports no onnx for it."""
    import onnx
    return onnx.defs.has(node.op_type, "" if node.domain == "ai.onnx" else node.domain)


_LABELS = {"graph input": "declared", "subgraph input": "declared"}   # an origin as a report names it, if not itself


def source_label(origin: str) -> str:
    """Where an input's type came from, as a report says it: a graph's inputs are declared."""
    return _LABELS.get(origin, origin)


def input_slots(graph: ModelGraph, spec, node: ModelNode) -> tuple[tuple[str, str, int], ...]:
    """Where each of the spec's inputs comes from: (source key, spec input, position in ``node.inputs``),
    in order; a variadic input takes the rest (keys ``name[j]``), an omitted optional one is absent."""
    out: list[tuple[str, str, int]] = []
    for i, decl in enumerate(spec.inputs):
        if decl.variadic:
            found = [p for p in range(i, len(node.inputs)) if node.inputs[p]]
            if found:
                out.extend((f"{decl.name}[{j}]", decl.name, p) for j, p in enumerate(found))
                continue
        elif i < len(node.inputs) and node.inputs[i]:
            out.append((decl.name, decl.name, i))
            continue
        if not decl.optional:
            raise UsageError(f"{graph.path}: {node.location} ({node.op_type}): input {i} ({decl.name}) is missing; "
                             f"{spec.name} needs {', '.join(d.name for d in spec.inputs)}")
    return tuple(out)


def bind_inputs(graph: ModelGraph, spec, node: ModelNode, env: dict, origin: dict,
                slots: tuple | None = None) -> tuple[dict, dict]:
    """The node's input tensors as the spec's named inputs (``input_slots``: a variadic one takes the
    rest) and, by source key, (tensor, its type, where it came from)."""
    types: dict[str, Any] = {}
    sources: dict[str, tuple[str, TensorType | None, str]] = {}
    parts: dict[str, list] = {}
    for key, name, p in input_slots(graph, spec, node) if slots is None else slots:
        tname = node.inputs[p]
        t = env.get(tname)
        if t is None:
            origin.setdefault(tname, "unknown")
            t = TensorType(None, None)
        if key == name:
            types[name] = t
            sources[key] = (tname, t, source_label(origin.get(tname, "unknown")))
        else:   # a variadic input's part: its type as the pass has it, None where it has none
            types[name] = parts.setdefault(name, [])
            parts[name].append(t)
            sources[key] = (tname, env.get(tname), source_label(origin.get(tname, "unknown")))
    for name, ts in parts.items():
        types[name] = tuple(ts)
    return types, sources


class Unknowns:
    """Makes the unknown dims a spec created the node's own, and names the run-time sizes.

    Solve results are cached by signature, so two nodes would otherwise share the very same
    unknown and later look equal: each node gets its own copies.  A run-time size (``fresh``
    in a spec, a Loop's trip count) is named after its label and numbered (``nnz_1``), and
    listed in ``symbols`` with where it stands and its bounds.
    """

    def __init__(self, taken: set[str]):
        self.symbols: list[dict[str, Any]] = []
        self._taken = set(taken)
        self._count: dict[str, int] = {}

    def snapshot(self) -> tuple:
        return len(self.symbols), set(self._taken), dict(self._count)

    def restore(self, saved: tuple) -> None:
        n, self._taken, self._count = saved
        del self.symbols[n:]

    def own(self, outputs: dict[str, TensorType], inputs: dict[str, Any], node: ModelNode,
            tensors: dict[str, str], runtime_only: bool = False) -> dict[str, TensorType]:
        """``outputs`` with the unknowns no input has replaced by the node's own (only the
        run-time sizes with ``runtime_only``: outputs that pass on other tensors' unknowns)."""
        created = _created(outputs, inputs)
        if runtime_only:
            created = {s for s in created if is_runtime(s)}
        if not created:
            return outputs
        where: dict[Any, str] = {}   # a dim that is a bare unknown is named by where it stands
        for key, t in outputs.items():
            for i, d in enumerate(t.shape or ()):   # (a sequence's elements are named by their own labels)
                if d in created and d not in where and key in tensors:
                    where[d] = f"{tensors[key]}.shape[{i}]"
        fresh = {s: self._runtime(s, node, where.get(s)) if is_runtime(s) else
                 sympy.Dummy(where.get(s, f"{node.name}.{s.name}"), integer=True, nonnegative=True)
                 for s in sorted(created, key=lambda s: s.dummy_index)}

        def sub(dims):
            return None if dims is None else tuple(normalize_dim(rebuild(d, fresh)) if is_symbolic(d) else d
                                                   for d in dims)

        def one(t: TensorType) -> TensorType:
            return TensorType(t.dtype, sub(t.shape), t.value, sub(t.sym), sub(t.bounds))
        return {k: rebuilt(t, one, lambda d: normalize_dim(rebuild(d, fresh))) for k, t in outputs.items()}

    def _runtime(self, s: RuntimeDim, node: ModelNode, where: str | None) -> RuntimeDim:
        label = s.name
        k = self._count.get(label, 0)
        while True:
            k += 1
            name = f"{label}_{k}"
            if name not in self._taken:
                break
        self._count[label] = k
        self._taken.add(name)
        new = runtime_dim(name, s.upper)
        bounds = f"0 <= {name}" + (f" <= {expr_str(s.upper)}" if s.upper is not None else "")
        self.symbols.append({"name": name, "node": node.name, "op_type": node.op_type,
                             "where": where or node.location, "bounds": bounds})
        return new


def _created(outputs: dict[str, TensorType], inputs: dict[str, Any]) -> set:
    """The unknown dims in ``outputs`` that no input has."""
    created: set = set()
    for t in outputs.values():
        for d in dims_in(t):
            if is_symbolic(d):
                created |= {s for s in d.free_symbols if is_unknown(s)}
    if not created:
        return created
    for t in inputs.values():
        for x in (t if isinstance(t, tuple) else (t,)):
            for d in dims_in(x):
                if is_symbolic(d):
                    created -= d.free_symbols
    return created


_MAX_FOLD = 4096   # elements: larger results are left symbolic


def fold(spec, types: dict[str, Any], attrs: dict, n_out: int, memo: dict,
         checked=None, items: Any = False) -> dict[str, TensorType] | None:
    """Outputs computed by the spec's own kernel when every input is a small constant.

    A decoder folds the same constant subexpressions in every layer: results are kept by the
    spec, the input values and the attributes.  ``checked`` is the solver's result for
    ``types``, so the kernel runs without checking the inputs again; ``items`` is
    ``attrs_key(attrs)`` when the caller has it.
    """
    if not spec.semantics or not types:
        return None
    arrays: dict[str, Any] = {}
    for name, t in types.items():
        parts = t if isinstance(t, tuple) else (t,)
        if any(x.value is None or x.value.size > _MAX_FOLD for x in parts):
            return None
        arrays[name] = tuple(x.value for x in parts) if isinstance(t, tuple) else t.value
    if checked is not None and any(_larger_than_fold(t) for t in getattr(checked, "outputs", {}).values()):
        return None   # ConstantOfShape to [4096, 25088]: the solver has the type, the values would not fit
    if items is False:
        items = attrs_key(attrs)
    # the key covers all the kernel reads: the spec (its name names its version), the output count, every
    # input's element type, shape and value (``signature``: the value with its dtype) and every attribute
    # (``attrs_key``: a tensor attribute by its serialized bytes, so its element type too)
    key = None if items is None else (spec.name, n_out, tuple((n, signature_of(t)) for n, t in sorted(types.items())),
                                      items)
    if key is not None and key in memo:
        return memo[key]
    from ..executor import run_spec
    try:
        out, _ = run_spec(spec, arrays, attrs, output_count=n_out, checked=checked)
        folded = {k: tensor_type_of(v) for k, v in out.items() if isinstance(v, np.ndarray) and v.size <= _MAX_FOLD}
    except Exception:  # noqa: BLE001 - folding is an optimisation: the solver's result stands without it
        folded = None
    if key is not None:
        memo[key] = folded
    return folded


def _larger_than_fold(t: Any) -> bool:
    """Whether the solver's output type ``t`` has more than ``_MAX_FOLD`` elements whatever its unknown
    dims are (a data-dependent size is bounded by its inputs, which are small constants here)."""
    shape = getattr(t, "shape", None)
    if not shape:
        return False
    known = [d for d in shape if type(d) is int]
    return int(np.prod(known, dtype=np.float64)) > _MAX_FOLD if known else False


def holds_sizes_in_float(outputs: dict) -> bool:
    """Whether a node's outputs hold symbolic sizes in a float tensor (a size cast to float for a float
    Range): exact while every such size is below 2**24 (2**53 in double), which the check states as an
    assumption of the model's domain (``functions.constant.cast_value``)."""
    for t in outputs.values():
        if getattr(t, "dtype", None) in FLOAT_EXACT and (
                t.sym is not None and any(is_symbolic(e) for e in t.sym)
                or t.bounds is not None and any(is_symbolic(e) for e in t.bounds[:2])):   # running counts in float
            return True
    return False


def fill(t: TensorType, other: TensorType | None) -> TensorType:
    """``t`` with what it left unknown taken from ``other`` (whole-graph inference), when they agree on rank."""
    if other is None or is_container(t) or is_container(other):
        return t
    dtype = t.dtype or other.dtype
    if t.shape is None:
        return TensorType(dtype, other.shape, t.value)
    if other.shape is not None and len(other.shape) == len(t.shape):
        shape = tuple(o if is_unknown(d) and not is_unknown(o) else d for d, o in zip(t.shape, other.shape))
        return TensorType(dtype, shape, t.value, t.sym, t.bounds)
    return TensorType(dtype, t.shape, t.value, t.sym, t.bounds)


def has_empty(t: TensorType | None) -> bool:
    """Whether a tensor type has a dim that is 0."""
    if is_container(t):
        return any(has_empty(x) for x in tensors_in(t))
    return t is not None and t.shape is not None and any(type(d) is int and d == 0 for d in t.shape)


def defined(t: TensorType | None) -> bool:
    """A type with its element type, rank and every dim known (no unknown dim)."""
    if is_container(t):
        return all(defined(x) for x in tensors_in(t))
    return t is not None and t.dtype is not None and t.shape is not None and \
        not any(is_symbolic(d) and has_unknown(d) for d in t.shape)
