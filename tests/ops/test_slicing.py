"""The slicing ops (Slice, Split): seeded random cases against the runtimes (values, dtypes and shapes
from ``shapecheck.execute``, the solver's types on concrete and on symbolic dims) and the rules'
edges, ONNX's own node tests (``tests/harness/node_cases.py``; the per-op quirks are
``tests/ops/quirks.py``'s), and odd queries, which end in a result or a usage error."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

import shapecheck
from shapecheck.dims import symbol
from shapecheck.errors import ConstraintError
from shapecheck.functions.slicing import INT64_MAX, slice_dim, slice_values

from tests.harness.node_cases import check_node_case, family_cases, family_specs
from tests.harness.queries import check_odd_queries
from tests.harness.runtime import check_against_ort


BOUNDS = [-INT64_MAX - 1, -INT64_MAX, -9, -5, -3, -2, -1, 0, 1, 2, 3, 5, 9, INT64_MAX]


SYM_BOUNDS = [-INT64_MAX - 1, -5, -1, 0, 2, INT64_MAX]   # sympy is slow: a smaller grid on symbols


def page_len(d: int, start: int, end: int, step: int) -> int:
    """The ONNX page's Slice arithmetic (onnxruntime's too)."""
    start, end = start + d if start < 0 else start, end + d if end < 0 else end
    if step > 0:
        start, end = min(max(start, 0), d), min(max(end, 0), d)
    else:
        start, end = min(max(start, 0), d - 1), min(max(end, -1), d - 1)
    return max(0, -(-(end - start) // step))


def test_slice_dim_is_exact_on_ints_and_on_a_symbolic_dim():
    for start, end, step in itertools.product(BOUNDS, BOUNDS, (-3, -2, -1, 1, 2, 3)):
        for d in range(7):
            assert slice_dim(d, start, end, step) == page_len(d, start, end, step), (d, start, end, step)
    S = symbol("S")
    for start, end, step in itertools.product(SYM_BOUNDS, SYM_BOUNDS, (-2, -1, 1, 2)):
        sym = sympy.sympify(slice_dim(S, start, end, step))
        for d in range(6):
            assert sym.xreplace({S: d}) == page_len(d, start, end, step), (d, start, end, step, sym)


def test_slice_dim_with_symbolic_bounds():
    S, P = symbol("S"), symbol("P")
    for expr_end, step in ((P, 1), (P + 2, 2)):
        got = sympy.sympify(slice_dim(S, 1, expr_end, step))
        for s, p in itertools.product(range(6), range(6)):
            end = int(sympy.sympify(expr_end).xreplace({P: p}))
            assert got.xreplace({S: s, P: p}) == page_len(s, 1, end, step)


def test_a_slice_to_a_patch_grid_plus_its_class_token_keeps_the_grid_and_matches_onnxruntime():
    """A CvT export: ``Slice(data, 1, P*Q + 1)`` on axis 1 of ``[1, P*Q + 1, 1]``, the grid of a strided
    Conv (``P = floor((h - 3)/16) + 1``) behind its class token, the end kept as a product and the dim
    expanded by the Reshape's ``-1``.  The end is not negative (a sum of products of sizes plus one),
    so the slice is the grid, ``P*Q``, not a fresh size; checked in onnxruntime at four sizes."""
    import onnxruntime as ort
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
    inits = [nh.from_array(np.ones((1, 1, 3, 3), np.float32), "W"), nh.from_array(np.zeros((1, 1, 1), np.float32), "cls")]
    inits += [nh.from_array(np.array(v, np.int64), k) for k, v in (("i2", [2]), ("i3", [3]), ("one", [1]), ("shp", [1, -1, 1]))]
    nodes = [h.make_node("Conv", ["x", "W"], ["c"], strides=[16, 16]), h.make_node("Shape", ["c"], ["cs"]),
             h.make_node("Gather", ["cs", "i2"], ["P"], axis=0), h.make_node("Gather", ["cs", "i3"], ["Q"], axis=0),
             h.make_node("Mul", ["P", "Q"], ["PQ"]), h.make_node("Add", ["PQ", "one"], ["end"]),
             h.make_node("Reshape", ["c", "shp"], ["flat"]), h.make_node("Concat", ["cls", "flat"], ["data"], axis=1),
             h.make_node("Slice", ["data", "one", "end", "one"], ["y"])]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, [1, 1, "height", "width"])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    y = shapecheck.check_model(model).types["y"]
    assert str(y) == "float[1,(floor(height/16-3/16)+1)*(floor(width/16-3/16)+1),1]"
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for hh, ww in ((3, 3), (19, 40), (64, 64), (97, 23)):
        want = sess.run(None, {"x": np.zeros((1, 1, hh, ww), np.float32)})[0].shape
        got = shapecheck.check_model(model, dims={"height": hh, "width": ww}).types["y"].shape
        assert tuple(got) == want and want[1] == ((hh - 3) // 16 + 1) * ((ww - 3) // 16 + 1), (hh, ww, got, want)


def test_slice_values_of_a_shape_tensor():
    N = symbol("N")
    assert slice_values((N, 3, 4), (-1,), (INT64_MAX,)) == (4,)
    assert slice_values((N, 3, 4), (0,), (2,)) == (N, 3)
    assert slice_values((N, 3, 4), (-1,), (-INT64_MAX,), (0,), (-1,)) == (4, 3, N)
    r = shapecheck.infer("Slice", 13, {"data": "int64[3] = [N, 3, 4]", "starts": "int64[1] = [1]",
                                       "ends": "int64[1] = [9223372036854775807]"})
    assert str(r.outputs["output"]) == "int64[2] = [3, 4]"


def _slice_case(rng, opset: int):
    """data, and Slice-1's attributes or Slice-10's inputs (optional ones left out at random)."""
    rank = int(rng.integers(1, 4))
    shape = tuple(int(x) for x in rng.integers(0, 6, size=rank))
    data = rng.integers(-9, 10, size=shape).astype(rng.choice([np.float32, np.int64, np.int32]))
    ind = rng.choice([np.int64, np.int32])
    big = int(np.iinfo(ind).max)
    k = int(rng.integers(1, rank + 1))
    default_axes = rng.random() < 0.3
    axes = list(range(k)) if default_axes else [int(a) - (rank if rng.random() < 0.3 else 0)
                                               for a in rng.permutation(rank)[:k]]
    starts = [int(rng.choice([rng.integers(-7, 8), -big - 1, big])) for _ in axes]
    ends = [int(rng.choice([rng.integers(-7, 8), -big, big])) for _ in axes]
    if opset == 1:
        return data, dict(starts=starts, ends=ends, **({} if default_axes else {"axes": axes}))
    steps = [int(rng.choice([1, 1, 2, 3, -1, -2])) for _ in axes]
    # onnxruntime reads end == INT_MAX with a negative step as "to the start" (W1): not drawn here
    ends = [-big if e == big and st < 0 else e for e, st in zip(ends, steps)]
    arr = lambda v: np.array(v, dtype=ind)
    inputs = [("data", data), ("starts", arr(starts)), ("ends", arr(ends)),
              ("axes", None if default_axes else arr(axes))]
    if rng.random() < 0.7:
        inputs.append(("steps", arr(steps)))
    return data, inputs


@pytest.mark.parametrize("seed", range(40))
def test_slice_matches_onnxruntime(seed):
    rng = np.random.default_rng(seed)
    opset = [1, 10, 11, 13, 18][seed % 5]
    data, case = _slice_case(rng, opset)
    if opset == 1:   # onnxruntime runs opset 1 with a warning that it guarantees only opset 7 and later
        check_against_ort("Slice", opset, [("data", data)], case)
    else:
        check_against_ort("Slice", opset, case, valued=("starts", "ends", "axes", "steps"))


@pytest.mark.parametrize("seed", range(24))
def test_split_matches_onnxruntime(seed):
    rng = np.random.default_rng(100 + seed)
    opset = [2, 11, 13, 18][seed % 4]
    rank = int(rng.integers(1, 4))
    axis = int(rng.integers(-rank, rank))
    n = int(rng.integers(1, 4))
    shape = [int(x) for x in rng.integers(1, 5, size=rank)]
    form = rng.choice(["even", "split"]) if opset < 18 else rng.choice(["num", "split"])
    if form == "even":
        shape[axis] = n * int(rng.integers(0, 3))
    elif form == "num":
        shape[axis] = int(rng.integers(n, 3 * n + 1)) if n > 1 else shape[axis]
        if shape[axis] - (n - 1) * -(-shape[axis] // n) < 0:
            shape[axis] = n * 2
    data = rng.integers(-9, 10, size=shape).astype(np.float32)
    sizes = list(rng.multinomial(shape[axis], [1 / n] * n)) if form == "split" else None
    attrs: dict = {"axis": axis}
    inputs = [("input", data)]
    if form == "split" and opset < 13:
        attrs["split"] = [int(s) for s in sizes]
    elif form == "split":
        inputs.append(("split", np.array(sizes, dtype=np.int64)))
    elif form == "num":
        attrs["num_outputs"] = n
    check_against_ort("Split", opset, inputs, attrs, n_out=n, variadic=True, valued=("split",))


def test_split_of_a_shape_tensor_gives_each_part_its_dims():
    from shapecheck.solver import solve
    from shapecheck.registry import default_registry
    spec = default_registry().resolve("Split", 13)
    r = solve(spec, {"input": "int64[3] = [B, S, D]", "split": "int64[2] = [1, 2]"}, {}, output_count=2)
    assert [str(t) for t in r.outputs.values()] == ["int64[1] = [B]", "int64[2] = [S, D]"]


@pytest.mark.parametrize("op,opset,inputs,attrs,cid", [
    ("Slice", 13, {"data": np.zeros((3, 4), np.float32), "starts": np.array([0]), "ends": np.array([2]),
                   "axes": np.array([1]), "steps": np.array([0])}, {}, "C7"),
    ("Slice", 13, {"data": np.zeros((3, 4), np.float32), "starts": np.array([0, 0]), "ends": np.array([2, 2]),
                   "axes": np.array([1, -1])}, {}, "C6"),
    ("Slice", 13, {"data": np.zeros((), np.float32), "starts": np.zeros(0, np.int64), "ends": np.zeros(0, np.int64)}, {}, "C2"),
    ("Split", 13, {"input": np.zeros((7, 2), np.float32)}, {}, "C5"),
    ("Split", 18, {"input": np.zeros((1, 2), np.float32)}, {"num_outputs": 3}, "C8"),
])
def test_what_onnxruntime_rejects_is_refuted(op, opset, inputs, attrs, cid):
    n = 3 if attrs.get("num_outputs") == 3 else 2
    with pytest.raises(ConstraintError) as exc:
        shapecheck.execute(op, opset, inputs, attrs, output_count=n if op == "Split" else None)
    assert exc.value.constraint == cid


def test_int_max_end_with_a_negative_step_warns_and_follows_the_page():
    import warnings

    from shapecheck.errors import ShapeCheckWarning

    from tests.harness.runtime import run_ort
    data, starts, ends, steps = np.arange(3.0, dtype=np.float32), np.array([2]), np.array([INT64_MAX]), np.array([-1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = shapecheck.execute("Slice", 13, {"data": data, "starts": starts, "ends": ends, "steps": steps})
    assert got["output"].shape == (0,)       # the page: end clamped to d-1, nothing between 2 and 2
    assert any(issubclass(w.category, ShapeCheckWarning) and "W1" in str(w.message) for w in caught)
    ort_out = run_ort("Slice", 13, [("data", data), ("starts", starts), ("ends", ends), ("axes", None),
                                    ("steps", steps)], {}, [1])[0]
    assert ort_out.tolist() == [2.0, 1.0, 0.0]   # onnxruntime's reading (runtime-findings): if this changes, drop W1


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("slicing")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 20


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "slicing")


SPECS = family_specs("slicing")


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_odd_queries_never_raise_anything_but_usage_errors(spec):
    check_odd_queries(spec)
