"""Functions of the activation family's specs (the activations, Softmax and the losses):
``class_indices``, whether a loss's target holds class indices.

>>> import numpy as np
>>> from shapecheck.notation import TensorVal
>>> from shapecheck.types import tensor_type_of
>>> t = TensorVal("target", tensor_type_of(np.array([0, 2, -100])))
>>> class_indices(t, 3, -100), class_indices(t, 2, -100), class_indices(t, 3, None)
(True, False, False)
"""
from __future__ import annotations

from typing import Any

from ..notation import NO_VALUE, TensorVal
from ..notation.operators import int_like


def class_indices(target: Any, classes: Any, ignore_index: Any = None) -> Any:
    """Whether every value of a loss's ``target`` is a class index in ``[0, classes)`` or ``ignore_index``;
    unknown where the values (or the class count) are known only at run time."""
    value = target.value if isinstance(target, TensorVal) else None
    if value is None or not int_like(classes):
        return NO_VALUE
    v = value.reshape(-1).astype("int64")
    ok = (v >= 0) & (v < int(classes))
    if ignore_index is not None and int_like(ignore_index):
        ok |= v == int(ignore_index)
    return bool(ok.all())


NOTATION = (class_indices,)
