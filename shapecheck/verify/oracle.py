"""The oracle of a verify sample: the solver on the concrete instance and the executor must agree
with each other and with what the symbolic result predicted."""
from __future__ import annotations

import numpy as np

from ..errors import ConstraintError
from ..executor import run_spec
from ..findings import DEPRECATED
from ..result import Result
from ..solver import solve
from ..registry import Spec
from ..types import TensorType, numpy_dtype
from .samples import Sample

__all__ = ["judge", "ids_of", "typed"]


def ids_of(findings) -> set[str]:
    """The constraint ids of findings (a contradiction's ``C1+C2`` counts as both)."""
    return {i for f in findings for i in f.constraint.split("+")}


def judge(spec: Spec, attrs: dict, s: Sample, predicted_ids: set[str], unchecked: set[str], values_state: str,
           expected: TensorType | None) -> None:
    arrays = {n: a for n, a in s.arrays.items()}
    concrete = solve(spec, {n: typed(a, s.dtypes[n]) for n, a in arrays.items()}, attrs, hints=False)
    ids = ids_of(concrete.violations)
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
        out, _ = run_spec(spec, arrays, attrs)   # this very spec, not one found again by name
        got = next(iter(out.values()))
        s.executor = f"ok {_type_text(got, _out_dtype(spec, concrete))}"
        if not concrete.ok:
            problems.append("the executor ran an instance the solver refutes")
        else:
            want = concrete.outputs[spec.outputs[0].name]
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


def _out_dtype(spec: Spec, concrete: Result) -> str:
    t = concrete.outputs.get(spec.outputs[0].name)
    return t.dtype if t is not None and t.dtype else "?"


def typed(a: np.ndarray, dtype: str | None) -> TensorType:
    """A concrete array's type; strings stay strings even when the array is empty."""
    return TensorType(dtype, tuple(a.shape), a)


def _type_text(a: np.ndarray, dtype: str) -> str:
    return f"{dtype}[{','.join(str(d) for d in a.shape)}]"
