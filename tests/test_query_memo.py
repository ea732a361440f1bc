"""Reuse must not change an answer.  The model check remembers a node's query by the identity of
its input types (``ForwardPass._solved``) and a node's whole effect by the same key
(``model/replay.py``); equal source types are one object (``replay.interned``), so a decoder's
layers ask the same queries of the same objects.  Every model of the corpora, and decoders
stacked from the exports as ``bench/make_decoder.py`` stacks them, are checked with reuse on,
with the query memo alone, and with neither, and the reports must be equal.
(``SHAPECHECK_REUSE=0`` runs the whole suite without either.)
"""
from __future__ import annotations

import importlib.util

import onnx
import pytest
from hypothesis import given, settings, strategies as st

import shapecheck
from shapecheck.model import forward, replay
from shapecheck.solver.cache import SolveCache
from tests.harness.corpora import ROOT, corpus_models
from tests.harness.fresh import _report

# (query memo, node replay): reuse on, the memo alone, none
CONFIGS = ((True, True), (True, False), (False, False))


def _make_decoder():
    spec = importlib.util.spec_from_file_location("make_decoder", ROOT / "bench" / "make_decoder.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _each(model, monkeypatch) -> dict[tuple, tuple[str, int, int]]:
    """Per configuration: (the report as text, the cache's calls, the nodes replayed)."""
    solve, again = SolveCache.solve, forward.replay
    out = {}
    for memo, replays in CONFIGS:
        calls = {"solve": 0, "replay": 0}

        def counted(self, *a, _c=calls, **k):
            _c["solve"] += 1
            return solve(self, *a, **k)

        def replayed(*a, _c=calls):
            _c["replay"] += 1
            return again(*a)
        monkeypatch.setattr(SolveCache, "solve", counted)
        monkeypatch.setattr(forward, "replay", replayed)   # the long way through the pass's steps
        monkeypatch.setattr(replay, "replay", replayed)    # the short way (replay.replayed)
        monkeypatch.setattr(forward, "MEMO", memo)
        monkeypatch.setattr(replay, "REPLAY", replays)
        out[(memo, replays)] = (_report(shapecheck.check_model(model)), calls["solve"], calls["replay"])
    monkeypatch.setattr(SolveCache, "solve", solve)
    monkeypatch.setattr(forward, "replay", again)
    monkeypatch.setattr(replay, "replay", again)
    return out


@pytest.mark.parametrize("layer", ["kv_setitem_ts17", "kv_index_copy_ts17", "llama_ts17", "gpt2_dynamo18"])
def test_a_stacked_decoder_reuses_its_queries_and_answers_the_same(layer, monkeypatch):
    src = onnx.load(str(ROOT / "tests" / "fixtures" / "exports" / f"{layer}.onnx"))
    if layer.startswith("kv_"):
        model = _make_decoder().stack(src, 4)
    else:
        model = src
    del model.graph.value_info[:]
    got = _each(model, monkeypatch)
    reports = {text for text, _, _ in got.values()}
    assert len(reports) == 1
    on, memo_only, off = (got[c] for c in CONFIGS)
    # the memo answers a repeated query without asking the cache (a four-layer stack repeats most), and
    # a replayed node asks nothing at all; without reuse, nothing is replayed
    assert memo_only[1] < off[1] and on[1] <= memo_only[1]
    assert memo_only[2] == off[2] == 0
    if layer.startswith("kv_"):
        assert memo_only[1] <= off[1] // 2
        nodes = len(model.graph.node) - sum(n.op_type == "Constant" for n in model.graph.node)
        assert on[2] >= nodes // 2   # from the second layer on, a layer's nodes are replayed


def test_a_replayed_nodes_report_reads_copies_and_pickles_as_one_checked_in_full(monkeypatch):
    import pickle

    from shapecheck.model.reports import NodeReport
    model = _make_decoder().stack(onnx.load(str(ROOT / "tests" / "fixtures" / "exports" / "kv_setitem_ts17.onnx")), 3)
    del model.graph.value_info[:]
    monkeypatch.setattr(replay, "REPLAY", True)   # as the suite runs it, and with SHAPECHECK_REUSE=0
    on = shapecheck.check_model(model)
    monkeypatch.setattr(replay, "REPLAY", False)
    off = shapecheck.check_model(model)
    replayed = [k for k, n in enumerate(on.nodes) if type(n) is replay.Replayed]
    assert len(replayed) >= len(on.nodes) // 3 and all(type(n) is NodeReport for n in off.nodes)
    kept = on.without(lambda constraint, spec: False)
    for k in replayed:
        n, full = on.nodes[k], off.nodes[k]
        assert n.to_dict() == full.to_dict() and n.output_types.keys() == full.output_types.keys()
        copy = pickle.loads(pickle.dumps(n))   # a worker's report crosses to its parent
        assert type(copy) is NodeReport and copy.to_dict() == full.to_dict()
        assert type(kept.nodes[k]) is NodeReport and kept.nodes[k].to_dict() == full.to_dict()
        assert n == n.plain() and n.plain() == n


def test_every_corpus_model_answers_the_same_without_reuse(monkeypatch):
    differ = []
    for path in corpus_models():
        got = _each(path, monkeypatch)
        if len({text for text, _, _ in got.values()}) != 1:
            differ.append(path)
    assert not differ, differ


def test_a_check_for_types_alone_gives_every_model_the_same_types():
    # annotate reads only the types, and its check adds no report for a replayed node
    # (check_graph's types_only): every corpus model and a stacked decoder get the same types,
    # tensor by tensor, and only the replayed nodes' reports are left out
    from shapecheck.model.check import load_graph, run_checks
    from shapecheck.registry import default_registry
    registry = default_registry()
    stacked = _make_decoder().stack(onnx.load(str(ROOT / "tests" / "fixtures" / "exports" / "kv_setitem_ts17.onnx")), 3)
    del stacked.graph.value_info[:]
    left_out = 0
    for model in [*corpus_models(), stacked]:
        full = run_checks(load_graph(model, registry), registry)
        alone = run_checks(load_graph(model, registry), registry, types_only=True)
        assert {k: str(t) for k, t in alone.types.items()} == {k: str(t) for k, t in full.types.items()}, model
        assert [n.to_dict() for n in alone.nodes] == [n.to_dict() for n in full.nodes if type(n) is not replay.Replayed]
        left_out += len(full.nodes) - len(alone.nodes)
    assert left_out > 100 or not replay.REPLAY


def test_equal_sources_are_one_object_and_weights_keep_theirs():
    import numpy as np

    from shapecheck.types import TensorType, tensor_type_of

    shape_a, shape_b = tensor_type_of(np.array([2, 3], np.int64)), tensor_type_of(np.array([2, 3], np.int64))
    big_a = tensor_type_of(np.zeros(5000, np.float32))
    big_b = tensor_type_of(np.zeros(5000, np.float32))
    x, y = TensorType("float", (4,)), TensorType("float", (4,))
    got = replay.interned({"a": shape_a, "b": shape_b, "w1": big_a, "w2": big_b, "x": x, "y": y})
    assert got["a"] is got["b"] is shape_a and got["x"] is got["y"] is x
    assert got["w1"] is big_a and got["w2"] is big_b
    # a different element type or value is another type
    other = replay.interned({"a": shape_a, "c": tensor_type_of(np.array([2, 3], np.int32)),
                              "d": tensor_type_of(np.array([2, 4], np.int64))})
    assert len({id(t) for t in other.values()}) == 3


@pytest.mark.parametrize("layer", ["kv_setitem_ts17", "yolo_anchors_ts17", "loop_stack_ts17"])
def test_an_annotated_copy_writes_each_tensors_own_type(layer):
    # annotate writes a type shared by many tensors once and copies it to the others: each
    # value_info must still be what that tensor's own type gives, written alone
    from shapecheck.frontends.onnx_write import fill_type_proto
    src = onnx.load(str(ROOT / "tests" / "fixtures" / "exports" / f"{layer}.onnx"))
    model = _make_decoder().stack(src, 3) if layer.startswith("kv_") else src
    del model.graph.value_info[:]
    types = shapecheck.check_model(model).types
    out = shapecheck.annotate(model)
    checked = 0
    for g in [out.graph] + [a.g for n in out.graph.node for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]:
        for vi in g.value_info:
            alone = onnx.TypeProto()
            fill_type_proto(alone, types[vi.name])
            assert vi.type == alone, vi.name
            checked += 1
    assert checked >= 10
    # in the order the nodes make them, as onnx's own inference writes them
    names = [vi.name for vi in out.graph.value_info]
    made = [o for n in out.graph.node for o in n.output if o in set(names)]
    assert names == made



@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=300), st.lists(st.integers(0, 2**40) | st.text(min_size=1, max_size=40),
                                                    max_size=600))
