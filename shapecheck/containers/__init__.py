"""Sequence, optional and map types: ONNX's types that are not tensors, beside ``types.TensorType``.

Its rooms: ``kinds`` (``SequenceType``, ``OptionalType``, ``MapType``; ``kind_of``; ``join``, what two
types of any kind agree on), ``walk`` (the tensors and dims inside a type; a type rebuilt with them
replaced), ``text`` (``seq(float[N,4])``, ``optional(int64[N])``, ``map(string, float)``; the types of
values), ``proto`` (ONNX's TypeProto).

A sequence keeps each element's own type only where its length is a known int and the elements
are known (a SplitToSequence of a known split); otherwise what every element is, a dim the
elements do not share unknown, and its length where known.

>>> str(parse_value_type("seq(float[N,4])")), kind_of(parse_value_type("map(int64, float)"))
('seq(float[N,4])', 'map')
"""
from ..types import TensorType
from .kinds import (CONTAINERS, MapType, OptionalType, SequenceType, ValueType, is_container, join, kind_of, same_type,
                    type_text)
from .proto import from_proto, type_attr
from .text import OptionalValue, as_value_type, parse_value_type, type_of_value, value_of_type
from .walk import dims_in, rebuilt, tensors_in

__all__ = ["TensorType", "SequenceType", "OptionalType", "MapType", "ValueType", "CONTAINERS", "is_container",
           "kind_of", "join", "same_type", "type_text", "from_proto", "type_attr", "OptionalValue", "as_value_type",
           "parse_value_type", "type_of_value", "value_of_type", "dims_in", "rebuilt", "tensors_in"]
