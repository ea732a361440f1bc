"""Optional kernels: Optional, OptionalGetElement, OptionalHasElement.  An optional is an
``OptionalValue`` (its element, or None when empty); a tensor or a sequence given where an optional
may be is its own element (version 18).

>>> import numpy as np
>>> o = optional(np.ones(2), None)
>>> optional_has_element(o).item(), optional_get_element(o).tolist(), optional_has_element(None).item()
(True, [1.0, 1.0], False)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..containers import OptionalValue
from . import register

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


@register("optional")
def optional(input: Any, type: Any) -> OptionalValue:
    return OptionalValue(input, type)


@register("optional_get_element")
def optional_get_element(input: Any) -> Any:
    value = input.value if isinstance(input, OptionalValue) else input
    if value is None:
        raise ValueError("OptionalGetElement of an empty optional")
    return value


@register("optional_has_element")
def optional_has_element(input: Any) -> np.ndarray:
    value = input.value if isinstance(input, OptionalValue) else input
    return np.array(value is not None)
