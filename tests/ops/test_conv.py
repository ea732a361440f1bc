"""The convolution and pooling ops (Conv, ConvTranspose, the pools, MaxUnpool): seeded random cases
against the runtimes (values, dtypes and shapes from ``shapecheck.execute``, the solver's types on
concrete and on symbolic dims) and the rules' edges, and ONNX's own node tests
(``tests/harness/node_cases.py``; the per-op quirks are ``tests/ops/quirks.py``'s)."""
from __future__ import annotations

import zlib

import numpy as np
import onnx
import pytest
import sympy
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnxruntime.capi.onnxruntime_pybind11_state import NotImplemented as NotImplemented_

import shapecheck
from shapecheck.dims import symbol
from shapecheck.errors import ConstraintError
from shapecheck.registry import default_registry
from shapecheck.solver import solve
from shapecheck.types import dtype_of_array

from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_inferred, one_node, run_ort


REG = default_registry()


I64 = helper.np_dtype_to_tensor_dtype(np.dtype(np.int64))


REFUSALS: list = []   # random cases onnxruntime refused (and shapecheck refuted)


def _type(a: np.ndarray, value: bool = False) -> str:
    text = f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"
    return text + f" = {a.tolist()}" if value else text


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def compare_conv(op: str, opset: int, inputs: list, attrs: dict, n_out: int = 1, valued: tuple = ()) -> list[np.ndarray]:
    """Run in onnxruntime, execute and solve (concrete and symbolic); everything must agree. A case
    onnxruntime refuses must be refuted by shapecheck (a ConstraintError from execute)."""
    first = helper.np_dtype_to_tensor_dtype(inputs[0][1].dtype)
    feeds = {n: a for n, a in inputs if a is not None}
    try:
        want = run_ort(op, opset, inputs, attrs, [first, I64][:n_out])
    except NotImplemented_ as exc:                  # no kernel in onnxruntime: onnx.reference instead
        model = onnx.load_from_string(one_node(op, opset, inputs, attrs, [first, I64][:n_out]))
        want = ReferenceEvaluator(model).run(None, feeds)
        REFUSALS.append((op, opset, str(exc)[-120:]))
    except Exception as exc:   # noqa: BLE001 - onnxruntime's errors have several classes
        with pytest.raises(ConstraintError):
            shapecheck.execute(op, opset, feeds, attrs, output_count=n_out)
        REFUSALS.append((op, opset, str(exc)[-120:]))
        return []
    got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=n_out).values())[:n_out]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (op, attrs, g.dtype, g.shape, w.dtype, w.shape)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-4, atol=1e-4)
        else:
            np.testing.assert_array_equal(g, w)
    spec = REG.resolve(op, opset)
    types = {n: _type(a, n in valued) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=n_out)
    assert res.status == "valid", (op, attrs, res.violations, res.conditions)
    for t, w in zip(res.outputs.values(), want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), _type(w))
    x = inputs[0][1]                                # again with X's dims as symbols
    types["X"] = f"{dtype_of_array(x)}[{','.join(f'D{i}' for i in range(x.ndim))}]"
    res = solve(spec, types, attrs, output_count=n_out)
    assert res.status in ("valid", "conditional"), (op, attrs, res.violations)
    subs = {symbol(f"D{i}"): n for i, n in enumerate(x.shape)}
    for t, w in zip(res.outputs.values(), want):
        assert t.shape is not None and not any(isinstance(s, sympy.Dummy) for d in t.shape
                                               if isinstance(d, sympy.Basic) for s in d.free_symbols), str(t)
        check_inferred(t, w, subs, False)
    return want


def _pads(rng, n: int, kernel: list, below_kernel: bool) -> list[int]:
    return [int(rng.integers(0, (kernel[i % n] if below_kernel else 3))) for i in range(2 * n)]


