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
from .solver import prepare_attrs, solve, spec_env
from .spec.compile import EvalError, Unknown
from .spec.load import Registry, Spec, default_registry
from .types import numpy_dtype, tensor_type_of


def execute(op: str, opset: int = 18, inputs: dict[str, Any] | None = None, attrs: dict[str, Any] | None = None,
            *, domain: str | None = None, registry: Registry | None = None) -> dict[str, np.ndarray]:
    """Run ``op`` at ``opset`` on concrete numpy arrays; raises ``ConstraintError`` naming the constraint.

    A spec's warnings (duplicate targets under reduction none) are issued as ``ShapeCheckWarning``.
    """
    spec = (registry or default_registry()).resolve(op, opset, domain)
    outputs, result = run_spec(spec, inputs or {}, attrs)
    for w in result.warnings:
        warnings.warn(f"{spec.name} {w.constraint} `{w.rule}`: {w.message}", ShapeCheckWarning, stacklevel=2)
    return outputs


def run_spec(spec: Spec, inputs: dict[str, Any], attrs: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], Result]:
    """Check then run one spec; returns the outputs and the solver's result (its warnings)."""
    arrays = {}
    declared = {i.name for i in spec.inputs}
    for name, value in inputs.items():
        if name not in declared:
            raise UsageError(f"{spec.name} has no input {name!r}; its inputs are {', '.join(sorted(declared))}")
        if value is None:  # as in solve(): a None input is a missing input, not a 0-d object array
            continue
        if not isinstance(value, np.ndarray):
            try:
                value = np.asarray(value)
            except (TypeError, ValueError) as exc:
                raise UsageError(f"{spec.name} input {name!r}: not an array ({exc})") from None
        if value.dtype.kind in "US":
            value = value.astype(object)
        arrays[name] = value
    types = {n: tensor_type_of(a) for n, a in arrays.items()}
    result = solve(spec, types, attrs, hints=False)
    if result.violations:
        f = result.violations[0]
        raise ConstraintError(spec.name, f.constraint, f.rule, f.message + (f" ({f.detail})" if f.detail else ""), f.values)
    attr_values, _ = prepare_attrs(spec, attrs)
    env = spec_env(spec, types, attr_values)
    params = {}
    for key, fn in spec.semantics_fns.items():
        try:
            v = fn(env)
        except EvalError as exc:
            raise UsageError(f"{spec.name}: cannot compute semantics parameter {key}: {exc}") from None
        if isinstance(v, Unknown):
            raise UsageError(f"{spec.name}: semantics parameter {key} is not known for these inputs")
        params[key] = v
    kernel = KERNELS.get(spec.semantics["kind"])
    if kernel is None:
        raise UsageError(f"{spec.name}: no kernel for semantics kind {spec.semantics['kind']!r} "
                         f"(known: {', '.join(KERNELS)})")
    out = kernel(**{n: arrays[n] for n in ("data", "indices", "updates")}, **params)
    name = spec.outputs[0].name
    want = result.outputs[name]
    if out.dtype != numpy_dtype(want.dtype) or out.shape != want.shape:
        # the solver's type is the contract; breaking it is a bug in shapecheck, not in the input
        raise RuntimeError(f"{spec.name}: kernel produced {out.dtype}{list(out.shape)}, solver inferred {want}")
    return {name: out}, result
