"""The optional ops (Optional, OptionalGetElement, OptionalHasElement): seeded random cases against
onnxruntime and onnx.reference (values from ``shapecheck.execute``; the solver's types, with whether an
optional holds a value where that is known), and ONNX's own node tests (``tests/harness/node_cases.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import shapecheck
from shapecheck.containers import OptionalValue

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_containers, rng_for, run_containers

DTYPES = (np.float32, np.int64, np.float64)


def _value(rng, seed: int):
    """A random tensor, or a sequence of them (odd seeds)."""
    dt = DTYPES[seed % 3]
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    x = np.asarray((rng.standard_normal(shape) * 5).astype(dt))
    return [x, x[..., :1] if x.ndim else x] if seed % 2 else x


CASES = [(op, v, s) for op, versions in (("OptionalGetElement", (15, 18)), ("OptionalHasElement", (15, 18)))
         for v in versions for s in range(4)]


@pytest.mark.parametrize("op,version,seed", CASES, ids=[f"{o}-{v}-{s}" for o, v, s in CASES])
def test_optional_ops_match_the_runtimes(op, version, seed):
    rng = rng_for(op, version, seed)
    x = _value(rng, seed)
    empty = op == "OptionalHasElement" and seed == 2
    given = OptionalValue(None if empty else x)
    if version >= 18 and seed == 3:
        given = x     # version 18 takes a tensor or a sequence as it is
    check_containers(op, version, [("input", given)], {})


@pytest.mark.parametrize("seed", range(4))
def test_the_optional_op_matches_the_runtimes(seed):
    rng = rng_for("Optional", seed)
    x = _value(rng, seed)
    if seed < 3:
        # onnx.reference wraps the element in a list (OP2): compared through check_containers' unwrapping
        check_containers("Optional", 15, [("input", x)], {})
    else:   # no input, the type attribute: an empty optional (onnx.reference gives [None])
        tp = helper.make_tensor_type_proto(1, [None])
        assert run_containers("Optional", 15, [], {"type": tp}) == [None]
        out = shapecheck.execute("Optional", 15, {}, {"type": tp})["output"]
        assert isinstance(out, OptionalValue) and out.value is None
        r = shapecheck.infer("Optional", 15, {}, {"type": tp})
        assert str(r.outputs["output"]) == "optional(float[?]) = none"


def test_an_optional_known_empty_decides_has_element():
    r = shapecheck.infer("OptionalHasElement", 18, {"input": "optional(float[N]) = none"})
    assert r.status == "valid" and r.outputs["output"].value.tolist() is False
    r = shapecheck.infer("OptionalGetElement", 18, {"input": "optional(float[N]) = none"})
    assert r.status == "invalid" and [v.constraint for v in r.violations] == ["C3"]


def test_onnx_reference_wraps_an_optional_element_in_a_list():
    """OP2: onnx.reference's Optional gives [x] where onnxruntime gives x; its OptionalGetElement of that returns [x]."""
    x = np.ones(3, np.float32)
    ort_out = run_containers("Optional", 15, [("input", x)], {})[0]
    ref_out = run_containers("Optional", 15, [("input", x)], {}, reference=True)[0]
    assert isinstance(ort_out, np.ndarray) and isinstance(ref_out, list) and np.array_equal(ref_out[0], x)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("optional")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 8


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "optional")