def test_a_value_info_written_as_bytes_is_the_one_protobuf_builds(name, dims):
    # annotate appends value_info entries as their wire bytes: names and types of every length (a
    # varint of one byte and of several), against the message protobuf builds field by field
    from shapecheck.frontends.onnx_write import _type_field, add_value_info
    tp = onnx.TypeProto()
    tp.tensor_type.elem_type = onnx.TensorProto.FLOAT
    for d in dims:
        dim = tp.tensor_type.shape.dim.add()
        if isinstance(d, int):
            dim.dim_value = d
        else:
            dim.dim_param = d
    g, buf = onnx.GraphProto(), bytearray()
    add_value_info(buf, name, _type_field(tp.SerializeToString()))
    add_value_info(buf, "y", _type_field(tp.SerializeToString()))   # entries follow one another
    g.MergeFromString(bytes(buf))
    want = onnx.GraphProto()
    want.value_info.add(name=name).type.CopyFrom(tp)
    want.value_info.add(name="y").type.CopyFrom(tp)
    assert g == want


_DIM = st.integers(0, 2**40) | st.sampled_from(["n", "batch", "seq*2"])


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([None, "float", "int64", "float16"]),
       st.none() | st.lists(_DIM, max_size=70), st.sampled_from(["tensor", "sequence", "none"]),
       st.lists(_DIM, max_size=4), st.sampled_from(["", "IMAGE"]), st.sampled_from(["float", "int64"]))
