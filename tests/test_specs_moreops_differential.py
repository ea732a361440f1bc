"""The issue-16 "more ops" specs (RNN, GRU, LSTM; ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
ReduceSumSquare; Hardmax) against onnxruntime on seeded random cases: output values (within a
float tolerance), dtypes and shapes from shapecheck.execute, and the solver's inferred output
types, on concrete and on symbolic dims.  Batch-major recurrent nodes (layout = 1), which
onnxruntime refuses, are compared with onnx.reference."""
from __future__ import annotations

import json
import zlib

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.errors import ConstraintError
from shapecheck.solver import solve
from shapecheck.spec.load import default_registry
from shapecheck.types import dtype_of_array

from .layout_harness import check_inferred, symbolic_query
from .ort_kit import one_node, run_ort

REG = default_registry()


def _type(a: np.ndarray, valued: bool = False) -> str:
    text = f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"
    return f"{text} = {json.dumps(a.tolist())}" if valued else text


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def random_shape(rng: np.random.Generator, ranks: tuple[int, int], dims: tuple[int, int]) -> tuple[int, tuple]:
    """A rank drawn from [ranks) and a shape of dims drawn from [dims)."""
    rank = int(rng.integers(*ranks))
    return rank, tuple(int(d) for d in rng.integers(*dims, size=rank))


def _code(dt) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dt))


def compare(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int], *, reference: bool = False,
            tol: float = 1e-4, symbolic: bool = True, valued: tuple = (), fresh: bool = False) -> list[np.ndarray]:
    """Run ``op`` in onnxruntime (or onnx.reference) and through execute and solve; outputs must agree
    (``valued``: the inputs whose values the solver sees, as a constant axes input; ``fresh``: output
    dims that depend on values, as Unique's count, may be fresh symbols)."""
    feeds = {n: a for n, a in inputs if a is not None}
    if reference:
        want = ReferenceEvaluator(one_node(op, opset, inputs, attrs, out_types)).run(None, feeds)
    else:
        want = run_ort(op, opset, inputs, attrs, out_types)
    got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types)).values())
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
        t = max(tol, 2e-2) if w.dtype == np.float16 else tol
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=t, atol=t)
    spec = REG.resolve(op, opset)
    types = {n: _type(a, n in valued) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    for t, w in zip(res.outputs.values(), want):
        if fresh:
            check_inferred(t, w, {}, False)               # every dim it states is the run's; fresh ones are free
        else:
            assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), _type(w))
    if symbolic:                                         # again with every dim (and small int value) a symbol
        types, subs = symbolic_query(dict(inputs), set(valued))
        res = solve(spec, types, attrs, output_count=len(out_types))
        assert res.status in ("valid", "conditional"), (types, res.violations)
        for t, w in zip(res.outputs.values(), want):
            check_inferred(t, w, subs, False)
    return want


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


# ---------------------------------------------------------------- ReverseSequence, MVN, LRN, Det, random ops

RS_CASES = list(range(8))


@pytest.mark.parametrize("seed", RS_CASES, ids=[f"ReverseSequence-10-{s}" for s in RS_CASES])
def test_reverse_sequence_matches_onnxruntime(seed):
    rng = _rng("reverse_sequence", seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(2, 4))))
    batch_axis = int(rng.integers(0, 2))
    x = rng.standard_normal(shape).astype([np.float32, np.int64][seed % 2])
    lens = rng.integers(0, shape[1 - batch_axis] + 1, size=shape[batch_axis]).astype(np.int64)
    compare("ReverseSequence", 10, [("input", x), ("sequence_lens", lens)],
            {"batch_axis": batch_axis, "time_axis": 1 - batch_axis}, [_code(x.dtype)])


