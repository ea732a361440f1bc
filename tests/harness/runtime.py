"""The one runtime harness: a one-node model run in onnxruntime (or onnx.reference), and the same
query through ``shapecheck.execute`` and the solver, compared.

The comparisons it offers, all of one node on seeded random arrays:

* ``check_against_ort``: values exactly; the solver's types on concrete dims, then with the first
  input's dims as symbols (every inferred dim, with the run's sizes put in, is the run's dim);
* ``compare``: values within a tolerance (onnx.reference where onnxruntime has no kernel); the
  solver's types on concrete dims, then with every dim and small integer value a symbol
  (``symbolic_query``, ``check_inferred``);
* ``compare_in_domain``: as ``compare`` for an op of another domain (com.microsoft), with the first
  input's dims as symbols, and outputs an op may omit;
* ``compare_one``: one output, exactly or within a tolerance, variadic inputs (Einsum) included;
* ``check_views``: every input's dims as its own symbols;
* ``check_case``: a case given as a dict of inputs, through ``shapecheck.infer`` with symbolic dims and
  shape-tensor values (``KEEPS_VALUE``: values that must survive).
"""
from __future__ import annotations

import json
import zlib

import ml_dtypes
import numpy as np
import onnxruntime as ort
import sympy
from onnx import helper
from onnx.reference import ReferenceEvaluator

import shapecheck
from shapecheck.dims import is_unknown, symbol
from shapecheck.registry import default_registry
from shapecheck.solver import solve
from shapecheck.containers import MapType, OptionalType, OptionalValue, SequenceType, type_of_value
from shapecheck.types import ONNX_CODE_OF, TensorType, dtype_of_array

ort.set_default_logger_severity(3)
REG = default_registry()
MS = "com.microsoft"
BF16 = np.dtype(ml_dtypes.bfloat16)


def one_node(op: str, opset: int, inputs: list, attrs: dict, out_types: list, domain: str = "") -> bytes:
    """A model of one node; ``inputs`` are (name, array or None), None leaving an optional input out; a
    None out type leaves that output out.  An op of another ``domain`` imports it at version 1."""
    names = [n if a is not None else "" for n, a in inputs]
    while names and not names[-1]:
        names.pop()
    vis = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
           for n, a in inputs if a is not None]
    outs = [f"out{i}" if t is not None else "" for i, t in enumerate(out_types)]
    node = helper.make_node(op, names, outs, domain=domain, **attrs)
    graph = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(o, t, None)
                                                 for o, t in zip(outs, out_types) if o])
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    return helper.make_model(graph, opset_imports=imports, ir_version=10 if domain else 8).SerializeToString()


def run_ort(op: str, opset: int, inputs: list, attrs: dict, out_types: list, domain: str = "") -> list[np.ndarray]:
    """The node run in onnxruntime's CPU provider."""
    sess = ort.InferenceSession(one_node(op, opset, inputs, attrs, out_types, domain), providers=["CPUExecutionProvider"])
    return sess.run(None, {n: a for n, a in inputs if a is not None})


def run_model(model, feeds: dict) -> list[np.ndarray] | None:
    """A whole model run in onnxruntime (optimizations off, its log quiet): every output, or None where
    onnxruntime refuses the model or these inputs."""
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    data = model if isinstance(model, bytes) else model.SerializeToString()
    try:
        return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"]).run(None, feeds)
    except Exception:  # noqa: BLE001 -- onnxruntime's refusal, at load or at run time
        return None


def run_reference(op: str, opset: int, inputs: list, attrs: dict, out_types: list) -> list[np.ndarray]:
    """The node run in onnx.reference."""
    feeds = {n: a for n, a in inputs if a is not None}
    return ReferenceEvaluator(one_node(op, opset, inputs, attrs, out_types)).run(None, feeds)


def code(dt) -> int:
    """The TensorProto code of a numpy dtype."""
    return helper.np_dtype_to_tensor_dtype(np.dtype(dt))


