"""The solve cache answers as ``solve`` would: the cached, renamed and value-stripped results of
real models' queries equal fresh solves of the full queries.

The cache keys a query by the values only of the inputs some rule of the spec reads
(``Spec.value_reads``), so that the MatMuls of a decoder's layers, whose weights differ,
share one result.  These tests would fail if a rule read contents that ``value_reads``
misses, or if renaming a cached result back changed it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from shapecheck.model.check import check_model
from shapecheck.registry import default_registry
from shapecheck.solver.cache import SolveCache
from shapecheck.solver import solve
from shapecheck.types import TensorType, parse_type

ROOT = Path(__file__).resolve().parent
MODELS = [ROOT / "fixtures" / "exports" / "gpt2_dynamo18.onnx", ROOT / "fixtures" / "exports" / "kv_setitem_ts17.onnx",
          ROOT / "fixtures" / "zoo" / "cnn_ts14.onnx"]


class _Recorder(SolveCache):
    def __init__(self):
        super().__init__()
        self.queries: list = []

    def solve(self, spec, types, attrs, *, items=False, **kw):
        self.queries.append((spec, types, attrs, kw))
        return super().solve(spec, types, attrs, items=items, **kw)


def _facts(r, values: bool = True) -> tuple:
    outputs = {k: str(v) if values else (v.dtype, v.shape_str()) for k, v in r.outputs.items()}
    return (r.status, outputs, list(r.conditions), [(f.constraint, f.message) for f in r.violations],
            [c.status for c in r.constraints])


def _strip(types: dict, keep: frozenset) -> dict:
    def one(t):
        return t if t.value is None and t.sym is None else TensorType(t.dtype, t.shape)
    return {n: t if n in keep else (tuple(one(x) for x in t) if isinstance(t, tuple) else one(t))
            for n, t in types.items()}


@pytest.fixture(scope="module")
def recorded():
    registry = default_registry()
    saved = getattr(registry, "solve_cache", None)
    registry.solve_cache = rec = _Recorder()
    try:
        for path in MODELS:
            assert path.exists(), path
            check_model(str(path), registry=registry)
    finally:
        registry.solve_cache = saved
    return rec.queries


def test_models_ask_queries_with_unread_values(recorded):
    """The corpus exercises the stripping: weights and constants no rule reads."""
    unread = [q for q in recorded if any(n not in q[0].value_reads and
                                         any(x.value is not None for x in (t if isinstance(t, tuple) else (t,)))
                                         for n, t in q[1].items())]
    assert len(unread) > 20


def test_cached_results_equal_fresh_solves(recorded):
    """Equal verdicts and shapes; equal values, except weights' contents, which are not passed on."""
    cache = SolveCache()
    dropped = 0
    for spec, types, attrs, kw in recorded:
        fresh = solve(spec, types, attrs, **kw)
        cached = cache.solve(spec, types, attrs, **kw)
        assert _facts(cached, values=False) == _facts(fresh, values=False), (spec.name, types)
        for k, t in cached.outputs.items():
            want = fresh.outputs[k]
            if str(t) != str(want):
                assert t.value is None and t.sym is None and want.value is not None, (spec.name, k, t, want)
                assert want.value.dtype.kind not in "iub" or want.value.size > 4096, (spec.name, k, want)
                dropped += 1
    assert cache.misses < len(recorded)


def test_values_outside_value_reads_change_no_verdict_and_no_shape(recorded):
    """Only output values may depend on the contents of inputs outside ``value_reads``."""
    for spec, types, attrs, kw in recorded:
        full = solve(spec, types, attrs, **kw)
        stripped = solve(spec, _strip(types, spec.value_reads), attrs, **kw)
        assert _facts(stripped, values=False) == _facts(full, values=False), (spec.name, sorted(spec.value_reads), types)


def test_value_reads_lists_what_the_rules_read():
    reg = default_registry()
    reshape = reg.resolve("Reshape", 14)
    assert reshape.value_reads == {"shape"} and reshape.value_passes == {"data"}   # data's value is passed on
    assert "indices" in reg.resolve("Gather", 13).value_reads
    assert reg.resolve("Shape", 15).value_reads == reg.resolve("Shape", 15).value_passes == frozenset()
    # a weight's value: two Convs whose W differ only in contents share one cached result
    cache = SolveCache()
    spec = reg.resolve("Conv", 11)
    assert "W" not in spec.value_reads
    import numpy as np
    x = parse_type("float[N,3,8,8]")
    w1 = TensorType("float", (4, 3, 3, 3), np.zeros((4, 3, 3, 3), np.float32))
    w2 = TensorType("float", (4, 3, 3, 3), np.ones((4, 3, 3, 3), np.float32))
    a = cache.solve(spec, {"X": x, "W": w1}, {})
    b = cache.solve(spec, {"X": x, "W": w2}, {})
    assert cache.misses == 1 and str(a.outputs["Y"]) == str(b.outputs["Y"]) == "float[N,4,6,6]"


def test_the_models_opset_labels_a_shared_result():
    """The ts14 and ts17 exports of one model ask the same queries: one solve, each result
    labelled with the opset it was asked at, as a fresh solve labels it."""
    spec = default_registry().resolve("ScatterND", 18)
    q = {"data": parse_type("float[N,4]"), "indices": parse_type("int64[M,1]"), "updates": parse_type("float[K,4]")}
    cache = SolveCache()
    a, b = cache.solve(spec, q, {}, opset=18), cache.solve(spec, q, {}, opset=21)
    assert cache.misses == 1
    assert (a.opset, b.opset) == (18, 21) == (solve(spec, q, {}, opset=18).opset, solve(spec, q, {}, opset=21).opset)
    assert a.to_dict() | {"opset": 21} == b.to_dict()
    assert cache.solve(spec, q, {}, opset=18) is a


def test_has_unknowns_marks_results_whose_outputs_hold_unknown_dims():
    """The forward pass skips making unknowns a node's own for results without any; a result
    with one (from an input or made by the solve, here NonZero's count) must say so."""
    nonzero = solve(default_registry().resolve("NonZero", 13), {"X": parse_type("float[N,3]")}, {})
    assert nonzero.has_unknowns
    relu = solve(default_registry().resolve("Relu", 14), {"X": parse_type("float[N,3]")}, {})
    assert not relu.has_unknowns
    unknown_in = solve(default_registry().resolve("Relu", 14), {"X": parse_type("float[?,3]")}, {})
    assert unknown_in.has_unknowns
