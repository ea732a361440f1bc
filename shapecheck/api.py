"""The Python hook for compilers: ``infer`` one operator query; the rest re-exported in __init__.

>>> r = infer("ScatterND", opset=18, inputs={"data": "float[N,C]", "indices": "int64[M,1]",
...           "updates": "float[M,C]"}, attrs={"reduction": "add"})
>>> r.status, r.spec, str(r.outputs["output"])
('valid', 'ScatterND-18', 'float[N,C]')
"""
from __future__ import annotations

from typing import Any

from .result import Result
from .solver import solve
from .spec.load import Registry, default_registry


def infer(op: str, opset: int = 18, inputs: dict[str, Any] | None = None, attrs: dict[str, Any] | None = None,
          *, domain: str | None = None, registry: Registry | None = None) -> Result:
    """Check one operator query and infer its output types.

    ``op`` is an ONNX op type (``"ScatterND"``) or ``"openvino:ScatterElementsUpdate"``;
    ``inputs`` maps input names to ONNX text types (``"float[N,4]"``, ``"int64[2,1] = [[0],[3]]"``)
    or numpy arrays.  The result resolves to the newest spec version at or below ``opset``.
    """
    reg = registry or default_registry()
    spec = reg.resolve(op, opset, domain)
    return solve(spec, inputs or {}, attrs, opset=opset, registry=reg)
