"""Concrete arrays + a spec -> output arrays, or the error naming the broken constraint.

The executor checks the inputs with the solver on their concrete values (so the same
constraint ids, index rules and type sets apply), then runs the kernel for the spec's
semantics kind with the parameters the spec computes.

>>> import numpy as np
>>> out = execute("ScatterND", opset=18, inputs={"data": np.zeros(4, np.float32),
...               "indices": np.array([[1], [3]]), "updates": np.ones(2, np.float32)})
>>> out["output"].tolist()
[0.0, 1.0, 0.0, 1.0]
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .errors import ConstraintError, ShapeCheckWarning, UsageError
from .kernels import KERNELS
from .result import Result
from .solver import output_slots, prepare_attrs, solve, spec_env
from .notation import EvalError, TensorVal, Unknown
from .registry import Registry, Spec, default_registry
from .containers import MapType, OptionalType, OptionalValue, SequenceType, type_of_value
from .types import numpy_dtype


def execute(op: str, opset: int = 18, inputs: dict[str, Any] | None = None, attrs: dict[str, Any] | None = None,
            *, domain: str | None = None, registry: Registry | None = None,
            output_count: int | None = None) -> dict[str, np.ndarray]:
    """Run ``op`` at ``opset`` on concrete numpy arrays; raises ``ConstraintError`` naming the constraint.

    ``output_count`` is the node's number of outputs, for a spec with a variadic output (Split);
    its tensors are returned as ``outputs[0]``, ``outputs[1]``...

    A spec's warnings (duplicate targets under reduction none) are issued as ``ShapeCheckWarning``.
    """
    spec = (registry or default_registry()).resolve(op, opset, domain)
    outputs, result = run_spec(spec, inputs or {}, attrs, output_count)
    for w in result.warnings:
        warnings.warn(f"{spec.name} {w.constraint} `{w.rule}`: {w.message}", ShapeCheckWarning, stacklevel=2)
    return outputs


def _inputs(spec: Spec, inputs: dict[str, Any]) -> dict[str, Any]:
    """The caller's inputs as the kernel's values (a variadic input's as a tuple); a None input is a missing
    input, as in solve(), not a 0-d object array."""
    arrays: dict[str, Any] = {}
    variadic = {i.name for i in spec.inputs if i.variadic}
    declared = {i.name for i in spec.inputs}
    for name, value in inputs.items():
        if name not in declared:
            raise UsageError(f"{spec.name} has no input {name!r}; its inputs are {', '.join(sorted(declared))}")
        if value is None:
            continue
        if name in variadic:
            items = value if isinstance(value, (list, tuple)) else [value]
            arrays[name] = tuple(_as_value(spec, f"{name}[{i}]", v) for i, v in enumerate(items))
        else:
            arrays[name] = _as_value(spec, name, value)
    return arrays


def run_spec(spec: Spec, inputs: dict[str, Any], attrs: dict[str, Any] | None = None,
             output_count: int | None = None, checked: Result | None = None) -> tuple[dict[str, np.ndarray], Result]:
    """Check then run one spec; returns the outputs and the solver's result (its warnings).

    ``checked`` is the solver's result for these very inputs when the caller has it (the
    forward pass folding constants): the check is then not repeated.
    """
    arrays = _inputs(spec, inputs)
    types = {n: tuple(type_of_value(x) for x in a) if isinstance(a, tuple) else type_of_value(a)
             for n, a in arrays.items()}
    result = checked if checked is not None else solve(spec, types, attrs, hints=False, output_count=output_count)
    if result.violations:
        f = result.violations[0]
        raise ConstraintError(spec.name, f.constraint, f.rule, f.message + (f" ({f.detail})" if f.detail else ""), f.values)
    if not spec.semantics:
        raise UsageError(f"{spec.name} has no [semantics]: shapecheck can check it but not run it")
    attr_values, _ = prepare_attrs(spec, attrs)
    env = spec_env(spec, types, attr_values, output_count)
    args = {}
    for key, fn in spec.semantics_fns.items():
        if key in spec.kernel_inputs:
            args[key] = arrays.get(spec.kernel_inputs[key])
            continue
        try:
            v = fn(env)
        except EvalError as exc:
            raise UsageError(f"{spec.name}: cannot compute kernel argument {key}: {exc}") from None
        if isinstance(v, Unknown):
            raise UsageError(f"{spec.name}: kernel argument {key} is not known for these inputs")
        args[key] = _array_of(v)
    out = KERNELS[spec.semantics["kind"]](**args)
    outs = out if isinstance(out, tuple) else (out,)
    slots = output_slots(spec, output_count)
    if output_count is None and spec.outputs and spec.outputs[-1].variadic and len(outs) != len(slots):
        # no node gave the count: a variadic output has as many tensors as the kernel made (Split by the
        # sizes an input holds), each checked against the solver's type for that count
        output_count = len(outs)   # the node's outputs: the fixed ones and the variadic one's tensors
        result = solve(spec, types, attrs, hints=False, output_count=output_count)
        slots = output_slots(spec, output_count)
    if len(outs) != len(slots):
        raise RuntimeError(f"{spec.name}: kernel returned {len(outs)} outputs, the spec declares {len(slots)}")
    produced = {}
    for (key, decl, _pos), arr in zip(slots, outs):
        want = result.outputs[key]
        if not _fits(arr, want):
            # the solver's type is the contract; breaking it is a bug in shapecheck, not in the input
            raise RuntimeError(f"{spec.name}: kernel produced {type_of_value(arr)} for {key}, solver inferred {want}")
        produced[key] = arr
    return produced, result


def _fits(value: Any, want: Any) -> bool:
    """A kernel's output has the inferred type: element type, and every dim the solver knows as an int."""
    if isinstance(want, SequenceType):
        items = want.items if want.items is not None else (want.elem,) * len(value) if isinstance(value, list) else ()
        return isinstance(value, list) and (type(want.length) is not int or want.length == len(value)) and \
            all(_fits(v, t) for v, t in zip(value, items))
    if isinstance(want, OptionalType):
        inner = value.value if isinstance(value, OptionalValue) else value
        return (want.present is None or want.present == (inner is not None)) and (inner is None or _fits(inner, want.elem))
    if isinstance(want, MapType):
        return isinstance(value, dict)
    if not isinstance(value, (np.ndarray, np.generic)):
        return False
    return (want.dtype is None or value.dtype == numpy_dtype(want.dtype)) and \
        (want.shape is None or _shape_matches(value.shape, want.shape))


