"""A sequence grown inside a Loop (``model/induction.py``): TorchScript's ``torch.stack`` over a list
filled in a ``for`` loop, and bodies whose step or element the induction must refuse.

Each model runs in onnxruntime at several sizes: the sequence's length and every element's shape,
and the tensor made from it, are compared with what the check states for that size.  A dim the check
leaves unknown claims nothing; a known one must be the runtime's.
"""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T, helper

import shapecheck
from tests.harness.corpora import ROOT
from shapecheck.containers import SequenceType
from shapecheck.dims import is_symbolic, is_unknown, symbol

N = symbol("n")


def _body(nodes: list, carried_out: str = "grown", cond_out: str = "cond_out", extra_in=()) -> onnx.GraphProto:
    ins = [helper.make_tensor_value_info("i", T.INT64, []), helper.make_tensor_value_info("cond_in", T.BOOL, []),
           helper.make_value_info("seq_in", helper.make_sequence_type_proto(helper.make_tensor_type_proto(T.FLOAT, None)))]
    outs = [helper.make_tensor_value_info(cond_out, T.BOOL, []),
            helper.make_value_info(carried_out, helper.make_sequence_type_proto(
                helper.make_tensor_type_proto(T.FLOAT, None)))]
    return helper.make_graph(nodes, "body", ins, outs)