def test_a_graph_outputs_type_written_as_bytes_is_the_one_written_field_by_field(
        declared_dtype, declared_dims, declared_kind, dims, denotation, dtype):
    # annotate merges a tensor type's bytes into a declared graph output (onnx_write.set_output_type)
    # where it used to write it field by field (fill_type_proto): over every declared form (a tensor of
    # another shape or type or of no shape, a sequence, nothing), the two must write the same message
    from onnx import helper
    from shapecheck.frontends.onnx_write import _type_bytes, fill_type_proto, set_output_type
    from shapecheck.types import TensorType
    if declared_kind == "tensor":
        tp = helper.make_tensor_type_proto(onnx.TensorProto.DOUBLE if declared_dtype else 0, declared_dims)
    elif declared_kind == "sequence":
        tp = helper.make_sequence_type_proto(helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, declared_dims))
    else:
        tp = onnx.TypeProto()
    tp.denotation = denotation
    t = TensorType(dtype, tuple(dims))
    by_fields, by_bytes = onnx.TypeProto(), onnx.TypeProto()
    by_fields.CopyFrom(tp)
    by_bytes.CopyFrom(tp)
    fill_type_proto(by_fields, t)
    set_output_type(by_bytes, t, _type_bytes(t))
    assert by_bytes == by_fields


