"""Property tests: the solver's verdict and the executor agree on every drawn instance.

For every spec of the default registry, random concrete instances (valid ones and ones
broken on purpose: wrong ranks, wrong updates shapes, out-of-range axis, bad element types,
out-of-range index values, reductions a version lacks) and random symbolic queries
instantiated by ``verify`` must satisfy:

* solver valid  => the executor runs and its output has the inferred dtype and shape;
* solver refutes => the executor raises ConstraintError naming one of the refuted constraints;
* a deprecated spec is always invalid.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import shapecheck
from shapecheck.errors import ConstraintError, UsageError
from shapecheck.registry import default_registry
from shapecheck.types import numpy_dtype
from shapecheck.verify import verify
from tests.harness.models import execute_expecting_warnings

# the generators below build data/indices/updates(/axis) inputs: the element-wise and N-D scatters
# of both domains (the other new kinds have their own random tests against the runtimes)
ELEMENT_KINDS = {"scatter_elements", "scatter_elements_update"}
SPECS = [s for s in default_registry() if s.semantics.get("kind") in ELEMENT_KINDS | {"scatter_nd", "scatter_nd_update"}]
DTYPES = ["float", "double", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "bool", "string", "complex64"]
REDUCTIONS = ["none", "add", "mul", "max", "min", "sum", "prod", "mean", "sub", "foo"]
MUTATIONS = ["none", "none", "none", "rank", "updates_shape", "axis", "dtype", "updates_dtype", "index_dtype",
             "index_value", "negative_index", "reduction", "extra_attr"]


def _ids(result) -> set[str]:
    return {i for f in result.violations for i in f.constraint.split("+")}


def _array(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    if dtype == "string":
        return np.array(rng.choice(list("abcdef"), size=shape), dtype=object).reshape(shape)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    return np.asarray((rng.standard_normal(shape) * 3).astype(numpy_dtype(dtype)))


@st.composite
def concrete_cases(draw):
    """A spec, arrays and attributes: built valid from the spec's semantics kind, then maybe mutated."""
    spec = draw(st.sampled_from(SPECS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mutation = draw(st.sampled_from(MUTATIONS))
    kind = spec.semantics["kind"]
    r = draw(st.integers(1, 3))
    data_shape = tuple(draw(st.lists(st.integers(0, 4), min_size=r, max_size=r)))
    dtype = draw(st.sampled_from(sorted(spec.types[spec.inputs[0].type])))
    idx_dtype = draw(st.sampled_from(sorted(spec.types[spec.inputs[1].type])))
    attrs: dict = {}
    axis = draw(st.integers(-r, r - 1))
    if kind in ELEMENT_KINDS:
        ishape = tuple(draw(st.integers(0, 5)) if d == axis % r else draw(st.integers(0, data_shape[d]))
                       for d in range(r))
        extent = np.full(ishape, data_shape[axis], np.int64)
        ushape = ishape
    else:
        k = draw(st.integers(0, r))
        batch = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)))
        ishape = batch + (k,)
        extent = np.broadcast_to(np.asarray(data_shape[:k], np.int64), ishape)
        ushape = batch + data_shape[k:]
    lo = -extent if np.dtype(numpy_dtype(idx_dtype)).kind == "i" and draw(st.booleans()) else 0
    indices = (lo + rng.random(ishape) * (np.maximum(extent, 1) - lo)).astype(np.int64)
    inputs = {"data": _array(rng, dtype, data_shape), "indices": indices, "updates": _array(rng, dtype, ushape)}
    if mutation == "rank":
        which = draw(st.sampled_from(["data", "indices", "updates"]))
        a = inputs[which]
        inputs[which] = a[..., None] if draw(st.booleans()) or a.size == 0 else \
            (a.reshape(-1) if a.ndim > 1 else a.reshape(-1)[:1].reshape(()))
    elif mutation == "updates_shape":
        inputs["updates"] = _array(rng, dtype, tuple(d + draw(st.integers(1, 2)) for d in ushape) or (2,))
    elif mutation == "axis":
        axis = draw(st.sampled_from([r, r + 1, -r - 1, 7]))
    elif mutation == "dtype":
        other = draw(st.sampled_from(DTYPES))
        inputs["data"], inputs["updates"] = _array(rng, other, data_shape), _array(rng, other, ushape)
    elif mutation == "updates_dtype":
        inputs["updates"] = _array(rng, draw(st.sampled_from(DTYPES)), ushape)
    elif mutation == "index_dtype":
        idx_dtype = draw(st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "float"]))
    elif mutation in ("index_value", "negative_index") and indices.size:
        flat = indices.reshape(-1).copy()
        pos = draw(st.integers(0, flat.size - 1))
        ext = extent.reshape(-1)[pos]
        flat[pos] = ext + draw(st.integers(0, 3)) if mutation == "index_value" else -ext - draw(st.integers(0, 3))
        indices = flat.reshape(ishape)
    if np.dtype(numpy_dtype(idx_dtype)).kind == "u":
        indices = np.abs(indices)
    inputs["indices"] = indices.astype(numpy_dtype(idx_dtype))
    if "axis" in spec.attributes:
        attrs["axis"] = axis
    elif any(i.name == "axis" for i in spec.inputs):
        inputs["axis"] = np.array(axis if draw(st.booleans()) else [axis], dtype=np.int64)
    if mutation == "reduction" or ("reduction" in spec.attributes and draw(st.booleans())):
        attrs["reduction"] = draw(st.sampled_from(REDUCTIONS))
    if mutation == "extra_attr":
        attrs[draw(st.sampled_from(["reduction", "mode", "axis"]))] = "add"
    return spec.name, inputs, attrs


