"""Every graph the well-formedness checks (or onnx's per-node inference) report is one a runtime refuses.

The models are test_hostile's; here each one a finding is expected for is loaded into
onnxruntime (and onnx.checker), which must refuse it too, and each one shapecheck passes
(a negative dim read as unknown, an outer-scope read, a valid symbolic MatMul) must load.
"""
from __future__ import annotations

import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings, strategies as st

from .test_hostile import _graph_cases


def _loads(path: str) -> bool:
    try:
        ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        return True
    except Exception:  # noqa: BLE001 -- any refusal (graph resolution, type inference) counts
        return False


def _checker_accepts(path: str) -> bool:
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return True
    except Exception:  # noqa: BLE001 -- ValidationError or InferenceError
        return False


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    ort.set_default_logger_severity(3)
    return {c["id"]: c for c in _graph_cases(tmp_path_factory.mktemp("wf"))}


FINDINGS = ["self-consuming node", "two-node cycle", "two writers", "undefined input", "short raw data",
            "typed data count", "undeclared domain", "undefined in subgraph", "subgraph remakes an outer tensor",
            "matmul inner dims"]
PASSES = ["negative dim_value", "outer scope read", "sibling branches share a name", "matmul symbolic",
          "matmul unknown rank"]


@pytest.mark.parametrize("cid", FINDINGS)
def test_what_shapecheck_reports_a_runtime_refuses(cases, cid):
    case = cases[cid]
    assert case["expect"] == 1
    path = case["argv"][-1]
    assert not _loads(path) or not _checker_accepts(path)


@pytest.mark.parametrize("cid", PASSES)
def test_what_shapecheck_passes_onnxruntime_loads(cases, cid):
    case = cases[cid]
    assert case["expect"] == 0 and _loads(case["argv"][-1])


def test_a_long_cycle_is_one_short_finding_and_repeats_are_counted():
    from onnx import TensorProto as T
    from onnx import helper

    from shapecheck.frontends import check_wellformed
    V = helper.make_tensor_value_info
    n = 2000
    nodes = [helper.make_node("Relu", [f"t{i + 1}"], [f"t{i}"]) for i in range(n)]
    nodes.append(helper.make_node("Relu", ["t0"], [f"t{n}"]))          # closes the chain into a cycle
    nodes += [helper.make_node("Relu", [f"ghost{i}"], [f"g{i}"]) for i in range(50)]
    wf = check_wellformed(helper.make_model(helper.make_graph(nodes, "g", [V("x", T.FLOAT, [2])],
                                                              [V("t0", T.FLOAT, None)])))
    g2 = [f for f in wf.violations if f.constraint == "G2"]
    assert len(g2) == 1 and "cycle" in g2[0].message and "more ..." in g2[0].message and len(g2[0].message) < 800
    assert [f.constraint for f in wf.violations].count("G3") == 10
    assert "40 more G3 problems" in " ".join(wf.notes)



def test_repeated_constants_are_each_counted_and_an_omitted_input_reads_nothing():
    """A broken Constant repeated by a decoder's layers is one problem per node (the attribute bytes read
    once are only the sound ones), and an omitted optional input ("") is not an undefined tensor."""
    from onnx import TensorProto as T
    from onnx import helper

    from shapecheck.frontends import check_wellformed
    V = helper.make_tensor_value_info
    short = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[4], raw_data=b"\0" * 12)
    good = helper.make_tensor("v", T.FLOAT, [1], [1.0])
    nodes = [helper.make_node("Constant", [], [f"c{i}"], value=short) for i in range(15)]
    nodes += [helper.make_node("Constant", [], [f"g{i}"], value=good) for i in range(15)]
    nodes.append(helper.make_node("Clip", ["x", "", "g0"], ["y"]))
    wf = check_wellformed(helper.make_model(helper.make_graph(nodes, "g", [V("x", T.FLOAT, [4])],
                                                              [V("y", T.FLOAT, None)])))
    assert [f.constraint for f in wf.violations] == ["G4"] * 10 and wf.counts == {"G4": 15}
    assert "5 more G4 problems" in " ".join(wf.notes)
    assert len(wf.sound) == 1   # the sound Constant's bytes, read once for its 15 nodes


def test_every_engine_finding_id_is_registered():
    """Renderers title a finding by its registered id; an unregistered one was reported as a contradiction."""
    from shapecheck.findings import ENGINE, engine_id
    for fid in ("G1", "G2", "G3", "G4", "G5", "onnx-inference", "domain", "opset", "A1"):
        assert fid in ENGINE and engine_id(fid) == fid
    assert engine_id("first+second") == "contradiction"


@pytest.mark.parametrize("version", [13, 20, 21, 99])
def test_an_opset_newer_than_the_installed_onnx_is_a_warning(version, monkeypatch):
    # onnx is asked for its newest opset only above what every supported onnx knows (20)
    from shapecheck.frontends import wellformed
    asked = []
    real = wellformed._known_opset.__wrapped__
    monkeypatch.setattr(wellformed, "_known_opset", lambda: asked.append(1) or real())
    m = onnx.helper.make_model(onnx.helper.make_graph([], "g", [], []),
                               opset_imports=[onnx.helper.make_opsetid("", version)])
    notes = wellformed.check_wellformed(m).notes
    assert bool(asked) == (version > wellformed.KNOWN_TO_EVERY_ONNX)
    newer = version > onnx.defs.onnx_opset_version()
    assert any(f"imports opset {version} of the ai.onnx domain" in n for n in notes) == newer
    assert wellformed.KNOWN_TO_EVERY_ONNX <= onnx.defs.onnx_opset_version()


_NAMES = st.sampled_from(["x", "a", "b", "c", "d", ""])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(_NAMES, min_size=1, max_size=3), st.lists(_NAMES, min_size=1, max_size=2)),
                max_size=7))
def test_g1_g2_g3_name_what_a_brute_force_reading_of_the_graph_finds(spec):
    """Random graphs over a few names (graph input ``x``): the tensors the findings name are the ones
    read off the node list by brute force: made twice (G1), read but never made (G3), and whether some
    node reads a tensor made only after it (G2)."""
    from onnx import TensorProto as T
    from onnx import helper

    from shapecheck.frontends import check_wellformed
    nodes = [helper.make_node("Sum", ins, outs, name=f"n{k}") for k, (ins, outs) in enumerate(spec)]
    V = helper.make_tensor_value_info
    wf = check_wellformed(helper.make_model(helper.make_graph(nodes, "g", [V("x", T.FLOAT, [2])], [])))
    made = [o for _i, outs in spec for o in outs if o]
    twice = {o for o in made if made.count(o) + (o == "x") > 1}
    reads = [(k, t) for k, (ins, _o) in enumerate(spec) for t in ins if t and t != "x"]
    first = {}
    for k, (_i, outs) in enumerate(spec):
        for o in outs:
            first.setdefault(o, k)
    never = {t for _k, t in reads if t not in first}
    early = any(t in first and first[t] >= k for k, t in reads)
    named = lambda cid: {f.values["tensor"] for f in wf.violations if f.constraint == cid}
    assert named("G1") == twice
    assert named("G3") == never
    assert any(f.constraint == "G2" for f in wf.violations) == early