def rng_for(*key) -> np.random.Generator:
    """A generator seeded by ``key`` (the op, its version, the case number): the same case every run."""
    return np.random.default_rng(zlib.crc32("-".join(map(str, key)).encode()))


def randn(rng, shape, dt=np.float32):
    return rng.standard_normal(shape).astype(dt)


def type_of(a: np.ndarray, valued: bool = False) -> str:
    """The type text of an array (``float[2,3]``), with its values when ``valued``."""
    text = f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"
    return f"{text} = {json.dumps(a.tolist())}" if valued else text


def _type(a: np.ndarray) -> str:
    return f"{dtype_of_array(a)}[{','.join(map(str, a.shape))}]"


def check_against_ort(op: str, opset: int, inputs: list, attrs: dict | None = None, *, n_out: int = 1,
                      out_types: list[int] | None = None, variadic: bool = False, valued: tuple = (),
                      symbolic: bool = True, fresh: bool = False) -> list[np.ndarray]:
    """Compare execute and solve with onnxruntime; ``valued`` names inputs whose values the solver sees,
    ``fresh`` allows data-dependent output dims (fresh symbols)."""
    attrs = attrs or {}
    first = helper.np_dtype_to_tensor_dtype(inputs[0][1].dtype)
    want = run_ort(op, opset, inputs, attrs, out_types or [first] * n_out)
    feeds = {n: a for n, a in inputs if a is not None}
    got = shapecheck.execute(op, opset, feeds, attrs, output_count=n_out if variadic else None)
    got_list = list(got.values())
    assert len(got_list) == len(want)
    for g, w in zip(got_list, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_array_equal(g, w)
    spec = REG.resolve(op, opset)
    types = {n: (a if n in valued else _type(a)) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=n_out if variadic else None)
    assert res.status == "valid", (res.violations, res.conditions)
    for t, w in zip(res.outputs.values(), want):
        # a data-dependent dim (NonZero's count) is a fresh symbol; every other dim is the run's
        assert t.dtype == dtype_of_array(w) and t.shape is not None and len(t.shape) == w.ndim, (str(t), _type(w))
        assert all(is_unknown(d) and fresh or d == n for d, n in zip(t.shape, w.shape)), (str(t), _type(w))
    if symbolic and inputs[0][1].ndim:
        name, arr = inputs[0]
        syms = [symbol(f"D{i}") for i in range(arr.ndim)]
        types[name] = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
        res = solve(spec, types, attrs, output_count=n_out if variadic else None)
        assert res.status in ("valid", "conditional"), res.violations
        sub = dict(zip(syms, arr.shape))
        for t, w in zip(res.outputs.values(), want):
            assert t.shape is not None and len(t.shape) == w.ndim, (str(t), w.shape)
            for d, n in zip(t.shape, w.shape):
                if isinstance(d, sympy.Basic) and any(is_unknown(s) for s in d.free_symbols):
                    continue
                assert sympy.sympify(d).xreplace(sub) == n, (str(t), w.shape, sub)
    return want


def random_shape(rng: np.random.Generator, ranks: tuple[int, int], dims: tuple[int, int]) -> tuple[int, tuple]:
    """A rank drawn from [ranks) and a shape of dims drawn from [dims)."""
    rank = int(rng.integers(*ranks))
    return rank, tuple(int(d) for d in rng.integers(*dims, size=rank))


def compare(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int], *, reference: bool = False,
            tol: float = 1e-4, symbolic: bool = True, valued: tuple = (), fresh: bool = False) -> list[np.ndarray]:
    """Run ``op`` in onnxruntime (or onnx.reference) and through execute and solve; outputs must agree
    (``valued``: the inputs whose values the solver sees, as a constant axes input; ``fresh``: output
    dims that depend on values, as Unique's count, may be fresh symbols)."""
    feeds = {n: a for n, a in inputs if a is not None}
    if reference:
        want = run_reference(op, opset, inputs, attrs, out_types)
    else:
        want = run_ort(op, opset, inputs, attrs, out_types)
    got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types)).values())
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
        t = max(tol, 2e-2) if w.dtype == np.float16 else tol
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=t, atol=t)
    spec = REG.resolve(op, opset)
    types = {n: type_of(a, n in valued) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    for t, w in zip(res.outputs.values(), want):
        if fresh:
            check_inferred(t, w, {}, False)               # every dim it states is the run's; fresh ones are free
        else:
            assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_of(w))
    if symbolic:                                         # again with every dim (and small int value) a symbol
        types, subs = symbolic_query(dict(inputs), set(valued))
        res = solve(spec, types, attrs, output_count=len(out_types))
        assert res.status in ("valid", "conditional"), (types, res.violations)
        for t, w in zip(res.outputs.values(), want):
            check_inferred(t, w, subs, False)
    return want


