"""A query made ready to solve: input types parsed, attributes checked and defaulted, the environment.

>>> from shapecheck.registry import default_registry
>>> spec = default_registry().resolve("Gather", 13)
>>> prepare_attrs(spec, {"axis": "1"})[0]
{'axis': 1}
"""
from __future__ import annotations

from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np

from ..errors import UsageError
from ..findings import ATTRIBUTE_TYPE, UNKNOWN_ATTRIBUTE
from ..result import Finding
from ..notation import as_val, lazy
from ..registry import Registry, Spec
from ..containers import as_value_type
from ..types import TensorType

__all__ = ["prepare_inputs", "prepare_attrs", "spec_env", "lacks_value", "versions"]


def prepare_inputs(spec: Spec, inputs: dict[str, Any]) -> dict[str, TensorType]:
    """Type strings / arrays -> TensorTypes; a missing or unknown input is a UsageError."""
    if not isinstance(inputs, dict):
        raise UsageError(f"{spec.name}: inputs must be a mapping of input name to type")
    declared = [i.name for i in spec.inputs]
    extra = [n for n in inputs if n not in declared]
    if extra:
        raise UsageError(f"{spec.name} has no input {extra[0]!r}; its inputs are {', '.join(declared)}")
    out = {}
    for decl in spec.inputs:
        if decl.name not in inputs or inputs[decl.name] is None:
            if decl.optional:
                continue
            raise UsageError(f"{spec.name} needs input {decl.name!r} ({decl.doc or decl.type}); "
                             f"give all of {', '.join(declared)}")
        given = inputs[decl.name]
        if decl.variadic:
            if not isinstance(given, (list, tuple)) or not given:
                given = [given] if not isinstance(given, (list, tuple)) else given
            if not given:
                raise UsageError(f"{spec.name} needs at least one {decl.name!r} input")
            out[decl.name] = tuple(as_value_type(g, f"{decl.name}[{i}]") for i, g in enumerate(given))
        else:
            out[decl.name] = as_value_type(given, decl.name)
    return out


def prepare_attrs(spec: Spec, attrs: dict[str, Any] | None, unknown: str = "error",
                  registry: Registry | None = None) -> tuple[dict, list[Finding]]:
    """Apply defaults and check types.  ``unknown="error"`` raises; ``"finding"`` returns violations."""
    attrs = dict(attrs or {})
    findings: list[Finding] = []
    out: dict[str, Any] = {}
    for name, value in attrs.items():
        decl = spec.attributes.get(name)
        if decl is None:
            have = ", ".join(spec.attributes) or "no attributes"
            later = _first_version_with_attr(spec, name, registry)
            fix = f"remove {name!r}" + (f", or use {later} (opset >= {later.rsplit('-', 1)[1]})" if later else "")
            msg = f"{spec.name} has no attribute {name!r} (it has {have})"
            if unknown == "error":
                raise UsageError(msg + f"; {fix}")
            findings.append(Finding(UNKNOWN_ATTRIBUTE, "attributes are declared by the spec", msg, {name: _repr(value)}, fix))
            continue
        conv = _convert_attr(decl.type, value)
        if conv is None:
            msg = f"{spec.name} attribute {name!r} must be {decl.type}, got {_repr(value)}"
            if decl.type in ("int", "ints") and not isinstance(value, bool) and _is_int_like(value):
                msg += f" (an {decl.type} attribute holds int64 values)"
            if unknown == "error":
                raise UsageError(msg)
            findings.append(Finding(ATTRIBUTE_TYPE, f"{name} is {decl.type}", msg, {name: _repr(value)}, f"give {name} a {decl.type} value"))
            continue
        out[name] = conv
    for name, decl in spec.attributes.items():
        if name not in out:
            out[name] = decl.default
    return out, findings


_INT64 = range(-(1 << 63), 1 << 63)


def _repr(value: Any) -> str:
    """A value as a message shows it: short, and never an error (ints past 4300 digits cannot print)."""
    try:
        text = repr(value)
    except ValueError:
        return f"<a {type(value).__name__} too long to print>"
    return text if len(text) <= 80 else text[:77] + "..."


def _is_int_like(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_is_int_like(v) for v in value)
    return isinstance(value, (int, np.integer)) or (isinstance(value, str) and value.strip().lstrip("-").isdigit())


def _convert_attr(atype: str, value: Any) -> Any:
    if atype == "int":
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, np.integer)):
            return int(value) if int(value) in _INT64 else None
        if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) <= 20:
            return _convert_attr(atype, int(value))
        return None
    if atype == "string":
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else None
    if atype == "float":
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    if atype == "ints":
        try:
            out = tuple(int(v) for v in value)
        except (TypeError, ValueError, OverflowError):
            return None
        return out if all(v in _INT64 for v in out) else None
    from ..registry.attributes import convert_attr  # tensor, sparse_tensor, floats, strings
    return convert_attr(atype, value)


def versions(spec: Spec, registry: Registry | None) -> list[Spec]:
    """Every version of ``spec``'s operator in the registry the query was given, for hints."""
    if registry is None:
        from ..registry import default_registry
        registry = default_registry()
    return registry.versions(spec.op, spec.domain)


def _first_version_with_attr(spec: Spec, name: str, registry: Registry | None) -> str | None:
    return next((s.name for s in versions(spec, registry) if s.version > spec.version and name in s.attributes), None)


def spec_env(spec: Spec, types: dict[str, TensorType], attrs: dict[str, Any], output_count: int | None = None) -> dict:
    """The evaluation environment of a spec for these (already prepared) types and attributes."""
    env: dict = {}
    env.update(spec.types)
    env.update(attrs)
    for name, t in types.items():
        env[name] = (tuple(as_val(f"{name}[{i}]", x) for i, x in enumerate(t)) if isinstance(t, tuple)
                     else as_val(name, t))
    for decl in spec.inputs:   # an absent optional input is None: rules test it with present(x) / absent(x)
        if decl.optional and decl.name not in env:
            env[decl.name] = None
    for name, (_text, fn) in spec.lets.items():
        env[name] = lazy(fn)
    env["output_count"] = len(spec.outputs) if output_count is None else output_count
    return env


def lacks_value(t: TensorType | tuple) -> bool:
    """True when nothing is known of a tensor's contents (or of any of a variadic input's): neither
    its value, its symbolic elements nor their bounds."""
    if isinstance(t, tuple):
        return any(lacks_value(x) for x in t)
    return t.value is None and t.sym is None and t.bounds is None