def _window_attrs(rng, n: int, kernel: list, opset_has_dil: bool, opset_has_ceil: bool, pool: bool) -> dict:
    attrs: dict = {}
    if rng.random() < 0.7:
        attrs["strides"] = [int(s) for s in rng.integers(1, 4, size=n)]
    if opset_has_dil and rng.random() < 0.5:
        attrs["dilations"] = [int(s) for s in rng.integers(1, 3, size=n)]
    mode = rng.choice(["NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])
    if mode == "NOTSET":
        if rng.random() < 0.8:
            attrs["pads"] = _pads(rng, n, kernel, pool)
    else:
        attrs["auto_pad"] = str(mode)
    if opset_has_ceil and rng.random() < 0.5:
        attrs["ceil_mode"] = 1
    return attrs


def _spatial(rng, n: int, kernel: list, attrs: dict) -> tuple[int, ...]:
    """Input sizes the dilated kernel fits in (so every output size is 1 or more)."""
    dil = attrs.get("dilations", [1] * n)
    return tuple(int((kernel[i] - 1) * dil[i] + 1 + rng.integers(0, 5)) for i in range(n))


CONV = [(op, v, s) for op, vs in (("Conv", (7, 11, 22)), ("ConvTranspose", (7, 11, 22))) for v in vs for s in range(10)]


@pytest.mark.parametrize("op,opset,seed", CONV, ids=[f"{o}-{v}-{s}" for o, v, s in CONV])
def test_conv_matches_onnxruntime(op, opset, seed):
    rng = _rng(op, opset, seed)
    n = int(rng.choice([1, 2, 2, 3]))
    kernel = [int(k) for k in rng.integers(1, 4, size=n)]
    attrs = _window_attrs(rng, n, kernel, True, False, False)
    if op == "Conv" and attrs.get("auto_pad", "").startswith("SAME"):
        attrs.pop("dilations", None)            # onnxruntime refuses the pair (test_onnxruntime_refusals_are_refuted)
    g = int(rng.choice([1, 1, 2, 3]))
    if g > 1:
        attrs["group"] = g
    cg, mg = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    x = rng.standard_normal((int(rng.integers(1, 3)), cg * g) + _spatial(rng, n, kernel, attrs)).astype(np.float32)
    if op == "Conv":
        w = rng.standard_normal((mg * g, cg) + tuple(kernel)).astype(np.float32)
        m = mg * g
    else:
        w = rng.standard_normal((cg * g, mg) + tuple(kernel)).astype(np.float32)
        m = mg * g
        strides = attrs.get("strides", [1] * n)
        if rng.random() < 0.5:
            attrs["output_padding"] = [int(rng.integers(0, s)) for s in strides]
        dil = attrs.get("dilations", [1] * n)
        op_ = attrs.get("output_padding", [0] * n)
        full = [s * (h - 1) + o + (k - 1) * d + 1 for h, k, s, d, o in zip(x.shape[2:], kernel, strides, dil, op_)]
        if rng.random() < 0.3:
            attrs.pop("pads", None)
            attrs["output_shape"] = [max(1, f + int(rng.integers(-2, s))) for f, s in zip(full, strides)]
        elif "pads" in attrs and any(f - attrs["pads"][i] - attrs["pads"][i + n] < 1 for i, f in enumerate(full)):
            attrs["pads"] = [0] * (2 * n)           # keep the output at least 1 wide
    if rng.random() < 0.5:
        attrs["kernel_shape"] = kernel
    inputs = [("X", x), ("W", w)] + ([("B", rng.standard_normal(m).astype(np.float32))] if rng.random() < 0.5 else [])
    compare_conv(op, opset, inputs, attrs)


POOLS = [(op, v, s) for op, vs in (("MaxPool", (7, 8, 10, 12, 22)), ("AveragePool", (7, 10, 11, 19, 22)),
                                     ("LpPool", (7, 11, 18, 22))) for v in vs for s in range(8)]


@pytest.mark.parametrize("op,opset,seed", POOLS, ids=[f"{o}-{v}-{s}" for o, v, s in POOLS])
def test_pool_matches_onnxruntime(op, opset, seed):
    rng = _rng(op, opset, seed)
    n = int(rng.choice([1, 2, 2, 3]))
    kernel = [int(k) for k in rng.integers(1, 4, size=n)]
    has_dil = (op == "MaxPool" and opset >= 10) or (op == "AveragePool" and opset >= 19) or (op == "LpPool" and opset >= 18)
    has_ceil = (op in ("MaxPool", "AveragePool") and opset >= 10) or (op == "LpPool" and opset >= 18)
    attrs = _window_attrs(rng, n, kernel, has_dil, has_ceil, True)
    attrs["kernel_shape"] = kernel
    if op == "AveragePool" and rng.random() < 0.5:
        attrs["count_include_pad"] = 1
    if op == "LpPool":
        attrs["p"] = int(rng.integers(1, 4))
    n_out = 1
    dt = np.float32
    if op == "MaxPool" and opset >= 8:
        n_out = int(rng.integers(1, 3))
        if n == 2 and rng.random() < 0.5:
            attrs["storage_order"] = 1
        if opset >= 12 and n_out == 1 and rng.random() < 0.4:
            dt = rng.choice([np.int8, np.uint8])
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + _spatial(rng, n, kernel, attrs)
    x = (rng.standard_normal(shape) * 4).astype(dt)
    compare_conv(op, opset, [("X", x)], attrs, n_out)


# onnxruntime 1.32 and onnx.reference have no GlobalLpPool-22 kernel: its version 2 at opset 21 instead
GLOBAL = [(op, v, s) for op in ("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool") for v in (7, 21 if op == "GlobalLpPool" else 22)
          for s in range(4)]


@pytest.mark.parametrize("op,opset,seed", GLOBAL, ids=[f"{o}-{v}-{s}" for o, v, s in GLOBAL])
def test_global_pool_matches_onnxruntime(op, opset, seed):
    rng = _rng(op, opset, seed)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=int(rng.integers(3, 6))))
    attrs = {"p": int(rng.integers(1, 4))} if op == "GlobalLpPool" else {}
    compare_conv(op, opset, [("X", rng.standard_normal(shape).astype(np.float32))], attrs)