def against(op: str, opset: int, inputs: list, attrs: dict, out_types: list[int], runtimes: tuple, **kw) -> None:
    """``compare`` with each runtime named in ``runtimes`` (``"ort"`` onnxruntime, ``"ref"`` onnx.reference):
    the ones that run this version of the op (runtime-findings says which)."""
    assert runtimes, f"{op}-{opset}: name the runtimes that run it"
    for r in runtimes:
        compare(op, opset, inputs, attrs, out_types, reference=(r == "ref"), **kw)


def compare_in_domain(op: str, opset: int, inputs: list, attrs: dict, out_types: list, *, domain: str = "",
            execute: bool = True, tol: float = 1e-4) -> None:
    """onnxruntime against execute (values) and solve (types, concrete and symbolic)."""
    want = run_ort(op, opset, inputs, attrs, out_types, domain)
    feeds = {n: a for n, a in inputs if a is not None}
    spec = REG.resolve(op, opset, domain or None)
    if execute:
        got = list(shapecheck.execute(op, opset, feeds, attrs, output_count=len(out_types), domain=domain or None).values())
        got = [g for g, t in zip(got, out_types) if t is not None]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, (op, g.dtype, g.shape, w.dtype, w.shape)
            t = 2e-2 if w.dtype == np.float16 else tol
            low = float(np.finfo(w.dtype).min)   # MS4: onnxruntime writes a masked score as the lowest finite value
            np.testing.assert_allclose(np.maximum(g.astype(np.float64), low), np.maximum(w.astype(np.float64), low),
                                       rtol=t, atol=t)
    types = {n: type_of(a) for n, a in feeds.items()}
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status == "valid", (res.violations, res.conditions)
    wanted = [w for w in want]
    outs = [t for t, o in zip(res.outputs.values(), out_types) if o is not None]
    for t, w in zip(outs, wanted):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_of(w))
    name, arr = inputs[0]                     # again with the first input's dims as symbols
    types[name] = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
    res = solve(spec, types, attrs, output_count=len(out_types))
    assert res.status in ("valid", "conditional"), res.violations
    outs = [t for t, o in zip(res.outputs.values(), out_types) if o is not None]
    for t, w in zip(outs, wanted):
        assert t.shape is not None, str(t)
        check_inferred(t, w, {symbol(f"D{i}"): n for i, n in enumerate(arr.shape)}, False)


