"""The issue-16 "more ops" specs, part 1 (RNN, GRU, LSTM; ReduceL1, ReduceL2, ReduceLogSum,
ReduceLogSumExp, ReduceSumSquare; Hardmax; Unique, Compress, EyeLike) against onnxruntime on seeded
random cases: output values (within a float tolerance), dtypes and shapes from shapecheck.execute,
and the solver's inferred output types, on concrete and on symbolic dims (tests/moreops_kit.py).
Batch-major recurrent nodes (layout = 1), which onnxruntime refuses, are compared with
onnxruntime's time-major run, transposed. Part 2: test_specs_moreops2_differential.py."""
from __future__ import annotations

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.errors import ConstraintError

from .moreops_kit import code as _code, compare, random_shape, rng_for as _rng, type_of as _type
from .ort_kit import one_node, run_ort


# ---------------------------------------------------------------- RNN, GRU, LSTM

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
ACTS = {"RNN": [["Tanh"], ["Relu"], ["Sigmoid"]],
        "GRU": [["Sigmoid", "Tanh"], ["Sigmoid", "Relu"], ["HardSigmoid", "Tanh"]],
        "LSTM": [["Sigmoid", "Tanh", "Tanh"], ["Sigmoid", "Relu", "Tanh"], ["HardSigmoid", "Tanh", "Softsign"]]}


def recurrent_case(op: str, opset: int, seed: int, layout: int = 0) -> tuple[list, dict, int]:
    """A random RNN/GRU/LSTM node: inputs (optional ones sometimes absent), attributes, output count."""
    rng = _rng(op, opset, seed, layout)
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
    compare(op, opset, inputs, attrs, [_code(np.float32)] * n_out)


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
    want = run_ort(op, opset, [(n, _time_major(n, a)) for n, a in inputs], tm_attrs, [_code(np.float32)] * n_out)
    for i, (g, w) in enumerate(zip(got, want)):
        w = w.transpose(2, 0, 1, 3) if i == 0 else w.transpose(1, 0, 2)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    res = shapecheck.infer(op, opset, {n: _type(a) for n, a in feeds.items()}, attrs)
    assert res.status == "valid" and all(t.shape == g.shape for t, g in zip(res.outputs.values(), got))
    plain = {k: v for k, v in attrs.items() if k != "activations"}   # onnx.reference knows Tanh, Sigmoid, Affine only
    ref = ReferenceEvaluator(one_node(op, opset, inputs, plain, [_code(np.float32)] * n_out)).run(None, feeds)
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
        run_ort(op, 14, list(feeds.items()), {"hidden_size": 4}, [_code(np.float32)])


# ---------------------------------------------------------------- ReduceL1 and family, Hardmax

REDUCE_OPS = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")
RED_CASES = [(op, v, s) for op in REDUCE_OPS for v in (1, 11, 13, 18) for s in range(4)]


@pytest.mark.parametrize("op,opset,seed", RED_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in RED_CASES])
def test_reduction_matches_onnxruntime(op, opset, seed):
    rng = _rng(op, opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 4))
    dt = [np.float32, np.float64, np.float16, np.int32, np.int64][seed % 5 if op != "ReduceLogSum" else seed % 3]
    if opset == 1 and dt == np.float16:
        dt = np.float32                      # onnxruntime's float16 fallback inserts a Cast it cannot load at opset 1
    x = rng.uniform(0.5, 3, shape) if op == "ReduceLogSum" else rng.uniform(-3, 3, shape)   # log of a positive sum
    x = (np.round(x) if np.dtype(dt).kind == "i" else x).astype(dt)
    if np.dtype(dt).kind == "i" and op == "ReduceLogSum":
        x = np.abs(x) + 1
    axes = sorted({int(a) for a in rng.integers(-rank, rank, size=int(rng.integers(0, rank + 1)))})
    attrs: dict = {"keepdims": int(rng.integers(0, 2))}
    inputs = [("data", x)]
    if opset < 18:
        if axes:
            attrs["axes"] = axes
    else:
        inputs.append(("axes", np.array(axes, np.int64) if axes or rng.random() < 0.5 else None))
        if not axes and rng.random() < 0.5:
            attrs["noop_with_empty_axes"] = 1
    compare(op, opset, inputs, attrs, [_code(dt)], tol=1e-3, valued=("axes",))


