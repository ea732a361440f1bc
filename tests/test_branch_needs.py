"""A condition a branch needs holds only where that branch runs (``DomainRelation.where_run``).

TorchScript exports ``x.squeeze(1)`` over a dynamic T as ``If(T == 1, Squeeze, Identity)``; the then
branch's Squeeze needs ``T == 1``.  A new user's trial found the domain taking that as a requirement
of every input: ``--dims T=3`` was an ``outside-domain`` error, where onnxruntime runs.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto as T, helper

import shapecheck
from tests.harness.runtime import run_model


def _squeeze_if():
    then = helper.make_graph([helper.make_node("Squeeze", ["x", "one"], ["s"])], "then", [],
                             [helper.make_tensor_value_info("s", T.FLOAT, None)])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["i"])], "else", [],
                              [helper.make_tensor_value_info("i", T.FLOAT, None)])
    nodes = [helper.make_node("Constant", [], ["one"], value=helper.make_tensor("v", T.INT64, [1], [1])),
             helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "one"], ["t"], axis=0),
             helper.make_node("Equal", ["t", "one"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["B", "T", 3])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_a_branchs_need_is_not_a_need_of_every_input(tmp_path, capsys):
    m = _squeeze_if()
    assert run_model(m, {"x": np.ones((2, 3, 3), np.float32)})[0].shape == (2, 3, 3)
    assert run_model(m, {"x": np.ones((2, 1, 3), np.float32)})[0].shape == (2, 3)
    rep = shapecheck.check_model(m)
    (need,) = [r for r in rep.domain.relations if r.where_run]
    assert need.text == "T == 1" and need.to_dict()["where_run"] is True
    assert rep.domain.sets["T"].text("T") == "T >= 1"   # it narrows no dim
    assert rep.domain.excluding({"B": 2, "T": 3}) == []
    assert rep.domain.admits({"B": 2, "T": 3}) is True    # the domain's sets hold; the branch's need is no requirement
    assert rep.domain.admits({"B": 2, "T": 1}) is True
    at3 = shapecheck.check_model(m, dims="B=2,T=3")
    assert at3.exit_code == 0 and not at3.violations, [str(v) for v in at3.violations]
    from shapecheck.cli import main
    path = str(tmp_path / "squeeze_if.onnx")
    onnx.save(m, path)
    assert main(["check", path]) == 0
    assert "T == 1    (needed by If_4/then_branch/Squeeze_6, only where its branch or loop body runs)" in \
        capsys.readouterr().out



def test_a_node_invalid_at_every_size_is_the_one_finding():
    """TorchScript writes a dilated ``padding='same'`` Conv as auto_pad SAME_UPPER with dilations 2,
    which Conv's C11 refuses (onnxruntime too, at every size).  Its output, sized as if unpadded,
    met a residual Add downstream, and the report added ``error[pinned]: H == 3``: the model does
    not run at 3 either, and the Conv is the cause."""
    rng = np.random.default_rng(0)
    w1 = helper.make_tensor("w1", T.FLOAT, [8, 2, 3, 3], rng.standard_normal(144).astype(np.float32).tolist())
    w2 = helper.make_tensor("w2", T.FLOAT, [8, 2, 1, 1], rng.standard_normal(16).astype(np.float32).tolist())
    nodes = [helper.make_node("Conv", ["x", "w1"], ["y1"], name="c1", auto_pad="SAME_UPPER", dilations=[2, 2]),
             helper.make_node("Conv", ["x", "w2"], ["y2"], name="c2"),
             helper.make_node("Add", ["y1", "y2"], ["z"], name="add")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["B", 2, "H", "W"])],
                          [helper.make_tensor_value_info("z", T.FLOAT, None)], [w1, w2])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    for h in (3, 8):
        assert run_model(m, {"x": np.ones((1, 2, h, h), np.float32)}) is None
    rep = shapecheck.check_model(m)
    assert [n.name for n in rep.nodes if n.status == "invalid"] == ["c1"]
    assert [n.violations[0].constraint for n in rep.nodes if n.status == "invalid"] == ["C11"]
    assert rep.violations == [] and rep.domain.text() == "no input size" and rep.exit_code == 1