def _check_instance(spec, inputs, attrs) -> str:
    """Assert solver and executor agree on one concrete instance; returns the verdict."""
    op, version = spec.qualified_op, spec.version
    try:
        result = shapecheck.infer(op, version, inputs, attrs)
    except UsageError as exc:
        # an attribute the spec does not declare (or of the wrong type) is unusable input for both
        with pytest.raises(UsageError) as again:
            shapecheck.execute(op, version, inputs, attrs)
        assert str(again.value) == str(exc)
        return "usage"
    assert result.status in ("valid", "invalid"), f"a concrete instance cannot be {result.status}"
    if spec.deprecated:
        assert result.status == "invalid" and "deprecated" in _ids(result)
    if result.status == "valid":
        out = execute_expecting_warnings(op, version, inputs, attrs)["output"]
        want = result.outputs["output"]
        assert out.dtype == numpy_dtype(want.dtype)
        assert tuple(out.shape) == tuple(want.shape)
    else:
        with pytest.raises(ConstraintError) as err:
            shapecheck.execute(op, version, inputs, attrs)
        assert err.value.constraint in _ids(result), (err.value, result.violations)
        assert err.value.constraint in str(err.value)
    return result.status


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(concrete_cases())
def test_solver_and_executor_agree_on_concrete_instances(case):
    name, inputs, attrs = case
    _check_instance(default_registry().get(name), inputs, attrs)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.deprecated], ids=lambda s: s.name)
def test_deprecated_specs_are_always_invalid(spec):
    rng = np.random.default_rng(0)
    inputs = {"data": _array(rng, "float", (3, 3)), "indices": np.array([[0, 1, 2]]),
              "updates": _array(rng, "float", (1, 3))}
    assert _check_instance(spec, inputs, {}) == "invalid"


DIM_POOL = ["N", "C", "M", "K", "?", "1", "2", "3", "2*M"]


@st.composite
def symbolic_queries(draw):
    """A spec and a symbolic query: dims drawn from a pool of symbols, unknowns and constants."""
    spec = draw(st.sampled_from(SPECS))
    dims = st.sampled_from(DIM_POOL)
    dtype = draw(st.sampled_from(sorted(spec.types[spec.inputs[0].type])))
    idx_dtype = draw(st.sampled_from(sorted(spec.types[spec.inputs[1].type])))

    def ttype(elem, rank):
        if rank is None:
            return elem
        return f"{elem}[{','.join(draw(dims) for _ in range(rank))}]"

    r = draw(st.integers(1, 3))
    inputs = {"data": ttype(dtype, r),
              "indices": ttype(idx_dtype, draw(st.sampled_from([None, 1, 2, r]))),
              "updates": ttype(draw(st.sampled_from([dtype, dtype, "?"])), draw(st.sampled_from([None, 1, 2, r])))}
    attrs: dict = {}
    if "axis" in spec.attributes:
        attrs["axis"] = draw(st.integers(-r, r - 1))
    elif any(i.name == "axis" for i in spec.inputs):
        inputs["axis"] = draw(st.sampled_from(["int64[]", "int64[] = 0", "int64[1] = [-1]", "int32[1]"]))
    if "reduction" in spec.attributes and draw(st.booleans()):
        attrs["reduction"] = draw(st.sampled_from(REDUCTIONS[:-1]))
    return spec.name, inputs, attrs, draw(st.integers(0, 10_000))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(symbolic_queries())
def test_symbolic_queries_instantiated_at_random(query):
    name, inputs, attrs, seed = query
    spec = default_registry().get(name)
    rep = verify(spec.qualified_op, spec.version, inputs, attrs, samples=4, seed=seed)
    assert rep.ok, rep.reproducers
    if spec.deprecated:
        assert rep.status == "invalid"
    for s in rep.samples:
        # re-check each drawn instance independently of verify's own bookkeeping
        verdict = _check_instance(spec, s.arrays, attrs)
        assert s.solver.split(":")[0] == verdict
        if rep.status == "valid" and s.predicted == "valid":
            assert verdict == "valid"


def test_verify_reports_a_disagreement_with_a_reproducer(monkeypatch, capsys):
    # a kernel that drops the last axis: the executor's output no longer has the inferred shape
    from shapecheck import cli, kernels
    good = kernels.KERNELS["scatter_nd"]
    monkeypatch.setitem(kernels.KERNELS, "scatter_nd", lambda **kw: good(**kw)[..., :1])
    query = {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"}
    rep = verify("ScatterND", 18, query, {}, samples=6, seed=3)
    assert not rep.ok
    bad = [s for s in rep.samples if not s.agree]
    assert all(s.solver == "valid" and s.executor.startswith("RuntimeError") for s in bad)
    r = rep.reproducers[0]
    assert r["seed"] == 3 and set(r["inputs"]) == {"data", "indices", "updates"} and "shapecheck.execute" in r["python"]
    assert rep.to_dict()["ok"] is False
    args = ["verify", "ScatterND", "-i", "data=float[N,C]", "-i", "indices=int64[M,1]", "-i", "updates=float[M,C]",
            "--samples", "6", "--seed", "3"]
    assert cli.main(args) == 1
    assert "disagreement" in capsys.readouterr().out


def test_verify_breaks_conditions_of_a_conditional_query():
    rep = verify("ScatterElements", 18, {"data": "float[N,C]", "indices": "int64[M,K]", "updates": "float[M,C]"},
                 {"axis": 0}, samples=12, seed=0)
    assert rep.ok and rep.status == "conditional" and rep.conditions == ["C == K", "K <= C"]
    verdicts = {s.solver.split(":")[0] for s in rep.samples}
    assert verdicts == {"valid", "invalid"}
    for s in rep.samples:
        if s.solver == "valid":
            assert s.substitution["C"] == s.substitution["K"] and s.executor == f"ok float[{s.substitution['N']},{s.substitution['C']}]"