def test_reduction_of_nothing_is_elementwise_as_the_runtimes_compute():
    """noop_with_empty_axes: the page says Identity; onnxruntime takes |x|, x^2, log x per element (MO4)."""
    x = np.array([[-3.0, 2.0]], np.float32)
    for op, want in (("ReduceL1", [[3, 2]]), ("ReduceSumSquare", [[9, 4]]), ("ReduceLogSumExp", [[-3, 2]])):
        got = shapecheck.execute(op, 18, {"data": x, "axes": np.array([], np.int64)}, {"noop_with_empty_axes": 1})
        np.testing.assert_allclose(got["reduced"], want, rtol=1e-6)
        np.testing.assert_allclose(run_ort(op, 18, [("data", x), ("axes", np.array([], np.int64))],
                                           {"noop_with_empty_axes": 1}, [_code(np.float32)])[0], want, rtol=1e-6)


def test_reduction_symbolic_and_refuted():
    r = shapecheck.infer("ReduceL2", 18, {"data": "float[N,S,D]", "axes": "int64[1] = [-1]"}, {"keepdims": 0})
    assert r.status == "valid" and str(r.outputs["reduced"]) == "float[N,S]"
    r = shapecheck.infer("ReduceSumSquare", 13, {"data": "float[N,S,D]"}, {"axes": [1]})
    assert r.status == "valid" and str(r.outputs["reduced"]) == "float[N,1,D]"
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("ReduceLogSumExp", 11, {"data": np.zeros((2, 3), np.float32)}, {"axes": [2]})
    assert exc.value.constraint == "C2"


HM_CASES = [(v, s) for v in (1, 11, 13) for s in range(6)]


@pytest.mark.parametrize("opset,seed", HM_CASES, ids=[f"Hardmax-{v}-{s}" for v, s in HM_CASES])
def test_hardmax_matches_onnxruntime(opset, seed):
    rng = _rng("hardmax", opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 4))
    # onnxruntime has no float64 Hardmax; onnx.reference ignores the 2-D coercion of versions 1 and 11 (MO5),
    # so other types are compared with onnx.reference at version 13 only
    dt = [np.float32, np.float64, np.float16][seed % 3] if opset >= 13 else np.float32
    x = rng.integers(-2, 3, size=shape).astype(dt)          # small integers: ties, the first maximum wins
    attrs = {"axis": int(rng.integers(-rank, rank))} if rng.random() < 0.7 or (rank == 1 and opset < 13) else {}
    compare("Hardmax", opset, [("input", x)], attrs, [_code(dt)], reference=dt != np.float32)


def test_hardmax_default_axis_of_a_vector_is_refuted_before_13():
    """The default axis is 1 before version 13: a rank-1 input fails in onnxruntime and in shapecheck (C2)."""
    x = np.array([1.0, 3.0], np.float32)
    with pytest.raises(Exception, match="axis"):
        run_ort("Hardmax", 11, [("input", x)], {}, [_code(np.float32)])
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("Hardmax", 11, {"input": x})
    assert exc.value.constraint == "C2"
    assert shapecheck.execute("Hardmax", 13, {"input": x})["output"].tolist() == [0.0, 1.0]


# ---------------------------------------------------------------- Unique, Compress, EyeLike

UNIQUE_CASES = list(range(12))


