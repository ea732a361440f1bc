"""The model check remembers a node's query by the identity of its input types
(``ForwardPass._solved``), and equal source types are one object (``forward.interned``): a
decoder's layers ask the same queries of the same objects.  Reuse must not change an answer:
every model of the corpora, and decoders stacked from the exports as ``bench/make_decoder.py``
stacks them, are checked with the memo on and off, and the two reports must be equal.
"""
from __future__ import annotations

import importlib.util

import onnx
import pytest

import shapecheck
from shapecheck.model import forward
from shapecheck.solver.cache import SolveCache
from tests.harness.corpora import ROOT, corpus_models
from tests.harness.fresh import _report


def _make_decoder():
    spec = importlib.util.spec_from_file_location("make_decoder", ROOT / "bench" / "make_decoder.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _both(model, monkeypatch) -> tuple[str, str, int, int]:
    """(report with the memo, report without, the cache's calls with, without)."""
    calls = {True: 0, False: 0}
    solve = SolveCache.solve
    texts = {}
    for on in (True, False):
        def counted(self, *a, _on=on, **k):
            calls[_on] += 1
            return solve(self, *a, **k)
        monkeypatch.setattr(SolveCache, "solve", counted)
        monkeypatch.setattr(forward, "MEMO", on)
        texts[on] = _report(shapecheck.check_model(model))
    monkeypatch.setattr(SolveCache, "solve", solve)
    return texts[True], texts[False], calls[True], calls[False]


@pytest.mark.parametrize("layer", ["kv_setitem_ts17", "kv_index_copy_ts17", "llama_ts17", "gpt2_dynamo18"])
def test_a_stacked_decoder_reuses_its_queries_and_answers_the_same(layer, monkeypatch):
    src = onnx.load(str(ROOT / "tests" / "fixtures" / "exports" / f"{layer}.onnx"))
    if layer.startswith("kv_"):
        model = _make_decoder().stack(src, 4)
    else:
        model = src
    del model.graph.value_info[:]
    with_memo, without, asked_with, asked_without = _both(model, monkeypatch)
    assert with_memo == without
    # the memo answers a repeated query without asking the cache (a four-layer stack repeats most)
    assert asked_with < asked_without
    if layer.startswith("kv_"):
        assert asked_with <= asked_without // 2


def test_every_corpus_model_answers_the_same_with_the_memo_off(monkeypatch):
    differ = []
    for path in corpus_models():
        with_memo, without, _, _ = _both(path, monkeypatch)
        if with_memo != without:
            differ.append(path)
    assert not differ, differ


def test_equal_sources_are_one_object_and_weights_keep_theirs():
    import numpy as np

    from shapecheck.types import TensorType, tensor_type_of

    shape_a, shape_b = tensor_type_of(np.array([2, 3], np.int64)), tensor_type_of(np.array([2, 3], np.int64))
    big_a = tensor_type_of(np.zeros(5000, np.float32))
    big_b = tensor_type_of(np.zeros(5000, np.float32))
    x, y = TensorType("float", (4,)), TensorType("float", (4,))
    got = forward.interned({"a": shape_a, "b": shape_b, "w1": big_a, "w2": big_b, "x": x, "y": y})
    assert got["a"] is got["b"] is shape_a and got["x"] is got["y"] is x
    assert got["w1"] is big_a and got["w2"] is big_b
    # a different element type or value is another type
    other = forward.interned({"a": shape_a, "c": tensor_type_of(np.array([2, 3], np.int32)),
                              "d": tensor_type_of(np.array([2, 4], np.int64))})
    assert len({id(t) for t in other.values()}) == 3


@pytest.mark.parametrize("layer", ["kv_setitem_ts17", "yolo_anchors_ts17", "loop_stack_ts17"])
def test_an_annotated_copy_writes_each_tensors_own_type(layer):
    # annotate writes a type shared by many tensors once and copies it to the others: each
    # value_info must still be what that tensor's own type gives, written alone
    from shapecheck.frontends.onnx_model import fill_type_proto
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
