"""Optional functions: ``is_optional``, ``optional_of`` and ``empty_optional`` (the Optional op's
output), ``opt_elem`` (OptionalGetElement's), ``has_element`` (OptionalHasElement's value: known where
the optional is known to hold a value or to be empty, as an Optional op's output is).

>>> from shapecheck.containers import parse_value_type
>>> from shapecheck.notation import as_val
>>> o = optional_of(as_val("x", parse_value_type("float[N]")))
>>> str(o), has_element(as_val("o", o)), str(opt_elem(as_val("o", o)).shape)
('optional(float[N]) = some', True, '(N,)')
>>> has_element(None), has_element(as_val("o", parse_value_type("optional(int64[3])")))
(False, Unknown(value))
"""
from __future__ import annotations

from typing import Any

from ..containers import OptionalType, TensorType, is_container
from ..notation import NO_VALUE, UNKNOWN, ContainerVal, TensorVal, Unknown, as_val
from .sequence import _plain, _type, kind_is


def is_optional(x: Any) -> Any:
    """``kind_is(x, "optional")``."""
    return kind_is(x, "optional")


def optional_of(x: Any) -> OptionalType:
    """An optional that holds ``x`` (the Optional op given its input)."""
    return OptionalType(_plain(_type(x)), True)


def empty_optional(t: Any) -> OptionalType:
    """An empty optional of element type ``t`` (the Optional op's ``type`` attribute, no input)."""
    if isinstance(t, Unknown) or t is None:
        return OptionalType(None, False)
    return OptionalType(t if isinstance(t, TensorType) or is_container(t) else None, False)


def opt_elem(x: Any) -> Any:
    """What OptionalGetElement outputs: an optional's element; a tensor or sequence as it is."""
    if isinstance(x, ContainerVal) and x.kind == "optional":
        return as_val(f"{x.name}.elem", x.type.elem)
    if isinstance(x, (TensorVal, ContainerVal)):
        return as_val(x.name, _plain(_type(x)))
    return as_val("?", TensorType(None, None))


def same_type_as(x: Any) -> Any:
    """An output that is its input (Identity): a sequence's, optional's or map's whole type; a tensor's
    element type (its shape and value come from the output's other rules)."""
    if isinstance(x, ContainerVal):
        return x
    return x.dtype if isinstance(x, TensorVal) and x.dtype is not None else UNKNOWN


def has_element(x: Any) -> Any:
    """OptionalHasElement's value: False for an absent input, True for a tensor or a sequence, an
    optional's ``present`` where known; known only at run time otherwise."""
    if x is None:
        return False
    if isinstance(x, ContainerVal):
        if x.kind != "optional":
            return True
        return NO_VALUE if x.type.present is None else bool(x.type.present)
    if isinstance(x, TensorVal) and (x.dtype is not None or x.shape is not None):
        return True
    return NO_VALUE


NOTATION = (is_optional, optional_of, empty_optional, opt_elem, same_type_as, has_element)

for _f in (is_optional, optional_of, empty_optional, opt_elem, same_type_as, has_element):
    _f.type_only = True   # type: ignore[attr-defined]  # reads an optional's type, never a tensor's contents