UNPOOL = [(v, s) for v in (9, 11, 22) for s in range(6)]


@pytest.mark.parametrize("opset,seed", UNPOOL, ids=[f"MaxUnpool-{v}-{s}" for v, s in UNPOOL])
def test_max_unpool_matches_onnxruntime(opset, seed):
    rng = _rng("unpool", opset, seed)
    n = int(rng.choice([1, 2]))
    kernel = [int(k) for k in rng.integers(1, 4, size=n)]
    attrs = {"kernel_shape": kernel, "strides": [int(s) for s in rng.integers(1, 4, size=n)]}
    if rng.random() < 0.5:
        attrs["pads"] = [0] * n + [int(rng.integers(0, k)) for k in kernel]
    x = rng.standard_normal((int(rng.integers(1, 3)), int(rng.integers(1, 3))) +
                            tuple(int(d) for d in rng.integers(1, 4, size=n))).astype(np.float32)
    pads = attrs.get("pads", [0] * 2 * n)
    out = list(x.shape[:2]) + [s * (h - 1) + k - pads[i] - pads[i + n]
                               for i, (h, k, s) in enumerate(zip(x.shape[2:], kernel, attrs["strides"]))]
    inputs = [("X", x)]
    if rng.random() < 0.5:
        out = out[:2] + [d + int(rng.integers(0, 3)) for d in out[2:]]
        shape_in = np.array(out, np.int64)
    else:
        shape_in = None
    idx = rng.permutation(int(np.prod(out)))[:x.size].reshape(x.shape).astype(np.int64)
    inputs += [("I", idx)] + ([("output_shape", shape_in)] if shape_in is not None else [])
    compare_conv("MaxUnpool", opset, inputs, attrs, valued=("output_shape",))


# the edges the random cases may miss, each checked against onnxruntime
EDGES = [
    ("MaxPool", 12, (1, 1, 3), {"kernel_shape": [2], "strides": [3], "pads": [0, 1], "ceil_mode": 1}),  # last window dropped
    ("AveragePool", 19, (1, 1, 3), {"kernel_shape": [2], "strides": [3], "ceil_mode": 1, "auto_pad": "VALID"}),
    ("MaxPool", 12, (1, 1, 6), {"kernel_shape": [3], "strides": [2], "ceil_mode": 1, "auto_pad": "VALID"}),
    ("AveragePool", 19, (1, 1, 5), {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "ceil_mode": 1,
                                    "count_include_pad": 1}),
    ("AveragePool", 19, (1, 1, 5), {"kernel_shape": [2], "strides": [2], "dilations": [2], "pads": [1, 1],
                                    "count_include_pad": 1}),
    ("MaxPool", 12, (1, 1, 6), {"kernel_shape": [7]}),                                           # an empty output
    ("MaxPool", 12, (1, 1, 3, 4), {"kernel_shape": [2, 2], "auto_pad": "SAME_LOWER", "strides": [2, 3]}),
]


@pytest.mark.parametrize("op,opset,shape,attrs", EDGES, ids=[f"{e[0]}-{i}" for i, e in enumerate(EDGES)])
def test_pool_edges_match_onnxruntime(op, opset, shape, attrs):
    x = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)
    compare_conv(op, opset, [("X", x)], attrs)


