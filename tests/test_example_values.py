"""Every spec example whose inputs and expected outputs are all constants is run by the
executor and must give exactly the expected values (errata examples included: their values
are what the runtime computes, not what the page printed)."""
from __future__ import annotations

import numpy as np
import pytest

from shapecheck.executor import run_spec
from shapecheck.registry import default_registry
from shapecheck.containers import OptionalValue, parse_value_type, value_of_type
from shapecheck.types import TensorType, numpy_dtype

def _known(text) -> bool:
    """A value text whose value is known: a constant tensor, a sequence of constants (a list of them)."""
    if isinstance(text, list):
        return all(_known(t) for t in text)
    return value_of_type(parse_value_type(text)) is not None


CASES = [pytest.param(spec, ex, id=f"{spec.name}:{ex.name}")
         for spec in default_registry() if spec.semantics and not spec.deprecated
         for ex in spec.examples
         if all(_known(t) for t in ex.inputs.values()) and all(_known(t) for t in ex.expect.values())]


def _value(text):
    if isinstance(text, list):
        return [_value(t) for t in text]
    t = parse_value_type(text)
    if not isinstance(t, TensorType):
        return value_of_type(t)
    return np.asarray(t.value, dtype=numpy_dtype(t.dtype)).reshape(t.shape)


def _equal(got, want) -> None:
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _equal(g, w)
    elif isinstance(want, OptionalValue):
        assert isinstance(got, OptionalValue) and (got.value is None) == (want.value is None)
        if want.value is not None:
            _equal(got.value, want.value)
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("spec,ex", CASES)
def test_example_values(spec, ex):
    outputs, _ = run_spec(spec, {k: _value(v) for k, v in ex.inputs.items()}, ex.attrs)
    for name, text in ex.expect.items():
        _equal(outputs[name], _value(text))


def test_errata_examples_are_run():
    names = {p.id for p in CASES}
    assert "openvino:ScatterNDUpdate-15:Example 4 (XML, prod)" in names
