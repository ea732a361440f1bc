"""The training ops (ai.onnx.preview.training: Adagrad, Adam, Momentum; Gradient has no kernel): seeded
random steps against onnx.reference (onnxruntime runs none of them), the solver's types, and ONNX's own
node tests (``tests/harness/node_cases.py``)."""
from __future__ import annotations

import numpy as np
import pytest

import shapecheck
from shapecheck.registry import default_registry
from shapecheck.solver import solve
from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import rng_for, run_containers, same_value

TRAINING = "ai.onnx.preview.training"
REG = default_registry()
CASES = [(op, parts, s) for op, parts in (("Adagrad", 3), ("Adam", 4), ("Momentum", 3)) for s in range(2)]
ATTRS = {"Adagrad": {"decay_factor": 0.1}, "Adam": {"alpha": 0.9, "beta": 0.5},
         "Momentum": {"alpha": 0.9, "beta": 0.1, "mode": "nesterov", "norm_coefficient": 0.01}}


@pytest.mark.parametrize("op,parts,seed", CASES, ids=[f"{o}-{s}" for o, _p, s in CASES])
def test_optimizer_steps_match_onnx_reference(op, parts, seed):
    rng = rng_for(op, seed)
    k = 1 + seed
    shapes = [tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(1, 3)))) for _ in range(k)]
    tensors = [rng.standard_normal(shapes[j % k]).astype(np.float32) for j in range(parts * k)]
    r, t = np.array(0.1, np.float32), np.array(seed, np.int64)
    n_out = (parts - 1) * k
    inputs = [("R", r), ("T", t)] + [(f"x{j}", x) for j, x in enumerate(tensors)]
    want = run_containers(op, 24, inputs, ATTRS[op], n_out, reference=True, domain=TRAINING)
    got = list(shapecheck.execute(op, 1, {"R": r, "T": t, "inputs": tensors}, ATTRS[op], domain=TRAINING,
                                  output_count=n_out).values())
    for g, w in zip(got, want):
        same_value(g, np.asarray(w), 1e-5)
    res = solve(REG.resolve(op, 1, TRAINING), {"R": "float[]", "T": "int64[]",
                                               "inputs": [f"float[{','.join(map(str, x.shape))}]" for x in tensors]},
                ATTRS[op], output_count=n_out)
    assert res.status == "valid" and [t.shape for t in res.outputs.values()] == [w.shape for w in want]


def test_gradient_outputs_are_shaped_as_xs():
    r = solve(REG.resolve("Gradient", 1, TRAINING), {"Inputs": ["float[N,4]", "float[4]", "float[2,N]"]},
              {"xs": ["W", "B"], "zs": ["X"], "y": "Y"}, output_count=2)
    assert r.status == "valid" and [str(t) for t in r.outputs.values()] == ["float[N,4]", "float[4]"]


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("training")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 6


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "training")
