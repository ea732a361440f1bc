"""What a verify run found: its samples (``Sample``), the run (``VerifyReport``), a reproducer per disagreement.

Rendering is ``report/verify.py``'s job.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Sample", "VerifyReport"]


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