def test_a_replay_is_keyed_by_the_facts_and_the_inputs_identity():
    # a node's effect depends on the facts that settle its dims: a learned fact, or a walk restored to
    # an earlier state, is a new generation, and never one seen before
    from shapecheck.dims import symbol
    from shapecheck.frontends.graph import ModelNode
    from shapecheck.model.facts import Facts
    from shapecheck.notation import Rel
    from shapecheck.registry import default_registry
    from shapecheck.types import TensorType

    seq = symbol("seq")
    facts = Facts([seq])
    first = facts.generation
    saved = facts.snapshot()
    assert facts.learn(Rel("<=", seq, 64)) and facts.generation != first
    learned = facts.generation
    assert not facts.learn(Rel("<=", seq, 100)) and facts.generation == learned   # nothing new: the same state
    facts.restore(saved)
    assert facts.generation not in (first, learned)

    spec = default_registry().resolve("Relu", 14)
    node = ModelNode("r", "Relu", "ai.onnx", 14, ["x"], ["y"], {})
    x, same = TensorType("float", (seq,)), TensorType("float", (seq,))
    replays = replay.Replays(on=True)
    key = lambda env, generation, r=replays: r.find(spec, node, (), env, generation)[0]
    assert key({"x": x}, first) == key({"x": x}, first)
    assert key({"x": x}, first) != key({"x": x}, learned)
    assert key({"x": x}, first) != key({"x": same}, first)   # an equal type is not the same object
    assert key({}, first) is None                             # an input the pass does not know
    assert replay.Replays(on=False).find(spec, node, (), {"x": x}, first) == (None, None)
    omitted = ModelNode("r", "Relu", "ai.onnx", 14, ["x", ""], ["y"], {})   # an omitted optional input
    assert replays.find(spec, omitted, (), {"x": x}, first)[0][1] == (x, 0)
    # what was recorded under a key is what a later node with that key finds
    k = replays.find(spec, node, (), {"x": x}, first)[0]
    assert replays.find(spec, node, (), {"x": x}, first)[1] is None
    replays.record(k, (), spec, None, ((x, "Relu"),), False)
    assert replays.find(spec, node, (), {"x": x}, first)[1].outputs == ((x, "Relu"),)


def test_no_node_is_replayed_where_a_tensor_is_made_twice(monkeypatch):
    # a replayed report reads its inputs' origins when it is read: a tensor made twice (G1) could have
    # another origin by then, so a model with one is checked in full (and says G1)
    from onnx import TensorProto, helper

    def model(third_output: str) -> onnx.ModelProto:
        nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["x"], ["b"]),
                 helper.make_node("Identity", ["b"], [third_output]), helper.make_node("Relu", ["x"], ["c"]),
                 helper.make_node("Add", ["a", "c"], ["y"])]
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])

    for third, replays in (("d", True), ("a", False)):
        got = _each(model(third), monkeypatch)
        assert len({text for text, _, _ in got.values()}) == 1
        assert (got[CONFIGS[0]][2] > 0) is replays, third
    assert any(v.constraint == "G1" for v in shapecheck.check_model(model("a")).violations)


@pytest.mark.parametrize("layer", ["kv_setitem_ts17", "loop_stack_ts17", "gpt2_dynamo18"])
def test_an_output_file_and_annotate_write_the_same_types(layer, tmp_path):
    # both write through annotate_proto, which decides alone what is written (onnx_write._type_bytes)
    path = str(ROOT / "tests" / "fixtures" / "exports" / f"{layer}.onnx")
    shapecheck.check_model(path, output=str(tmp_path / "out.onnx"))
    written, annotated = onnx.load(str(tmp_path / "out.onnx")), shapecheck.annotate(path)
    assert [vi.SerializeToString() for vi in written.graph.value_info] == \
        [vi.SerializeToString() for vi in annotated.graph.value_info]
    assert len(written.graph.value_info) > 5


def test_a_type_of_no_element_type_is_not_written():
    from onnx import TensorProto as T, helper

    from shapecheck.frontends.onnx_write import annotate_proto
    from shapecheck.types import TensorType
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["y"], ["z"])], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, [2])], [])
    m = helper.make_model(g)
    annotate_proto(m, {"y": TensorType(None, (2,)), "z": TensorType("float", (2,))}, subgraphs=False)
    assert [vi.name for vi in m.graph.value_info] == ["z"]