def compare_one(op: str, opset: int, inputs: list, attrs: dict, *, valued: tuple = (), tol: float = 0.0,
            out_dtype=None) -> np.ndarray:
    """Run one node in onnxruntime, through execute and through the solver; all must agree."""
    variadic = op == "Einsum"
    dt = np.dtype(out_dtype or inputs[0][1].dtype)
    want = run_ort(op, opset, inputs, attrs, [helper.np_dtype_to_tensor_dtype(dt)])[0]
    given = [(n, a) for n, a in inputs if a is not None]
    feeds = {"Inputs": [a for _, a in given]} if variadic else dict(given)
    got = list(shapecheck.execute(op, opset, feeds, attrs).values())[0]
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if tol and want.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)
    spec = REG.resolve(op, opset)
    if variadic:
        types = {"Inputs": [type_of(a) for a in feeds["Inputs"]]}
    else:
        types = {n: (a if n in valued else type_of(a)) for n, a in feeds.items()}
    res = solve(spec, types, attrs)
    assert res.status == "valid", (res.violations, res.conditions)
    t = list(res.outputs.values())[0]
    assert t.dtype == dtype_of_array(want) and t.shape == want.shape, (str(t), type_of(want))
    arr = given[0][1]
    if arr.ndim:                                       # again with the first input's dims as symbols
        sym = f"{dtype_of_array(arr)}[{','.join(f'D{i}' for i in range(arr.ndim))}]"
        if variadic:
            types["Inputs"][0] = sym
        else:
            types[given[0][0]] = sym
        res = solve(spec, types, attrs)
        assert res.status in ("valid", "conditional"), res.violations
        t = list(res.outputs.values())[0]
        assert t.shape is not None and len(t.shape) == want.ndim, (str(t), want.shape)
        sub = {symbol(f"D{i}"): n for i, n in enumerate(arr.shape)}
        for d, n in zip(t.shape, want.shape):
            if isinstance(d, sympy.Basic) and any(is_unknown(s) for s in d.free_symbols):
                continue
            assert sympy.sympify(d).xreplace(sub) == n, (str(t), want.shape, sub)
    return want


def _type_named(a: np.ndarray, prefix: str | None = None) -> str:
    dims = [f"{prefix}{i}" for i in range(a.ndim)] if prefix else [str(d) for d in a.shape]
    return f"{dtype_of_array(a)}[{','.join(dims)}]"


def _fresh(d) -> bool:
    return isinstance(d, sympy.Basic) and any(is_unknown(s) for s in d.free_symbols)


def check_views(op: str, opset: int, inputs: list, attrs: dict, n_out: int = 1, out_types: list | None = None,
          valued: tuple = ()) -> list[np.ndarray]:
    """Run ``op`` in onnxruntime, shapecheck.execute and the solver; every view must agree."""
    first = helper.np_dtype_to_tensor_dtype(inputs[0][1].dtype)
    want = run_ort(op, opset, inputs, attrs, out_types or [first] * n_out)
    feeds = {n: a for n, a in inputs if a is not None}
    got = list(shapecheck.execute(op, opset, feeds, attrs).values())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)
    spec = REG.resolve(op, opset)
    types = {n: (a if n in valued else type_of(a)) for n, a in feeds.items()}
    res = solve(spec, types, attrs)
    assert res.status == "valid", (res.violations, res.conditions)
    outs = list(res.outputs.values())
    for t, w in zip(outs, want):
        assert t.dtype == dtype_of_array(w) and t.shape == w.shape, (str(t), type_of(w))
    # symbolic: each input's dims as its own symbols (A_0, A_1, ... for input A); an unknown (fresh)
    # dim is sound, any other dim must evaluate to the run's size
    sub = {symbol(f"{n}_{i}"): d for n, a in feeds.items() if n not in valued for i, d in enumerate(a.shape)}
    types.update({n: _type_named(a, f"{n}_") for n, a in feeds.items() if n not in valued and a.ndim})
    res = solve(spec, types, attrs)
    assert res.status in ("valid", "conditional"), res.violations
    for t, w in zip(res.outputs.values(), want):
        assert t.shape is not None and len(t.shape) == w.ndim, (str(t), w.shape)
        known = [(d, n) for d, n in zip(t.shape, w.shape) if not _fresh(d)]
        assert all(sympy.sympify(d).xreplace(sub) == n for d, n in known), (str(t), w.shape, sub)
    return want


def _code_of(arr: np.ndarray) -> int:
    return ONNX_CODE_OF[dtype_of_array(arr)]