def _loop_model(body_nodes: list, start: list, concat: dict | None = None, cond_out: str = "cond_out") -> onnx.ModelProto:
    """x: float[n,4]; the loop runs n times from a sequence made by ``start`` (named ``s0``); the
    output ``seq`` is the loop's, ``y`` a ConcatFromSequence of it (``concat``'s attributes)."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", T.INT64, [], [0])),
        helper.make_node("Gather", ["shape", "zero"], ["m"], axis=0),
        helper.make_node("Constant", [], ["true"], value=helper.make_tensor("true", T.BOOL, [], [True])),
        *start,
        helper.make_node("Loop", ["m", "true", "s0"], ["seq"], body=_body(body_nodes, cond_out=cond_out)),
    ]
    outs = [helper.make_value_info("seq", helper.make_sequence_type_proto(helper.make_tensor_type_proto(T.FLOAT, None)))]
    if concat is not None:
        nodes.append(helper.make_node("ConcatFromSequence", ["seq"], ["y"], **concat))
        outs.append(helper.make_tensor_value_info("y", T.FLOAT, None))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, ["n", 4])], outs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


EMPTY = [helper.make_node("SequenceEmpty", [], ["s0"], dtype=T.FLOAT)]
ROW = [helper.make_node("Gather", ["x", "i"], ["row"], axis=0)]            # x[i]: float[4]
KEEP_GOING = [helper.make_node("Identity", ["true"], ["cond_out"])]        # torch's for loop: the outer true


def _run(model: onnx.ModelProto, n: int) -> dict:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"x": x})))


def _at(d, n: int):
    """A dim at n, or None where the check leaves it unknown."""
    if not is_symbolic(d):
        return int(d)
    if any(is_unknown(s) for s in d.free_symbols):
        return None
    return int(d.subs(N, n))


def _agrees(inferred, actual, n: int) -> None:
    if isinstance(inferred, SequenceType):
        assert isinstance(actual, list)
        if inferred.length is not None and _at(inferred.length, n) is not None:
            assert _at(inferred.length, n) == len(actual), (str(inferred), n)
        for a in actual:
            _agrees(inferred.elem, a, n)
        return
    if inferred.shape is None:
        return
    assert len(inferred.shape) == actual.ndim, (str(inferred), actual.shape)
    for d, a in zip(inferred.shape, actual.shape):
        assert _at(d, n) in (None, a), (str(inferred), n, actual.shape)


def _check(model: onnx.ModelProto, sizes=(1, 3, 6)) -> dict:
    report = shapecheck.check_model(model)
    assert report.coverage["unknown"] == 0
    for n in sizes:
        outputs = _run(model, n)
        for name, actual in outputs.items():
            _agrees(report.types[name], actual, n)
    return report.types


def test_torch_stack_of_a_list_filled_in_a_for_loop_is_exact():
    body = ROW + KEEP_GOING + [helper.make_node("SequenceInsert", ["seq_in", "row"], ["grown"])]
    types = _check(_loop_model(body, EMPTY, {"axis": 1, "new_axis": 1}))
    assert str(types["seq"]) == "seq(float[4], n)"
    assert str(types["y"]) == "float[4,n]"


def test_a_body_that_appends_twice_to_a_started_list_grows_it_by_two_per_iteration():
    start = [helper.make_node("Gather", ["x", "zero"], ["first"], axis=0),
             helper.make_node("SequenceConstruct", ["first"], ["s0"])]
    body = ROW + KEEP_GOING + [helper.make_node("SequenceInsert", ["seq_in", "row"], ["once"]),
                               helper.make_node("Neg", ["row"], ["minus"]),
                               helper.make_node("SequenceInsert", ["once", "minus"], ["grown"])]
    types = _check(_loop_model(body, start, {"axis": 0}))
    assert str(types["seq"]) == "seq(float[4], 2*n+1)"
    assert str(types["y"]) == "float[8*n+4]"


def test_elements_that_grow_with_the_iteration_keep_the_length_and_lose_their_dim():
    # the prefix x.flatten()[:i+1], as in onnx's test_loop13_seq
    body = KEEP_GOING + [
        helper.make_node("Flatten", ["x"], ["flat2"], axis=0),
        helper.make_node("Constant", [], ["zero_axes"], value=helper.make_tensor("za", T.INT64, [1], [0])),
        helper.make_node("Squeeze", ["flat2", "zero_axes"], ["flat"]),
        helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one", T.INT64, [], [1])),
        helper.make_node("Add", ["i", "one"], ["end"]),
        helper.make_node("Unsqueeze", ["end", "zero_axes"], ["ends"]),
        helper.make_node("Constant", [], ["starts"], value=helper.make_tensor("starts", T.INT64, [1], [0])),
        helper.make_node("Slice", ["flat", "starts", "ends"], ["prefix"]),
        helper.make_node("SequenceInsert", ["seq_in", "prefix"], ["grown"]),
    ]
    types = _check(_loop_model(body, EMPTY, {"axis": 0}))
    seq = types["seq"]
    assert isinstance(seq, SequenceType) and seq.length == N
    assert seq.elem.dtype == "float" and len(seq.elem.shape) == 1 and is_unknown(seq.elem.shape[0])


def test_an_element_whose_size_is_the_lists_length_is_proved_by_the_looser_hypothesis():
    body = KEEP_GOING + [
        helper.make_node("SequenceLength", ["seq_in"], ["count"]),
        helper.make_node("Constant", [], ["axes"], value=helper.make_tensor("axes", T.INT64, [1], [0])),
        helper.make_node("Unsqueeze", ["count", "axes"], ["count1"]),
        helper.make_node("ConstantOfShape", ["count1"], ["zeros"],
                         value=helper.make_tensor("v", T.FLOAT, [1], [0.0])),
        helper.make_node("SequenceInsert", ["seq_in", "zeros"], ["grown"]),
    ]
    types = _check(_loop_model(body, EMPTY))
    seq = types["seq"]
    assert seq.length == N and len(seq.elem.shape) == 1 and is_unknown(seq.elem.shape[0])


def test_a_loop_its_condition_stops_early_has_a_run_time_length():
    body = ROW + [helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", T.INT64, [], [2])),
                  helper.make_node("Less", ["i", "two"], ["cond_out"]),
                  helper.make_node("SequenceInsert", ["seq_in", "row"], ["grown"])]
    types = _check(_loop_model(body, EMPTY, {"axis": 1, "new_axis": 1}), sizes=(1, 2, 5))
    seq, y = types["seq"], types["y"]
    assert str(seq.elem) == "float[4]" and is_unknown(seq.length)
    assert y.shape[0] == 4 and y.shape[1] == seq.length


def test_a_step_that_differs_between_iterations_is_not_claimed():
    # every other iteration appends: If merges seq(E, l + 1) with seq(E, l), so no fixed step
    then = helper.make_graph([helper.make_node("SequenceInsert", ["seq_in", "row"], ["t_out"])], "then", [],
                             [helper.make_value_info("t_out", helper.make_sequence_type_proto(
                                 helper.make_tensor_type_proto(T.FLOAT, None)))])
    other = helper.make_graph([helper.make_node("Identity", ["seq_in"], ["e_out"])], "else", [],
                              [helper.make_value_info("e_out", helper.make_sequence_type_proto(
                                  helper.make_tensor_type_proto(T.FLOAT, None)))])
    body = ROW + KEEP_GOING + [
        helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", T.INT64, [], [2])),
        helper.make_node("Mod", ["i", "two"], ["odd"]),
        helper.make_node("Cast", ["odd"], ["is_odd"], to=T.BOOL),
        helper.make_node("If", ["is_odd"], ["grown"], then_branch=then, else_branch=other),
    ]
    types = _check(_loop_model(body, EMPTY), sizes=(1, 2, 5, 6))
    assert types["seq"].length is None or is_unknown(types["seq"].length)


@pytest.mark.parametrize("exact", [True, False])
def test_a_loop_built_sequence_annotates_and_passes_onnxs_full_check(exact):
    body = ROW + KEEP_GOING + [helper.make_node("SequenceInsert", ["seq_in", "row"], ["grown"])]
    model = _loop_model(body, EMPTY, {"axis": 1, "new_axis": 1} if exact else {"axis": 0})
    out = shapecheck.annotate(model)
    onnx.checker.check_model(out, full_check=True)
    [y] = [o for o in out.graph.output if o.name == "y"]
    dims = [d.dim_param or d.dim_value for d in y.type.tensor_type.shape.dim]
    assert dims == ([4, "n"] if exact else ["4*n"])


def test_a_scan_output_sized_by_the_lists_length_is_unknown_outside_the_loop():
    """The body stacks zeros[len(list)] per iteration: the hypothesis's length l differs from one
    iteration to the next, so outside the loop that dim is unknown, never l (onnxruntime refuses the
    ragged stack, and shapecheck must not claim a size for it)."""
    body_nodes = ROW + KEEP_GOING + [
        helper.make_node("SequenceInsert", ["seq_in", "row"], ["grown"]),
        helper.make_node("SequenceLength", ["grown"], ["count"]),
        helper.make_node("Constant", [], ["axes"], value=helper.make_tensor("axes", T.INT64, [1], [0])),
        helper.make_node("Unsqueeze", ["count", "axes"], ["count1"]),
        helper.make_node("ConstantOfShape", ["count1"], ["zeros"], value=helper.make_tensor("v", T.FLOAT, [1], [0.0])),
    ]
    model = _loop_model(body_nodes, EMPTY)
    body = model.graph.node[-1].attribute[0].g
    body.output.append(helper.make_tensor_value_info("zeros", T.FLOAT, None))
    loop = model.graph.node[-1]
    loop.output.append("stacked")
    model.graph.output.append(helper.make_tensor_value_info("stacked", T.FLOAT, None))
    types = shapecheck.check_model(model).types
    assert str(types["seq"]) == "seq(float[4], n)"
    stacked = types["stacked"]
    assert stacked.shape[0] == N and is_unknown(stacked.shape[1])
    local = types["seq_in"].length.free_symbols          # the hypothesis's l, the body's own
    outer = set().union(*(d.free_symbols for d in stacked.shape if is_symbolic(d)))
    assert local and not local & outer, (str(stacked), local)


def test_an_abandoned_walk_leaves_no_state_behind():
    # a body is walked as its first iteration sees it, then again: restore() must undo every piece of
    # state a walk changes (a tensor marked invalid in the first walk would make its readers in the
    # second "fed by an invalid node"; a condition's sources would gather duplicates)
    from shapecheck.domain.relation import Source
    from shapecheck.frontends import read_onnx
    from shapecheck.model.forward import ForwardPass
    from shapecheck.registry import default_registry
    model = onnx.load(str(ROOT / "tests" / "fixtures" / "exports" / "loop_stack_ts17.onnx"))
    fp = ForwardPass(read_onnx(model, default_registry()), default_registry(), False, None)
    fp.assume("seq >= 2", "n0", source=Source("n0", "Op", "Op-1"))
    fp.scoped.add("seq >= 2")
    before = (fp.snapshot(), {k: list(v) for k, v in fp.sources.items()}, set(fp.scoped), dict(fp.invalid),
              list(fp.invalid_nodes), list(fp.float_sizes))
    saved = fp.snapshot()
    fp.assume("seq >= 2", "n1", source=Source("n1", "Op", "Op-1"))
    fp.assume("seq <= 9", "n1", source=Source("n1", "Op", "Op-1"))
    fp.scoped.add("seq <= 9")
    fp.invalid["t"] = "n1"
    fp.invalid_nodes.append("n1")
    fp.float_sizes.append("n1")
    fp.restore(saved)
    after = (fp.snapshot(), {k: list(v) for k, v in fp.sources.items()}, set(fp.scoped), dict(fp.invalid),
             list(fp.invalid_nodes), list(fp.float_sizes))
    assert after[1:] == before[1:] and after[0][2] == before[0][2]
