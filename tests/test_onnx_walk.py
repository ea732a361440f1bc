"""The reader's one walk (``frontends/onnx_walk.py``) finds what ``check_wellformed`` finds.

The walk tracks single assignment and order with two counts, and checks the graph in full only
where a count fails; the findings must be the same as the full check's on every graph: random
graphs of a few names (tensors made twice, by one node or two, or over an input or an initializer;
reads before writes; cycles; omitted outputs; tensor attributes; subgraphs), and the hostile
models of ``test_hostile``.
"""
from __future__ import annotations

import onnx
from hypothesis import given, settings, strategies as st
from onnx import TensorProto as T, helper

from shapecheck.frontends.onnx_model import _Reader
from shapecheck.frontends.graph import ModelGraph
from shapecheck.frontends.onnx_functions import Functions
from shapecheck.frontends.onnx_walk import walk_main
from shapecheck.frontends.wellformed import check_wellformed
from shapecheck.registry import default_registry

from .test_hostile import _graph_cases

NAMES = ["x", "w", "a", "b", "c", "d", ""]


def _walked(model: onnx.ModelProto):
    reader = _Reader(ModelGraph("m", "onnx", opsets={"ai.onnx": 18}), default_registry(), Functions(model))
    return walk_main(reader, model)


def _same(model: onnx.ModelProto) -> None:
    walked, produced = _walked(model)
    full = check_wellformed(model)
    assert [(f.constraint, f.message) for f in walked.violations] == [(f.constraint, f.message) for f in full.violations]
    assert walked.notes == full.notes
    assert produced == [list(n.output) for n in model.graph.node]


def _node(draw, k: int) -> onnx.NodeProto:
    ins = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2))
    outs = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2))
    kind = draw(st.sampled_from(["plain", "plain", "attr", "tensor", "body"]))
    if kind == "attr":
        return helper.make_node("Concat", ins, outs, axis=0, name=f"n{k}")
    if kind == "tensor":   # a Constant with a short tensor now and then (G4)
        value = helper.make_tensor("v", T.FLOAT, [2], b"\0" * 8, raw=True)
        value.raw_data = b"\0" * draw(st.sampled_from([4, 8]))
        return helper.make_node("Constant", [], outs, value=value)
    if kind == "body":   # a subgraph that reads what it sees of the outer graph
        inner = draw(st.sampled_from(NAMES[:-1]))
        body = helper.make_graph([helper.make_node("Identity", [inner], ["z"])], "body", [],
                                 [helper.make_tensor_value_info("z", T.FLOAT, None)])
        return helper.make_node("If", ins[:1], outs, then_branch=body, else_branch=body, name=f"if{k}")
    return helper.make_node("Relu", ins, outs)


@st.composite
def graphs(draw) -> onnx.ModelProto:
    nodes = [_node(draw, k) for k in range(draw(st.integers(0, 6)))]
    inputs = [helper.make_tensor_value_info("x", T.FLOAT, [2])]
    inits = [helper.make_tensor("w", T.FLOAT, [2], [1.0, 2.0])]
    if draw(st.booleans()):   # an initializer whose name a node may also write
        inits.append(helper.make_tensor("a", T.FLOAT, [1], [1.0]))
    g = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("c", T.FLOAT, None)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_the_walk_finds_what_the_full_check_finds(model):
    _same(model)


def test_a_walk_over_a_well_formed_graph_is_not_checked_again(monkeypatch):
    """The counts hold on a well-formed graph (omitted outputs among its nodes), so the full check,
    which a broken graph needs, is not run: the walk alone finds it sound."""
    from shapecheck.frontends import onnx_walk
    calls = []
    monkeypatch.setattr(onnx_walk, "check_wellformed", lambda m: calls.append(m))
    g = helper.make_graph([helper.make_node("Dropout", ["x"], ["y", ""]), helper.make_node("Relu", ["y"], ["z"])],
                          "g", [helper.make_tensor_value_info("x", T.FLOAT, [2])],
                          [helper.make_tensor_value_info("z", T.FLOAT, None)])
    walked, _produced = _walked(helper.make_model(g))
    assert calls == [] and walked.violations == []


def test_the_hostile_models_get_the_full_checks_findings(tmp_path):
    for case in _graph_cases(tmp_path):
        path = case["argv"][-1]
        if path.endswith(".onnx"):
            _same(onnx.load(path))


def test_a_repeated_constant_reads_as_its_first_and_keeps_the_numbering(monkeypatch):
    # a Constant whose attribute bytes a Constant before it had is given that one's type without being
    # read again (_Reader.repeat); the graph must be the one read node by node: each output's type and
    # kind, every later node's name and location (#index), a broken tensor's finding at every repeat
    from shapecheck.frontends import read_onnx
    from shapecheck.frontends.onnx_model import _Reader as Reader
    short = helper.make_tensor("v", T.FLOAT, [2], b"\0" * 8, raw=True)
    short.raw_data = b"\0" * 4
    nodes = []
    for k in range(3):
        nodes += [helper.make_node("Constant", [], [f"c{k}"], value=helper.make_tensor("v", T.INT64, [2], [1, 2])),
                  helper.make_node("Constant", [], [f"i{k}"], value_ints=[3, 4]),
                  helper.make_node("Constant", [], [f"s{k}"], value=short),
                  helper.make_node("Add", ["x", f"c{k}"], [f"y{k}"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.INT64, [2])],
                          [helper.make_tensor_value_info("y2", T.INT64, None)])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    repeat, taken = Reader.repeat, []
    monkeypatch.setattr(Reader, "repeat", lambda self, *a: taken.append(repeat(self, *a)) or taken[-1])
    fast = read_onnx(model, default_registry())
    assert taken.count(True) == 2   # c1 and c2: value_ints are no tensor, and a short tensor is never sound
    monkeypatch.setattr(Reader, "repeat", lambda self, *a: False)
    slow = read_onnx(model, default_registry())
    assert {k: (str(t), t.value.tolist() if t.value is not None else None) for k, t in fast.sources.items()} == \
        {k: (str(t), t.value.tolist() if t.value is not None else None) for k, t in slow.sources.items()}
    assert fast.source_kind == slow.source_kind and fast.sources["c2"] is fast.sources["c0"]
    assert [(n.name, n.location) for n in fast.nodes] == [(n.name, n.location) for n in slow.nodes]
    assert [f.message for f in fast.violations] == [f.message for f in slow.violations]
    assert sum(f.constraint == "G4" for f in fast.violations) == 3