@pytest.mark.parametrize("attrs", [{"strides": [2], "output_shape": [10]}, {"strides": [2], "output_shape": [7]},
                                   {"strides": [2], "output_shape": [10], "auto_pad": "SAME_UPPER"},
                                   {"strides": [2], "auto_pad": "SAME_LOWER", "output_padding": [1]},
                                   {"strides": [2], "pads": [1, 1], "output_shape": [9]}])
def test_conv_transpose_output_shape_edges(attrs):
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 4)
    w = np.array([[[10, 1, 1]]], np.float32)
    compare_conv("ConvTranspose", 11, [("X", x), ("W", w)], attrs)


def test_symbolic_sizes_stay_exact():
    r = shapecheck.infer("Conv", 11, {"X": "float[N,3,S,S]", "W": "float[8,3,3,3]"}, {"strides": [2, 2]})
    assert str(r.outputs["Y"]) == "float[N,8,floor(S/2-3/2)+1,floor(S/2-3/2)+1]"
    r = shapecheck.infer("Conv", 11, {"X": "float[N,3,2*S,2*S]", "W": "float[8,3,3,3]"},
                         {"strides": [2, 2], "pads": [1, 1, 1, 1]})
    assert str(r.outputs["Y"]) == "float[N,8,S,S]"
    r = shapecheck.infer("MaxPool", 12, {"X": "float[N,3,S]"}, {"kernel_shape": [3], "strides": [2], "ceil_mode": 1})
    assert str(r.outputs["Y"]) == "float[N,3,floor(S/2)]"
    r = shapecheck.infer("AveragePool", 19, {"X": "float[N,3,S]"}, {"kernel_shape": [2], "strides": [2],
                                                                    "auto_pad": "SAME_UPPER"})
    assert str(r.outputs["Y"]) == "float[N,3,ceiling(S/2)]"
    r = shapecheck.infer("ConvTranspose", 11, {"X": "float[N,8,S]", "W": "float[8,4,4]"}, {"strides": [2], "pads": [1, 1]})
    assert str(r.outputs["Y"]) == "float[N,4,2*S]"


def test_channel_mismatch_is_refuted_and_symbolic_channels_conditional():
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute("Conv", 11, {"X": np.zeros((1, 4, 5), np.float32), "W": np.zeros((2, 4, 3), np.float32)},
                           {"group": 2})
    assert exc.value.constraint == "C6"
    r = shapecheck.infer("Conv", 11, {"X": "float[N,C,H,W]", "W": "float[8,3,3,3]"}, {"pads": [1, 1, 1, 1]})
    assert r.status == "conditional" and "C == 3" in r.conditions and str(r.outputs["Y"]) == "float[N,8,H,W]"


# what onnxruntime refuses, shapecheck must refute (the constraint named)
REFUSED = [
    ("Conv", 11, [(1, 1, 6), (1, 1, 2)], {"auto_pad": "SAME_UPPER", "dilations": [2]}, "C11"),
    ("Conv", 11, [(1, 1, 4), (1, 1, 5)], {}, "C9"),
    ("Conv", 11, [(1, 4, 5), (3, 2, 3)], {"group": 2}, "C7"),
    ("Conv", 11, [(1, 1, 4), (1, 1, 3)], {"kernel_shape": [5]}, "C5"),
    ("ConvTranspose", 11, [(1, 1, 4), (1, 1, 3)], {"strides": [2], "output_padding": [2]}, "C8"),
    ("ConvTranspose", 11, [(1, 1, 4), (1, 1, 3)], {"strides": [1], "output_padding": [1], "dilations": [2]}, "C8"),
    ("ConvTranspose", 11, [(1, 1, 4), (1, 1, 3)], {"strides": [2], "output_shape": [11]}, "C9"),
    ("ConvTranspose", 11, [(1, 1, 4), (1, 1, 3)], {"pads": [3, 3]}, "C10"),
    ("ConvTranspose", 11, [(1, 4, 5), (2, 3, 3)], {"group": 2}, "C6"),
    ("MaxPool", 12, [(1, 1, 6)], {"kernel_shape": [1], "strides": [4], "auto_pad": "SAME_LOWER"}, "C11"),
    ("MaxPool", 12, [(1, 1, 6)], {"kernel_shape": [2], "pads": [2, 0]}, "C5"),
    ("AveragePool", 19, [(1, 1, 6)], {"kernel_shape": [8]}, "C6"),
    ("LpPool", 18, [(2, 3, 0)], {"kernel_shape": [1]}, "C10"),
    ("GlobalMaxPool", 22, [(2, 0, 3)], {}, "C3"),
    ("GlobalAveragePool", 22, [(2, 3)], {}, "C2"),
]