MVN_CASES = [(v, s) for v in (9, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", MVN_CASES, ids=[f"MeanVarianceNormalization-{v}-{s}" for v, s in MVN_CASES])
def test_mvn_matches_onnxruntime(opset, seed):
    rng = _rng("mvn", opset, seed)
    shape = tuple(int(d) for d in rng.integers(2, 4, size=4))
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    attrs = {} if seed % 2 else {"axes": sorted({int(a) for a in rng.integers(0, 4, size=2)})}
    compare("MeanVarianceNormalization", opset, [("X", x)], attrs, [_code(np.float32)], tol=1e-3)


LRN_CASES = [(v, s) for v in (1, 13) for s in range(5)]


@pytest.mark.parametrize("opset,seed", LRN_CASES, ids=[f"LRN-{v}-{s}" for v, s in LRN_CASES])
def test_lrn_matches_onnxruntime(opset, seed):
    rng = _rng("lrn", opset, seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=4))
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = {"size": int(rng.choice([1, 3, 5])), "alpha": 0.5, "beta": 0.6, "bias": 1.5}
    compare("LRN", opset, [("X", x)], attrs, [_code(np.float32)], tol=1e-4)


DET_CASES = [(v, s) for v in (11, 22) for s in range(5)]


@pytest.mark.parametrize("opset,seed", DET_CASES, ids=[f"Det-{v}-{s}" for v, s in DET_CASES])
def test_det_matches_onnxruntime(opset, seed):
    rng = _rng("det", opset, seed)
    m = int(rng.integers(1, 4))
    batch = tuple(int(d) for d in rng.integers(1, 3, size=int(rng.integers(0, 3))))
    x = rng.standard_normal(batch + (m, m)).astype(np.float32)
    compare("Det", opset, [("X", x)], {}, [_code(np.float32)], tol=1e-3)


RANDOM_CASES = [(op, v, s) for op, versions in (("RandomNormalLike", (1, 22)), ("RandomUniformLike", (1, 22)),
                                                 ("Bernoulli", (15, 22))) for v in versions for s in range(3)]


@pytest.mark.parametrize("op,version,seed", RANDOM_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in RANDOM_CASES])
def test_random_ops_shapes_and_types(op, version, seed):
    """Random values: only shapes and element types are compared, with onnxruntime at the version it
    implements (run at opset 21) and with onnx.reference at version 22, which onnxruntime lacks."""
    rng = _rng(op, version, seed)
    # onnx.reference's RandomNormalLike fails on a scalar input (randn() returns a float, MO12)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(0 if version < 22 else 1, 4))))
    x = rng.uniform(0, 1, shape).astype([np.float32, np.float64][seed % 2])
    attrs: dict = {"seed": 2.0}
    out = x.dtype
    if seed == 2:
        out = np.dtype(np.int64 if op == "Bernoulli" else np.float64)
        attrs["dtype"] = _code(out)
    opset = 21 if version < 22 else 22
    inputs = [("input", x)]
    if version < 22:
        want = run_ort(op, opset, inputs, attrs, [_code(out)])
    else:
        want = ReferenceEvaluator(one_node(op, opset, inputs, attrs, [_code(out)])).run(None, {"input": x})
    got = shapecheck.execute(op, opset, {"input": x}, attrs)["output"]
    assert got.dtype == want[0].dtype and got.shape == want[0].shape
    r = shapecheck.infer(op, opset, {"input": _type(x)}, attrs)
    assert r.status == "valid" and r.outputs["output"].shape == want[0].shape
    if op == "Bernoulli":
        assert set(np.unique(got).tolist()) <= {0, 1}


# ---------------------------------------------------------------- MatMulInteger, DynamicQuantizeLinear

MMI_CASES = list(range(10))


@pytest.mark.parametrize("seed", MMI_CASES, ids=[f"MatMulInteger-10-{s}" for s in MMI_CASES])
def test_matmul_integer_matches_onnxruntime(seed):
    rng = _rng("matmulinteger", seed)
    m, k, n = (int(d) for d in rng.integers(1, 5, size=3))
    batch = tuple(int(d) for d in rng.integers(1, 3, size=int(rng.integers(0, 2))))
    ta, tb = [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8), (np.int8, np.uint8)][seed % 4]

    def draw(dt, shape):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max + 1, size=shape).astype(dt)
    inputs = [("A", draw(ta, batch + (m, k))), ("B", draw(tb, (k, n)))]
    if seed % 3:
        inputs += [("a_zero_point", draw(ta, ())), ("b_zero_point", draw(tb, (n,) if seed % 2 else ()))]
    # onnxruntime's uint8 x int8 kernel saturates pairs of products at int16 (-43143 comes out as -32768, MO14):
    # that pair is compared with onnx.reference, which computes the page's exact int32 product
    compare("MatMulInteger", 10, inputs, {}, [_code(np.int32)], reference=(ta, tb) == (np.uint8, np.int8))


def test_matmul_integer_uint8_int8_saturates_in_onnxruntime():
    A, B = np.array([[255, 255]], np.uint8), np.array([[-128], [-128]], np.int8)
    exact = shapecheck.execute("MatMulInteger", 10, {"A": A, "B": B})["Y"]
    assert exact.tolist() == [[-65280]]
    assert run_ort("MatMulInteger", 10, [("A", A), ("B", B)], {}, [_code(np.int32)])[0].tolist() == [[-32768]]


