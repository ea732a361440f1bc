"""The Python hook for compilers: ``infer``, ``check_model``, ``annotate`` and ``diff``.

Models are accepted in the forms export pipelines pass around, recognised by duck typing so
that onnx_ir and torch are imported only when such an object is passed: a path (``str`` or
``os.PathLike``), an ``onnx.ModelProto``, the model's serialized ``bytes``, an
``onnx_ir.Model`` and a ``torch.onnx.ONNXProgram``.

>>> r = infer("ScatterND", opset=18, inputs={"data": "float[N,C]", "indices": "int64[M,1]",
...           "updates": "float[M,C]"}, attrs={"reduction": "add"})
>>> r.status, r.spec, str(r.outputs["output"])
('valid', 'ScatterND-18', 'float[N,C]')
>>> r["status"]
'valid'
>>> infer(42)
Traceback (most recent call last):
...
TypeError: infer() takes an operator name such as 'ScatterND', or a model: a path (str or os.PathLike), onnx.ModelProto, bytes, onnx_ir.Model or torch.onnx.ONNXProgram; got int
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union, overload

from .errors import UsageError
from .result import Result
from .solver import solve
from .registry import Registry, default_registry
from .deferred import sympy, sympy_imported
from .dims import NeedsAlgebra
from .containers import parse_value_type
from .types import TensorType

if TYPE_CHECKING:
    import onnx

    from .model import ModelReport
    from .specdiff import SpecDiff

ModelLike = Union[str, "os.PathLike[str]", bytes, "onnx.ModelProto", Any]
ACCEPTED = ("a path (str or os.PathLike), onnx.ModelProto, bytes, onnx_ir.Model or torch.onnx.ONNXProgram")


def model_source(model: Any, caller: str = "check_model") -> str | Path | onnx.ModelProto:
    """A path or a ModelProto for the frontends, from any accepted form of a model.

    A wrong type raises a one-line ``TypeError`` naming the accepted forms; bytes that do not
    parse raise ``UsageError``.
    """
    if isinstance(model, (str, Path)):
        return model
    if isinstance(model, os.PathLike):
        return Path(os.fspath(model))
    import onnx
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray, memoryview)):
        return _from_bytes(bytes(model))
    proto = getattr(model, "model_proto", None)          # torch.onnx.ONNXProgram
    if isinstance(proto, onnx.ModelProto):
        return proto
    inner = getattr(model, "model", None)                # ONNXProgram.model is an onnx_ir.Model
    if inner is not None and _is_onnx_ir_model(inner):
        return _from_onnx_ir(inner)
    if _is_onnx_ir_model(model):
        return _from_onnx_ir(model)
    raise TypeError(f"{caller}() takes a model: {ACCEPTED}; got {type(model).__name__}")


def _is_onnx_ir_model(obj: Any) -> bool:
    cls = type(obj)
    if not cls.__module__.split(".")[0] == "onnx_ir" or "onnx_ir" not in sys.modules:
        return False
    import onnx_ir
    return isinstance(obj, onnx_ir.Model)


def _from_onnx_ir(model: Any) -> onnx.ModelProto:
    import onnx_ir
    proto: onnx.ModelProto = onnx_ir.serde.serialize_model(model)
    return proto


def _from_bytes(data: bytes) -> onnx.ModelProto:
    import onnx
    from google.protobuf.message import DecodeError
    m = onnx.ModelProto()
    try:
        m.ParseFromString(data)
    except DecodeError as exc:
        raise UsageError(f"<bytes>: not an ONNX model (the protobuf does not parse: {exc})") from None
    if not m.HasField("graph"):
        raise UsageError("<bytes>: not an ONNX model (no graph); pass the serialized ModelProto")
    return m


def is_model_path(x: str) -> bool:
    """An op name (``ScatterND``, ``openvino:ScatterElementsUpdate``) never looks like a file path."""
    return x.lower().endswith((".onnx", ".xml")) or os.sep in x or "/" in x


@overload
def infer(op: str, opset: int = 18, inputs: dict[str, Any] | None = None, attrs: dict[str, Any] | None = None,
          *, domain: str | None = None, registry: Registry | None = None, light: bool = False) -> Result: ...


@overload
def infer(op: Any, opset: int = 18, inputs: None = None, attrs: None = None,
          *, domain: str | None = None, registry: Registry | None = None) -> Any: ...


def infer(op: Any, opset: int = 18, inputs: dict[str, Any] | None = None, attrs: dict[str, Any] | None = None,
          *, domain: str | None = None, registry: Registry | None = None, light: bool = False) -> Any:
    """Check one operator query and infer its output types; or, given a model, infer its tensors' types.

    ``op`` is an ONNX op type (``"ScatterND"``) or ``"openvino:ScatterElementsUpdate"``;
    ``inputs`` maps input names to ONNX text types (``"float[N,4]"``, ``"int64[2,1] = [[0],[3]]"``)
    or numpy arrays.  The result resolves to the newest spec version at or below ``opset``.
    ``light``: first a solve without sympy, as ``check_model`` does it (for the CLI, which only
    prints the result: its dims may be ``names.Name``s).

    Given a model instead (any form ``check_model`` accepts), returns ``{tensor name: TensorType}``
    for every tensor of the model, as inferred by the forward pass.
    """
    if not isinstance(op, str) or is_model_path(op):
        try:
            source = model_source(op, "infer")
        except TypeError:
            raise TypeError(f"infer() takes an operator name such as 'ScatterND', or a model: {ACCEPTED}; "
                            f"got {type(op).__name__}") from None
        return model_types(source, registry=registry)
    reg = registry or default_registry()
    spec = reg.resolve(op, opset, domain)
    if light and not sympy_imported():
        try:
            return light_solve(spec, inputs or {}, attrs, opset, reg)
        except (NeedsAlgebra, Exception):   # the full solve decides, in its own words
            pass
    return solve(spec, inputs or {}, attrs, opset=opset, registry=reg)


def light_solve(spec, inputs: dict[str, Any], attrs: dict[str, Any] | None, opset: int, reg: Registry) -> Result:
    """``solve`` with sympy barred, the text types read with ``names.Name`` dims (``check.light_check``
    for one query); raises ``NeedsAlgebra`` where a dim needs more than comparing names."""
    with sympy.barred(NeedsAlgebra):
        typed = {k: parse_value_type(v, k, light=True) if isinstance(v, str) else v for k, v in inputs.items()}
        return solve(spec, typed, attrs, opset=opset, registry=reg)


def model_types(model: Any, *, registry: Registry | None = None, assume_nonempty: bool = True,
                dims: dict[str, int] | str | None = None) -> dict[str, TensorType]:
    """Every tensor of a model with its inferred type (graph inputs, initializers, node outputs)."""
    from .model.check import load_graph, no_gc_pauses, run_checks
    from .model.sizes import parse_sizes
    reg = registry or default_registry()
    with no_gc_pauses():
        graph = load_graph(model_source(model, "infer"), reg)
        return dict(run_checks(graph, reg, False, None, assume_nonempty, parse_sizes(dims) if dims else None).types)


def check_model(model: Any, *, strict: bool = False, registry: Registry | None = None,
                load_external_data: bool = False, output: str | None = None,
                specs: list[str] | str | None = None, pause_gc: bool = True,
                runtime: str | None = None, assume_nonempty: bool = True,
                dims: dict[str, int] | str | None = None) -> ModelReport:
    """Check every node of a model that has a spec; see ``shapecheck.model.ModelReport``.

    ``model`` is a path, ``onnx.ModelProto``, bytes, ``onnx_ir.Model`` or ``torch.onnx.ONNXProgram``.
    ``output`` writes an annotated copy (ONNX only); ``specs`` adds spec directories;
    ``pause_gc`` (default) pauses the cyclic garbage collector during the check and restores it
    after (False leaves it alone); ``runtime`` (``onnxruntime``, ``openvino``) warns
    about nodes valid by the spec that the runtime cannot run; ``assume_nonempty`` (default) takes
    every symbolic input dim to be at least 1 (``False``: at least 0); ``dims`` (``{"batch": 8}`` or
    ``"batch=8,seq=4096"``) checks the model at those input sizes.  The report's ``domain`` says
    for which input sizes the model is valid.
    """
    from .model.check import check_model as _check
    return _check(model_source(model), strict=strict, registry=registry, load_external_data=load_external_data,
                  output=output, specs=specs, pause_gc=pause_gc, runtime=runtime, assume_nonempty=assume_nonempty,
                  dims=dims)


def annotate(model: Any, *, registry: Registry | None = None, assume_nonempty: bool = True,
             dims: dict[str, int] | str | None = None) -> onnx.ModelProto:
    """A copy of an ONNX model whose value_info and outputs carry shapecheck's inferred types."""
    from .model.check import annotate as _annotate
    return _annotate(model_source(model, "annotate"), registry=registry, assume_nonempty=assume_nonempty, dims=dims)


def diff(a: str, b: str, registry: Registry | None = None) -> SpecDiff:
    """What changed from spec ``a`` to spec ``b`` (``"ScatterND-16"``), each difference with a witness."""
    from .specdiff import diff as _diff
    return _diff(a, b, registry=registry)