def _as_value(spec: Spec, name: str, value: Any) -> Any:
    """An input value: a list of arrays (a sequence), a dict (a map), an ``OptionalValue``, or an array (also
    from nested lists of numbers, as numpy reads them)."""
    if isinstance(value, list) and value and all(isinstance(v, (np.ndarray, list)) and not _numbers(v) for v in value):
        return [_as_array(spec, f"{name}[{i}]", v) for i, v in enumerate(value)]
    if isinstance(value, (dict, OptionalValue)):
        return value
    return _as_array(spec, name, value)


def _numbers(v: Any) -> bool:
    """A list of numbers (or of such lists): an array's text, not a sequence's element."""
    return isinstance(v, list) and all(isinstance(x, (int, float, bool, str)) or _numbers(x) for x in v)


def _as_array(spec: Spec, name: str, value: Any) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        try:
            value = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{spec.name} input {name!r}: not an array ({exc})") from None
    if value.dtype.kind in "US":
        value = value.astype(object)
    return value


def _array_of(v: Any) -> Any:
    """A notation value as a kernel argument: tensors as their arrays, everything else as is."""
    return v.value if isinstance(v, TensorVal) else v


def _shape_matches(actual: tuple, inferred: tuple | None) -> bool:
    """Concrete inputs give concrete output shapes, except data-dependent dims (fresh symbols)."""
    if inferred is None or len(actual) != len(inferred):
        return False
    return all(type(d) is not int or d == a for a, d in zip(actual, inferred))
