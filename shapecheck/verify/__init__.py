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

One job per module: ``sampling`` draws instances (``symbols`` the symbols' values), ``oracle``
judges each, ``samples`` holds the results; ``report/verify.py`` renders them.

>>> rep = verify("ScatterND", 18, {"data": "float[N,C]", "indices": "int64[M,K]",
...              "updates": "float[M,C]"}, {}, samples=6, seed=1)
>>> rep.ok, len(rep.samples), rep.status
(True, 6, 'conditional')
"""
from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..result import Result
from ..solver import prepare_attrs, prepare_inputs, solve
from ..registry import Registry, default_registry
from .samples import Sample, VerifyReport
from .sampling import Drawer, refuse_huge

__all__ = ["verify", "VerifyReport", "Sample"]

_MAX_SAMPLES = 10_000


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
    refuse_huge(spec, base)
    rng = np.random.default_rng(seed)
    rep = VerifyReport(spec.qualified_op, opset, spec.name, {k: str(v) for k, v in inputs.items()}, attrs,
                       top.status, list(top.conditions), seed)
    drawer = Drawer(spec, base, attrs, rng, reg)
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