def run_ort_named(op: str, opset: int, inputs: dict, attrs: dict, out_dtypes: list[str], n_out: int = 1) -> list[np.ndarray]:
    """One node in a one-node model, every given input a graph input."""
    names = [n if a is not None else "" for n, a in inputs.items()]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, [f"y{i}" for i in range(n_out)], **attrs)
    feeds = {n: a for n, a in inputs.items() if a is not None}
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, _code_of(a), list(a.shape)) for n, a in feeds.items()],
                          [helper.make_tensor_value_info(f"y{i}", ONNX_CODE_OF[d], None) for i, d in enumerate(out_dtypes)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def symbolic_query(inputs: dict, valued: set) -> tuple[dict, dict]:
    """Type texts for ``infer`` and the substitution that maps their symbols to the case's numbers."""
    types, subs = {}, {}
    k = 0
    for name, a in inputs.items():
        if a is None:
            continue
        dt = dtype_of_array(a)
        if name in valued:
            types[name] = f"{dt}[{','.join(map(str, a.shape))}] = {json.dumps(np.asarray(a).tolist())}"
        elif dt in ("int64", "int32") and a.ndim <= 1 and a.size <= 8:
            elems = []
            for x in a.reshape(-1).tolist():
                if x >= 0:     # symbols stand for non-negative integers
                    s = f"v{k}"
                    k += 1
                    subs[symbol(s)] = int(x)
                    elems.append(s)
                else:
                    elems.append(str(x))
            body = elems[0] if a.ndim == 0 else "[" + ", ".join(elems) + "]"
            types[name] = f"{dt}[{','.join(map(str, a.shape))}] = {body}"
        else:
            dims = []
            for d in a.shape:
                s = f"d{k}"
                k += 1
                subs[symbol(s)] = int(d)
                dims.append(s)
            types[name] = f"{dt}[{','.join(dims)}]"
    return types, subs


def _num(d, subs) -> int:
    return int(d) if type(d) is int else int(sympy.sympify(d).subs(subs))


def check_inferred(t: TensorType, got, subs: dict, want_value: bool) -> None:
    """The inferred type agrees with the run: dtype, every dim it states, and a value it states; a
    sequence's length and each element (what every element is, or each one's own type), an
    optional's element and whether it holds one."""
    if isinstance(t, SequenceType):
        assert isinstance(got, list), (str(t), type(got))
        assert t.length is None or type(t.length) is not int or t.length == len(got), (str(t), len(got))
        for k, g in enumerate(got):
            check_inferred(t.items[k] if t.items is not None else t.elem, g, subs, False)
        return
    if isinstance(t, MapType):
        assert isinstance(got, dict), (str(t), type(got))
        assert all(isinstance(k, str if t.key == "string" else int) for k in got), (str(t), list(got)[:3])
        return
    if isinstance(t, OptionalType):
        inner = got.value if isinstance(got, OptionalValue) else got
        assert t.present is None or t.present == (inner is not None), (str(t), inner)
        if inner is not None:
            check_inferred(t.elem, inner, subs, False)
        return
    assert t.dtype == dtype_of_array(got), (str(t), got.dtype)
    if t.shape is not None:
        assert len(t.shape) == got.ndim, (str(t), got.shape)
        for d, n in zip(t.shape, got.shape):
            if not (isinstance(d, sympy.Basic) and any(isinstance(s, sympy.Dummy) or s not in subs
                                                        for s in d.free_symbols)):   # a symbol no run binds
                assert _num(d, subs) == n, (str(t), got.shape)
    elems = t.elements()
    if elems is not None:
        for e, g in zip(elems, got.reshape(-1).tolist()):
            if not isinstance(e, sympy.Dummy):          # an element known only at run time
                assert (e if isinstance(e, bool) else _num(e, subs)) == g, (str(t), got.tolist())
    elif t.value is not None:
        np.testing.assert_array_equal(t.value, got)
    if want_value and got.ndim <= 1:
        assert elems is not None or t.value is not None, f"{t} lost the value {got.tolist()}"


def assert_same(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (ours.dtype, ours.shape, theirs.dtype, theirs.shape)
    if ours.dtype.kind == "f" or ours.dtype == BF16:
        np.testing.assert_array_equal(ours.astype(np.float64), theirs.astype(np.float64))
    else:
        np.testing.assert_array_equal(ours, theirs)


def check_case(op: str, opset: int, inputs: dict, attrs: dict, valued: set, keeps_value: bool = False) -> None:
    """execute == onnxruntime, and infer (symbolic) agrees with both."""
    ours = shapecheck.execute(op, opset, {k: v for k, v in inputs.items() if v is not None}, attrs)
    outs = list(ours.values())
    theirs = run_ort_named(op, opset, inputs, attrs, [dtype_of_array(o) for o in outs], len(outs))
    for o, t in zip(outs, theirs):
        assert_same(o, t)
    types, subs = symbolic_query(inputs, valued)
    r = shapecheck.infer(op, opset, types, attrs)
    assert r.status in ("valid", "conditional"), (types, r.violations)
    for (name, t), got in zip(r.outputs.items(), theirs):
        check_inferred(t, got, subs, keeps_value and any(isinstance(s, sympy.Symbol) and s.name.startswith("v") for s in subs))


def values(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    if dtype == "string":
        return np.array(rng.choice(list("abcdef"), size=shape), dtype=object).reshape(shape)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in ("int64", "int32", "int8", "int16", "uint8", "uint16", "uint32", "uint64"):
        lo = 0 if dtype.startswith("u") else -5
        return np.asarray(rng.integers(lo, 9, size=shape)).astype(dtype)
    return np.asarray(rng.integers(-16, 17, size=shape) / 4).astype(dtype)


# ---------------------------------------------------------------- sequences, optionals, maps

def _value_info(name: str, v):
    """The ValueInfoProto of an input value: a tensor, a list (a sequence), an ``OptionalValue``, a dict (a map)."""
    if isinstance(v, list):
        elem = v[0] if v else np.zeros(0, np.float32)
        return helper.make_value_info(name, helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(code(elem.dtype) if elem.dtype != object else 8, None)))
    if isinstance(v, OptionalValue):
        inner = v.value if v.value is not None else np.zeros(0, np.float32)
        elem = helper.make_value_info("e", _value_info("e", inner).type).type
        return helper.make_value_info(name, helper.make_optional_type_proto(elem))
    if isinstance(v, dict):
        t = type_of_value(v)
        return helper.make_value_info(name, helper.make_map_type_proto(ONNX_CODE_OF[t.key], helper.make_tensor_type_proto(
            ONNX_CODE_OF[t.value_type.dtype or "float"], None)))
    a = np.asarray(v)
    return helper.make_tensor_value_info(name, code(a.dtype) if a.dtype != object else 8, None)


def container_model(op: str, opset: int, inputs: list, attrs: dict, n_out: int = 1, domain: str = "",
                    domain_version: int = 1) -> bytes:
    """A one-node model whose inputs may be sequences, optionals or maps; outputs of any type."""
    names = [n if v is not None else "" for n, v in inputs]
    node = helper.make_node(op, names, [f"out{i}" for i in range(n_out)], domain=domain, **attrs)
    graph = helper.make_graph([node], "g", [_value_info(n, v) for n, v in inputs if v is not None],
                              [helper.make_empty_tensor_value_info(f"out{i}") for i in range(n_out)])
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(domain, domain_version)] if domain else [])
    return helper.make_model(graph, opset_imports=imports, ir_version=10).SerializeToString()


