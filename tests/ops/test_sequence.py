"""The sequence ops (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap): seeded random cases against
onnxruntime and onnx.reference (values, dtypes and shapes from ``shapecheck.execute``; the solver's
types, each element's where the sequence's elements are known), and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_containers, rng_for

F = np.float32


def _sequence(rng, n: int, dt=F, same: bool = False) -> list:
    """``n`` random tensors of rank 2 sharing their last dim (and all dims when ``same``)."""
    last = int(rng.integers(1, 4))
    first = int(rng.integers(1, 4))
    return [rng.standard_normal((first if same else int(rng.integers(1, 4)), last)).astype(dt) for _ in range(n)]


def _case(op: str, seed: int):
    """(inputs, attrs, opset) of one random case of ``op``: in range, as the runtimes run it."""
    rng = rng_for(op, seed)
    n = int(rng.integers(1, 4))
    s = _sequence(rng, n, same=op == "ConcatFromSequence" and seed % 2 == 1)
    if op == "SequenceInsert":
        pos = [("position", np.array(int(rng.integers(-n, n + 1)), np.int64))] if seed % 2 else []
        return [("input_sequence", s), ("tensor", _sequence(rng, 1)[0])] + pos, {}, 11
    if op == "SequenceAt":
        return [("input_sequence", s), ("position", np.array(int(rng.integers(-n, n)), np.int32))], {}, 11
    if op == "SequenceErase":
        pos = [("position", np.array(int(rng.integers(-n, n)), np.int64))] if seed % 2 else []
        return [("input_sequence", s)] + pos, {}, 11
    if op == "SequenceLength":
        return [("input_sequence", s)], {}, 11
    if op == "SequenceConstruct":
        return [(f"x{i}", x) for i, x in enumerate(s)], {}, 11
    if op == "ConcatFromSequence":
        new = seed % 2
        axis = 0 if not new else int(rng.integers(-3, 3))
        return [("input_sequence", s)], {"axis": axis, "new_axis": new}, 11
    if op == "SplitToSequence":
        x = rng.standard_normal((int(rng.integers(1, 6)), 3)).astype(F)
        d = x.shape[0]
        kind = seed % 3
        split = [] if kind == 0 else [("split", np.array(int(rng.integers(1, d + 2)), np.int64))] if kind == 1 else \
            [("split", np.array(_parts(rng, d), np.int64))]
        return [("input", x)] + split, {"axis": 0, "keepdims": int(kind != 0 or seed % 2)}, 11 if seed < 3 else 24
    raise AssertionError(op)


def _parts(rng, d: int) -> list[int]:
    cuts = sorted(int(c) for c in rng.integers(0, d + 1, size=int(rng.integers(0, 3))))
    return [b - a for a, b in zip([0] + cuts, cuts + [d])]


OPS = ("SequenceInsert", "SequenceAt", "SequenceErase", "SequenceLength", "SequenceConstruct", "ConcatFromSequence",
       "SplitToSequence")
CASES = [(op, s) for op in OPS for s in range(4)]


@pytest.mark.parametrize("op,seed", CASES, ids=[f"{o}-{s}" for o, s in CASES])
def test_sequence_ops_match_the_runtimes(op, seed):
    inputs, attrs, opset = _case(op, seed)
    check_containers(op, opset, inputs, attrs)


def test_sequence_empty_matches_the_runtimes():
    check_containers("SequenceEmpty", 11, [], {"dtype": 7})


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("sequence")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 10


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "sequence")