@pytest.mark.parametrize("seed", UNIQUE_CASES, ids=[f"Unique-11-{s}" for s in UNIQUE_CASES])
def test_unique_matches_onnxruntime(seed):
    rng = _rng("unique", seed)
    rank = int(rng.integers(0, 4))
    shape = tuple(int(d) for d in rng.integers(0 if seed % 4 == 0 else 1, 4, size=rank))
    dt = [np.float32, np.int64, np.int8, np.float64][seed % 4]       # onnxruntime has no int32 Unique
    x = rng.integers(0, 3, size=shape).astype(dt)
    attrs: dict = {"sorted": int(rng.integers(0, 2))}
    if rank and rng.random() < 0.5:
        attrs["axis"] = int(rng.integers(-rank, rank))
    I64 = _code(np.int64)
    want = compare("Unique", 11, [("X", x)], attrs, [_code(dt), I64, I64, I64], fresh=True)
    # with X a constant the solver counts u exactly
    r = shapecheck.infer("Unique", 11, {"X": _type(x, valued=x.ndim <= 1 and x.size <= 64)}, attrs)
    if x.ndim == 1:
        assert r.outputs["Y"].shape == want[0].shape and r.outputs["counts"].shape == want[3].shape


def test_unique_shares_one_fresh_count():
    r = shapecheck.infer("Unique", 11, {"X": "float[N,4]"}, {"axis": -1})
    u = r.outputs["Y"].shape[1]
    assert r.status == "valid" and str(r.outputs["Y"]) == "float[N,?]" and str(r.outputs["inverse_indices"]) == "int64[4]"
    assert r.outputs["indices"].shape == (u,) and r.outputs["counts"].shape == (u,)
    assert str(shapecheck.infer("Unique", 11, {"X": "int64[5] = [3, 1, 3, 3, 2]"}).outputs["Y"]) == "int64[3]"


COMPRESS_CASES = [(v, s) for v in (9, 11) for s in range(8)]


@pytest.mark.parametrize("opset,seed", COMPRESS_CASES, ids=[f"Compress-{v}-{s}" for v, s in COMPRESS_CASES])
def test_compress_matches_onnxruntime(opset, seed):
    rng = _rng("compress", opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 4))
    x = rng.standard_normal(shape).astype([np.float32, np.int64][seed % 2])
    attrs = {"axis": int(rng.integers(-rank, rank))} if rng.random() < 0.7 else {}
    n = int(np.prod(shape)) if not attrs else shape[attrs["axis"]]
    cond = rng.random(int(rng.integers(0, n + 1))) < 0.6
    want = compare("Compress", opset, [("input", x), ("condition", cond)], attrs, [_code(x.dtype)], fresh=True)
    r = shapecheck.infer("Compress", opset, {"input": _type(x), "condition": _type(cond, valued=True)}, attrs)
    assert r.status == "valid" and r.outputs["output"].shape == want[0].shape      # a constant condition is counted


def test_compress_longer_condition_is_refuted():
    x, cond = np.zeros((3, 2), np.float32), np.array([True, False, True, True])
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("Compress", 11, {"input": x, "condition": cond}, {"axis": 0})
    assert exc.value.constraint == "C4"
    assert run_ort("Compress", 11, [("input", x), ("condition", cond)], {"axis": 0}, [_code(np.float32)])[0].shape == (2, 2)


EYE_CASES = [(v, s) for v in (9, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", EYE_CASES, ids=[f"EyeLike-{v}-{s}" for v, s in EYE_CASES])
def test_eyelike_matches_onnxruntime(opset, seed):
    rng = _rng("eyelike", opset, seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=2))
    x = np.zeros(shape, [np.float32, np.int32, np.float64][seed % 3])
    attrs: dict = {"k": int(rng.integers(-3, 4))}
    out = x.dtype
    if rng.random() < 0.5:
        out = np.dtype([np.int64, np.float32, np.uint64][seed % 3])     # onnxruntime: float, double, int32, int64, uint64
        attrs["dtype"] = _code(out)
    compare("EyeLike", opset, [("input", x)], attrs, [_code(out)])