def _feed(v):
    return v.value if isinstance(v, OptionalValue) else v


def run_containers(op: str, opset: int, inputs: list, attrs: dict, n_out: int = 1, reference: bool = False,
                   domain: str = "", domain_version: int = 1) -> list:
    """The node run in onnxruntime (or onnx.reference), sequence outputs as lists, optionals as their element or None
    (onnx.reference wraps an optional's element in a list: unwrapped here where the op makes optionals)."""
    model = container_model(op, opset, inputs, attrs, n_out, domain, domain_version)
    feeds = {n: _feed(v) for n, v in inputs if v is not None}
    if reference:
        return ReferenceEvaluator(model).run(None, feeds)
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def same_value(ours, theirs, tol: float | None = None) -> None:
    """Values equal, lists element by element; an ``OptionalValue`` is its element (None when empty)."""
    ours = ours.value if isinstance(ours, OptionalValue) else ours
    if isinstance(theirs, list) or isinstance(ours, list):
        assert isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            same_value(a, b, tol)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), (ours, theirs)
        for k in theirs:
            assert abs(float(ours[k]) - float(theirs[k])) <= (tol or 0) * (1 + abs(float(theirs[k]))), (k, ours, theirs)
    elif theirs is None or ours is None:
        assert ours is None and theirs is None, (ours, theirs)
    else:
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        if ours.dtype.kind in "OUS" and theirs.dtype.kind in "OUS":   # onnx.reference's strings may be numpy's
            assert ours.shape == theirs.shape and ours.tolist() == theirs.tolist(), (ours, theirs)
            return
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (ours.dtype, ours.shape, theirs.dtype, theirs.shape)
        if tol is None or ours.dtype.kind not in "fc":
            np.testing.assert_array_equal(ours, theirs)
        else:
            np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def check_containers(op: str, opset: int, inputs: list, attrs: dict, *, n_out: int = 1, reference: bool = True,
                     domain: str = "", domain_version: int = 1, tol: float | None = None,
                     ort_values: bool = True) -> list:
    """``shapecheck.execute`` against onnxruntime (and onnx.reference where ``reference``), then the solver's types
    on the inputs' own types (each element's where a sequence's are known) and on what every element is
    (a sequence's length unknown): every type it states agrees with the run.  ``ort_values`` False: where
    onnxruntime's values differ from onnx.reference's (a finding), only its element types and shapes."""
    want = run_containers(op, opset, inputs, attrs, n_out, domain=domain, domain_version=domain_version)
    spec = REG.resolve(op, domain_version if domain else opset, domain or None)
    feeds = _grouped(spec, {n: v for n, v in inputs if v is not None})
    got = list(shapecheck.execute(op, spec.version, feeds, attrs, domain=domain or None,
                                  output_count=n_out).values())
    for g, w in zip(got, want):
        if ort_values:
            same_value(g, w, tol)
        else:
            assert np.asarray(g).dtype == np.asarray(w).dtype and np.shape(g) == np.shape(w), (g, w)
    if reference:
        ref = run_containers(op, opset, inputs, attrs, n_out, reference=True, domain=domain, domain_version=domain_version)
        for g, r in zip(got, ref):
            same_value(g, r[0] if isinstance(g, OptionalValue) and isinstance(r, list) else r, tol)
    exact = {n: [type_of_value(x) for x in v] if n in {i.name for i in spec.inputs if i.variadic} else type_of_value(v)
             for n, v in feeds.items()}
    loose = {n: (SequenceType(t.elem) if isinstance(t, SequenceType) else t) for n, t in exact.items()}
    for types in (exact, loose):
        res = solve(spec, types, attrs, output_count=n_out)
        assert res.status in ("valid", "conditional"), ([str(v) for v in res.violations], res.conditions)
        for t, w in zip(res.outputs.values(), want):
            check_inferred(t, w, {}, False)
    return want


def _grouped(spec, types: dict) -> dict:
    """A variadic input's tensors (given one by one, x0, x1, ...) as the spec's one input."""
    variadic = [i.name for i in spec.inputs if i.variadic]
    if not variadic or variadic[0] in types or not types:
        return types
    fixed = {i.name for i in spec.inputs}
    rest = [t for n, t in types.items() if n not in fixed]
    return {**{n: t for n, t in types.items() if n in fixed}, variadic[0]: rest}
