"""Every spec example whose inputs and expected outputs are all constants is run by the
executor and must give exactly the expected values (errata examples included: their values
are what the runtime computes, not what the page printed)."""
from __future__ import annotations

import numpy as np
import pytest

from shapecheck.executor import run_spec
from shapecheck.registry import default_registry
from shapecheck.types import numpy_dtype, parse_type

CASES = [pytest.param(spec, ex, id=f"{spec.name}:{ex.name}")
         for spec in default_registry() if spec.semantics and not spec.deprecated
         for ex in spec.examples
         if all("=" in t for t in ex.inputs.values()) and all("=" in t for t in ex.expect.values())]


def _array(text: str) -> np.ndarray:
    t = parse_type(text)
    return np.asarray(t.value, dtype=numpy_dtype(t.dtype)).reshape(t.shape)


@pytest.mark.parametrize("spec,ex", CASES)
def test_example_values(spec, ex):
    outputs, _ = run_spec(spec, {k: _array(v) for k, v in ex.inputs.items()}, ex.attrs)
    for name, text in ex.expect.items():
        want = _array(text)
        assert outputs[name].dtype == want.dtype
        np.testing.assert_array_equal(outputs[name], want)


def test_errata_examples_are_run():
    names = {p.id for p in CASES}
    assert "openvino:ScatterNDUpdate-15:Example 4 (XML, prod)" in names
