"""Inputs of unknown rank: what a node needs of one is stated of its tensor, never of the spec's
input name (``model/unranked.py``).  Before, two Convs on two tensors of unknown rank both
stated ``rank(X) == ...``, and a model onnxruntime runs was refuted: "no value of rank(X) meets
rank(X) == 4 and rank(X) == 3".  onnxruntime decides each case here.
"""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T, helper

import shapecheck


def _convs(tmp_path, inputs: list[str], convs: list[tuple[str, list[int]]]) -> str:
    """A model of Convs, each (input, weight dims), on graph inputs of unknown rank."""
    nodes, weights, outs = [], [], []
    for i, (x, dims) in enumerate(convs):
        weights.append(helper.make_tensor(f"w{i}", T.FLOAT, dims, np.zeros(dims, np.float32).ravel().tolist()))
        nodes.append(helper.make_node("Conv", [x, f"w{i}"], [f"y{i}"], name=f"conv{i}"))
        outs.append(helper.make_tensor_value_info(f"y{i}", T.FLOAT, None))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(x, T.FLOAT, None) for x in inputs], outs, weights)
    path = str(tmp_path / "m.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), path)
    return path


def _runs(path: str, feeds: dict[str, tuple]) -> bool:
    try:
        ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
            None, {k: np.zeros(s, np.float32) for k, s in feeds.items()})
        return True
    except Exception:  # noqa: BLE001 - onnxruntime refusing the sizes is the answer
        return False


def test_two_tensors_of_unknown_rank_are_two_tensors(tmp_path):
    path = _convs(tmp_path, ["image", "signal"], [("image", [8, 3, 3, 3]), ("signal", [8, 5, 3])])
    rep = shapecheck.check_model(path)
    assert not rep.failed and not rep.violations
    text = rep.domain.text()
    assert "rank(image) == 4" in text and "rank(signal) == 3" in text
    assert "image.shape[1] == 3" in text and "signal.shape[1] == 5" in text
    assert "X" not in text   # the spec's input name is no name of the model's
    assert _runs(path, {"image": (1, 3, 5, 5), "signal": (1, 5, 7)})


def test_what_two_nodes_need_of_one_tensor_is_said_of_its_dims_once(tmp_path):
    path = _convs(tmp_path, ["image"], [("image", [8, 3, 3, 3]), ("image", [4, 3, 1, 1])])
    rep = shapecheck.check_model(path)
    assert not rep.failed
    needed = {a["condition"]: a["nodes"] for a in rep.to_dict()["assumptions"]}
    assert needed["rank(image) == 4"] == ["conv0", "conv1"]
    assert needed["image.shape[1] == 3"] == ["conv0", "conv1"]
    # the tensor's dims flow on: both outputs have the batch of the one input
    assert str(rep.types["y0"]).startswith("float[image.shape[0],8,") and str(rep.types["y1"]).startswith("float[image.shape[0],4,")
    assert _runs(path, {"image": (1, 3, 4, 4)}) and not _runs(path, {"image": (1, 4, 4, 4)})


@pytest.mark.parametrize("channels", [3, 5])
def test_what_two_nodes_need_of_one_tensor_contradicts_and_onnxruntime_agrees(tmp_path, channels):
    path = _convs(tmp_path, ["image"], [("image", [8, 3, 3, 3]), ("image", [8, 5, 3, 3])])
    rep = shapecheck.check_model(path)
    assert rep.failed and not rep.domain.valid
    assert rep.domain.text() == "no input size: no value of image.shape[1] meets image.shape[1] == 3 and image.shape[1] == 5"
    assert not _runs(path, {"image": (1, channels, 5, 5)})


def test_the_cli_says_no_input_size_and_why(tmp_path, capsys):
    from shapecheck.cli import main
    path = _convs(tmp_path, ["image"], [("image", [8, 3, 3, 3]), ("image", [8, 5, 3, 3])])
    assert main(["check", path]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("valid for: no input size: no value of image.shape[1] meets image.shape[1] == 3 "
                                   "and image.shape[1] == 5")


def test_the_names_are_the_models_whatever_the_process_checked_before(tmp_path):
    # the solve cache and the query memo hold a Conv's result for an input of unknown rank: a
    # second model with another tensor's name gets its own names
    first = _convs(tmp_path, ["image"], [("image", [8, 3, 3, 3])])
    assert "rank(image) == 4" in shapecheck.check_model(first).domain.text()
    (tmp_path / "b").mkdir()
    second = _convs(tmp_path / "b", ["frames"], [("frames", [8, 3, 3, 3])])
    text = shapecheck.check_model(second).domain.text()
    assert "rank(frames) == 4" in text and "image" not in text