@pytest.mark.parametrize("op,opset,shapes,attrs,cid", REFUSED, ids=[f"{r[0]}-{r[4]}-{i}" for i, r in enumerate(REFUSED)])
def test_onnxruntime_refusals_are_refuted(op, opset, shapes, attrs, cid):
    names = [i.name for i in REG.resolve(op, opset).inputs]
    inputs = [(nm, np.ones(sh, np.float32)) for nm, sh in zip(names, shapes)]
    with pytest.raises(Exception):
        run_ort(op, opset, inputs, attrs, [helper.np_dtype_to_tensor_dtype(np.dtype(np.float32))])
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute(op, opset, dict(inputs), attrs)
    assert exc.value.constraint == cid, exc.value


@pytest.mark.parametrize("op,opset,D,attrs", [("MaxPool", 12, 2, {"kernel_shape": [3], "strides": [2]}),
                                             ("AveragePool", 19, 4, {"kernel_shape": [5], "strides": [3]}),
                                             ("LpPool", 18, 1, {"kernel_shape": [3], "strides": [2], "pads": [1, 0]})])
def test_a_kernel_that_misses_the_input_by_less_than_a_stride_is_refuted_where_runtimes_disagree(op, opset, D, attrs):
    """CP16: onnxruntime truncates (D + pads - ek) / s + 1 toward zero and pools one partial window;
    onnx.reference and the page's floor give an empty Y. shapecheck refutes (C12); at D where the
    kernel misses by exactly a stride both give an empty Y, and so does shapecheck."""
    x = np.arange(1, D + 1, dtype=np.float32).reshape(1, 1, D)
    ours = run_ort(op, opset, [("X", x)], attrs, [onnx.TensorProto.FLOAT])[0]
    node = helper.make_node(op, ["X"], ["Y"], **attrs)
    model = helper.make_model(helper.make_graph([node], "g", [helper.make_tensor_value_info("X", 1, [1, 1, D])],
                                                [helper.make_tensor_value_info("Y", 1, None)]),
                              opset_imports=[helper.make_opsetid("", opset)])
    theirs = ReferenceEvaluator(model).run(None, {"X": x})[0]
    assert ours.shape[-1] == 1 and theirs.shape[-1] == 0
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute(op, opset, {"X": x}, attrs)
    assert exc.value.constraint == "C12"
    k, s = attrs["kernel_shape"][0], attrs["strides"][0]
    edge = k - sum(attrs.get("pads", [0, 0])) - s    # misses by exactly a stride: empty everywhere
    if edge >= 1:
        y = shapecheck.execute(op, opset, {"X": np.ones((1, 1, edge), np.float32)}, attrs)["Y"]
        assert y.shape[-1] == 0 == run_ort(op, opset, [("X", np.ones((1, 1, edge), np.float32))], attrs,
                                           [onnx.TensorProto.FLOAT])[0].shape[-1]


def test_size_conditions_match_the_size_formulas():
    """The rules state output sizes >= m as conditions on the input dim (min_input): exhaustively on
    small attributes, D >= the bound exactly when the formula gives m or more."""
    import itertools

    from shapecheck.functions.conv import conv_transpose_shape, min_input, pool_shape, transpose_min_input
    for k, s, d, pb, pe, cm, m, ap in itertools.product(range(1, 4), range(1, 4), range(1, 3), range(3), range(3),
                                                        (0, 1), (0, 1), ("NOTSET", "VALID", "SAME_UPPER")):
        if cm and max(pb, pe) >= k:
            continue                                # pads below the kernel (C5) in ceil_mode
        lo = min_input((k,), (s,), (pb, pe), (d,), ap, cm, m)[0]
        for h in range(16):
            assert (pool_shape((h,), (k,), (s,), (pb, pe), (d,), ap, cm)[0] >= m) == (h >= lo), (k, s, d, pb, pe, cm, ap, h)
    for k, s, d, pb, pe, op, ap in itertools.product(range(1, 4), range(1, 4), range(1, 3), range(4), range(4), range(3),
                                                      ("NOTSET", "VALID", "SAME_LOWER")):
        if op < s:
            lo = transpose_min_input((k,), (s,), (pb, pe), (d,), ap, (op,))[0]
            for h in range(12):
                out = conv_transpose_shape((h,), (k,), (s,), (pb, pe), (d,), ap, (op,))[0]
                assert (out >= 1) == (h >= lo), (k, s, d, pb, pe, op, ap, h)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("conv")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 70


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "conv")