def test_matmul_integer_per_row_a_zero_point_is_refuted():
    feeds = {"A": np.zeros((3, 2), np.uint8), "B": np.zeros((2, 4), np.int8), "a_zero_point": np.zeros(3, np.uint8)}
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("MatMulInteger", 10, feeds)
    assert exc.value.constraint == "C5"
    with pytest.raises(Exception, match="zero point must be a scalar"):
        run_ort("MatMulInteger", 10, list(feeds.items()), {}, [_code(np.int32)])


DQL_CASES = list(range(8))


@pytest.mark.parametrize("seed", DQL_CASES, ids=[f"DynamicQuantizeLinear-11-{s}" for s in DQL_CASES])
def test_dynamic_quantize_linear_matches_onnxruntime(seed):
    rng = _rng("dql", seed)
    shape = tuple(int(d) for d in rng.integers(0 if seed == 0 else 1, 5, size=int(rng.integers(1, 4))))
    x = (rng.standard_normal(shape) * [0, 1, 10, 0.01][seed % 4] + [0, 0.5, -2, 3][seed % 4]).astype(np.float32)
    compare("DynamicQuantizeLinear", 11, [("x", x)], {}, [_code(np.uint8), _code(np.float32), _code(np.uint8)], tol=1e-6)


# ---------------------------------------------------------------- QuantizeLinear, DequantizeLinear

Q_CASES = [(op, v, s) for op in ("QuantizeLinear", "DequantizeLinear") for v in (10, 13, 19, 21, 23, 24) for s in range(4)]


def quant_case(op: str, opset: int, seed: int) -> tuple[list, dict, np.dtype]:
    """A random per-tensor, per-axis (13+) or blocked (21+) case; returns inputs, attributes, y's dtype."""
    rng = _rng(op, opset, seed)
    rank, shape = random_shape(rng, (1, 4), (1, 5))
    axis = int(rng.integers(-rank, rank))
    a = axis + rank if axis < 0 else axis
    mode = seed % 3 if opset >= 21 else (seed % 2 if opset >= 13 else 0)      # 0 tensor, 1 axis, 2 blocked
    attrs: dict = {"axis": axis} if mode else {}
    if mode == 0:
        pshape: tuple = ()
    elif mode == 1:
        pshape = (shape[a],)
    else:
        attrs["block_size"] = block = int(rng.integers(1, 3))
        pshape = shape[:a] + (-(-shape[a] // block),) + shape[a + 1:]
    qtype = np.dtype([np.uint8, np.int8, np.uint16, np.int16][seed % (4 if opset >= 21 else 2)])
    ftype = np.dtype(np.float16 if opset >= 19 and seed % 4 == 3 else np.float32)
    scale = rng.uniform(0.5, 2, pshape).astype(ftype)
    info = np.iinfo(qtype)
    zp = rng.integers(max(info.min, -20), min(info.max, 20) + 1, size=pshape).astype(qtype)
    if op == "QuantizeLinear":
        x = (rng.standard_normal(shape) * 40).astype(ftype)
        return [("x", x), ("y_scale", scale), ("y_zero_point", zp)], attrs, qtype
    x = rng.integers(max(info.min, -100), min(info.max, 100) + 1, size=shape).astype(qtype)
    return [("x", x), ("x_scale", scale), ("x_zero_point", zp if seed % 2 == 0 else None)], attrs, ftype


@pytest.mark.parametrize("op,opset,seed", Q_CASES, ids=[f"{o}-{v}-{s}" for o, v, s in Q_CASES])
def test_quantize_dequantize_match_onnxruntime(op, opset, seed):
    inputs, attrs, out = quant_case(op, opset, seed)
    tol = 1e-2 if out == np.float16 else 1e-5
    compare(op, opset, inputs, attrs, [_code(out)], tol=tol)


def test_blocked_scale_of_the_wrong_shape_is_refuted():
    r = shapecheck.infer("QuantizeLinear", 21, {"x": "float[N,64]", "y_scale": "float[N,3]"}, {"block_size": 32})
    assert r.status == "invalid" and [v.constraint for v in r.violations] == ["C3"]
    r = shapecheck.infer("DequantizeLinear", 23, {"x": "int8[N,K]", "x_scale": "float16[N,2]"}, {"block_size": 32})
    assert r.status == "conditional" and str(r.outputs["y"]) == "float16[N,K]"


# ---------------------------------------------------------------- NonMaxSuppression

NMS_CASES = [(v, s) for v in (10, 11) for s in range(8)]


@pytest.mark.parametrize("opset,seed", NMS_CASES, ids=[f"NonMaxSuppression-{v}-{s}" for v, s in NMS_CASES])
def test_nms_matches_onnxruntime(opset, seed):
    rng = _rng("nms", opset, seed)
    b, c, n = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 7))
    corner = rng.uniform(0, 4, (b, n, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(0.5, 3, (b, n, 2))], axis=2).astype(np.float32)
    center = int(seed % 3 == 0)
    scores = rng.permutation(np.linspace(0.05, 0.95, b * c * n)).reshape(b, c, n).astype(np.float32)  # no ties
    inputs = [("boxes", boxes), ("scores", scores)]
    if seed % 4:
        inputs += [("max_output_boxes_per_class", np.array([int(rng.integers(0, 5))], np.int64)),
                   ("iou_threshold", np.array([rng.uniform(0.1, 0.7)], np.float32))]
        if seed % 2:
            inputs.append(("score_threshold", np.array([0.3], np.float32)))
    attrs = {"center_point_box": center} if center else {}
    want = compare("NonMaxSuppression", opset, inputs, attrs, [_code(np.int64)], fresh=True, symbolic=False)
    valued = {n: _type(a, valued=True) for n, a in inputs}           # constants: the count is exact
    r = shapecheck.infer("NonMaxSuppression", opset, valued, attrs)
    assert r.status == "valid" and r.outputs["selected_indices"].shape == want[0].shape
    r = shapecheck.infer("NonMaxSuppression", opset, {"boxes": "float[B,N,4]", "scores": "float[B,C,N]"}, attrs)
    assert r.status == "valid" and str(r.outputs["selected_indices"]) == "int64[?,3]"



