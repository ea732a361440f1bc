"""The recurrent ops (RNN, GRU, LSTM): seeded random cases against the runtimes (values, dtypes and
shapes from ``shapecheck.execute``, the solver's types on concrete and on symbolic dims) and the
rules' edges, and ONNX's own node tests (``tests/harness/node_cases.py``; the per-op quirks are
``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.errors import ConstraintError

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import code, compare, one_node, rng_for, run_ort, type_of


GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


ACTS = {"RNN": [["Tanh"], ["Relu"], ["Sigmoid"]],
        "GRU": [["Sigmoid", "Tanh"], ["Sigmoid", "Relu"], ["HardSigmoid", "Tanh"]],
        "LSTM": [["Sigmoid", "Tanh", "Tanh"], ["Sigmoid", "Relu", "Tanh"], ["HardSigmoid", "Tanh", "Softsign"]]}


def recurrent_case(op: str, opset: int, seed: int, layout: int = 0) -> tuple[list, dict, int]:
    """A random RNN/GRU/LSTM node: inputs (optional ones sometimes absent), attributes, output count."""
    rng = rng_for(op, opset, seed, layout)
    seq, batch, inp, hidden = (int(x) for x in rng.integers(1, 4, size=4))
    direction = str(rng.choice(["forward", "reverse", "bidirectional"]))
    dirs = 2 if direction == "bidirectional" else 1
    k = GATES[op]
    dt = np.float32
    x_shape = (batch, seq, inp) if layout else (seq, batch, inp)
    state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)

    def arr(*shape):
        return (rng.standard_normal(shape) * 0.7).astype(dt)
    inputs = [("X", arr(*x_shape)), ("W", arr(dirs, k * hidden, inp)), ("R", arr(dirs, k * hidden, hidden))]
    optional = [("B", arr(dirs, 2 * k * hidden)),
                ("sequence_lens", rng.integers(1, seq + 1, size=batch).astype(np.int32)),
                ("initial_h", arr(*state))]
    if op == "LSTM":
        optional += [("initial_c", arr(*state)), ("P", arr(dirs, 3 * hidden))]
    inputs += [(n, a if rng.random() < 0.6 else None) for n, a in optional]
    attrs: dict = {"hidden_size": hidden, "direction": direction}
    if rng.random() < 0.4:
        attrs["activations"] = ACTS[op][int(rng.integers(0, 3))] * dirs
    if rng.random() < 0.3:
        attrs["clip"] = 1.5
    if op == "GRU" and rng.random() < 0.5:
        attrs["linear_before_reset"] = 1
    if op == "LSTM" and rng.random() < 0.3:
        attrs["input_forget"] = 1
    if layout:
        attrs["layout"] = 1
    n_out = int(rng.integers(1, 4 if op == "LSTM" else 3))
    return inputs, attrs, n_out


REC_CASES = [(op, v, s) for op in GATES for v in (7, 14, 22) for s in range(6)]


@pytest.mark.parametrize("op,opset,seed", REC_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in REC_CASES])
def test_recurrent_matches_onnxruntime(op, opset, seed):
    inputs, attrs, n_out = recurrent_case(op, opset, seed)
    compare(op, opset, inputs, attrs, [code(np.float32)] * n_out)


LAYOUT_CASES = [(op, v, s) for op in GATES for v in (14, 22) for s in range(4)]


def _time_major(name: str, a):
    if a is None:
        return a
    return a.transpose(1, 0, 2) if name in ("X", "initial_h", "initial_c") else a


@pytest.mark.parametrize("op,opset,seed", LAYOUT_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in LAYOUT_CASES])
def test_recurrent_batch_major_matches_onnxruntime_time_major(op, opset, seed):
    """onnxruntime refuses layout = 1 (MO2) and onnx.reference ignores sequence_lens and clip (MO3):
    the batch-major node must give onnxruntime's time-major outputs, transposed."""
    inputs, attrs, n_out = recurrent_case(op, opset, seed, layout=1)
    feeds = {n: a for n, a in inputs if a is not None}
    got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=n_out).values())[:n_out]
    tm_attrs = {k: v for k, v in attrs.items() if k != "layout"}
    want = run_ort(op, opset, [(n, _time_major(n, a)) for n, a in inputs], tm_attrs, [code(np.float32)] * n_out)
    for i, (g, w) in enumerate(zip(got, want)):
        w = w.transpose(2, 0, 1, 3) if i == 0 else w.transpose(1, 0, 2)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    res = shapecheck.infer(op, opset, {n: type_of(a) for n, a in feeds.items()}, attrs)
    assert res.status == "valid" and all(t.shape == g.shape for t, g in zip(res.outputs.values(), got))
    plain = {k: v for k, v in attrs.items() if k != "activations"}   # onnx.reference knows Tanh, Sigmoid, Affine only
    ref = ReferenceEvaluator(one_node(op, opset, inputs, plain, [code(np.float32)] * n_out)).run(None, feeds)
    assert [r.shape for r in ref] == [g.shape for g in got]          # onnx.reference's shapes agree


def test_recurrent_symbolic_outputs():
    r = shapecheck.infer("LSTM", 14, {"X": "float[S,N,I]", "W": "float[2,256,I]", "R": "float[2,256,64]",
                                      "B": "float[2,512]"}, {"hidden_size": 64, "direction": "bidirectional"})
    assert r.status == "valid" and [str(t) for t in r.outputs.values()] == \
        ["float[S,2,N,64]", "float[2,N,64]", "float[2,N,64]"]
    r = shapecheck.infer("GRU", 22, {"X": "float16[N,S,I]", "W": "float16[1,96,I]", "R": "float16[1,96,32]"},
                         {"hidden_size": 32, "layout": 1})
    assert r.status == "valid" and [str(t) for t in r.outputs.values()] == ["float16[N,S,1,32]", "float16[N,1,32]"]
    r = shapecheck.infer("RNN", 7, {"X": "float[S,N,I]", "W": "float[1,H,J]", "R": "float[1,H,H]"})
    assert r.status == "conditional" and r.conditions in (["I == J"], ["J == I"]) and str(r.outputs["Y"]) == "float[S,1,N,H]"
    assert [w.constraint for w in r.warnings] == ["W1"]


@pytest.mark.parametrize("op", list(GATES))
def test_recurrent_weights_of_the_wrong_gate_count_are_refuted(op):
    k = GATES[op] + 1                                    # one gate too many, as onnxruntime refuses it
    feeds = {"X": np.zeros((2, 1, 3), np.float32), "W": np.zeros((1, 4 * k, 3), np.float32),
             "R": np.zeros((1, 4 * k, 4), np.float32)}
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute(op, 14, feeds, {"hidden_size": 4})
    assert exc.value.constraint == "C4"
    with pytest.raises(Exception, match="must have shape"):
        run_ort(op, 14, list(feeds.items()), {"hidden_size": 4}, [code(np.float32)])


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("recurrent")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 15


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "recurrent")