# ---------------------------------------------------------------- GridSample

GS_CASES = [(v, s) for v in (16, 20, 22) for s in range(9)]


@pytest.mark.parametrize("opset,seed", GS_CASES, ids=[f"GridSample-{v}-{s}" for v, s in GS_CASES])
def test_grid_sample_matches_onnxruntime(opset, seed):
    rng = _rng("gridsample", opset, seed)
    r = 2 if opset == 16 or seed % 3 else 3                  # onnxruntime: cubic on 4-D X only
    modes = ("bilinear", "nearest", "bicubic") if opset == 16 else ("linear", "nearest", "cubic" if r == 2 else "linear")
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    x = rng.standard_normal((n, c) + tuple(int(d) for d in rng.integers(1, 5, size=r))).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (n,) + tuple(int(d) for d in rng.integers(1, 4, size=r)) + (r,)).astype(np.float32)
    attrs = {"mode": modes[seed % 3], "padding_mode": ("zeros", "border", "reflection")[(seed // 3) % 3],
             "align_corners": int(rng.integers(0, 2))}
    compare("GridSample", opset, [("X", x), ("grid", grid)], attrs, [_code(np.float32)], tol=1e-5)



RA_CASES = [(v, s) for v in (10, 16, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", RA_CASES, ids=[f"RoiAlign-{v}-{s}" for v, s in RA_CASES])
def test_roi_align_matches_onnxruntime(opset, seed):
    rng = _rng("roialign", opset, seed)
    n, c, h, w, k = (int(d) for d in rng.integers(1, 4, size=5))
    x = rng.standard_normal((n, c, h + 2, w + 2)).astype(np.float32)
    xy = rng.uniform(-0.5, w + 1, (k, 2))
    rois = np.concatenate([xy, xy + rng.uniform(0.2, 3, (k, 2))], axis=1).astype(np.float32)
    inputs = [("X", x), ("rois", rois), ("batch_indices", rng.integers(0, n, size=k).astype(np.int64))]
    attrs = {"mode": ("avg", "max")[seed % 2], "output_height": int(rng.integers(1, 4)), "output_width": int(rng.integers(1, 4)),
             "sampling_ratio": int(rng.integers(0, 3)), "spatial_scale": float(rng.choice([0.5, 1.0]))}
    if opset >= 16 and seed % 3 == 0:
        attrs["coordinate_transformation_mode"] = "output_half_pixel"
    # onnxruntime has no RoiAlign-22 kernel: version 22 is compared with onnx.reference
    compare("RoiAlign", opset, inputs, attrs, [_code(np.float32)], tol=1e-5, symbolic=False, reference=opset >= 22)
    r = shapecheck.infer("RoiAlign", opset, {"X": "float[N,C,H,W]", "rois": "float[R,4]", "batch_indices": "int64[R]"}, attrs)
    assert r.status == "valid" and str(r.outputs["Y"]) == f"float[R,C,{attrs['output_height']},{attrs['output_width']}]"


@pytest.mark.parametrize("name", ["shapecheck.spec.more_ops", "shapecheck.kernels.recurrent", "shapecheck.kernels.more_ops",
                                  "shapecheck.kernels.more_ops2", "shapecheck.kernels.quantize",
                                  "shapecheck.kernels.grid_sample"])
def test_doctests_of_the_moreops_modules(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
