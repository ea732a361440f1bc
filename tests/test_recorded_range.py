"""A range the exporter recorded (torch.export's ``range_constraints``) that narrows a dim beyond
what the graph needs is the model's contract: the domain keeps it, and now says where it comes
from.  A new user's trial on a Wav2Vec2 dynamo export (``s76: VR[60, int_oo]``, its convolutions
needing 40 samples) saw ``valid for: s76 >= 60`` with nothing behind it, while onnxruntime ran
at 40.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
import onnxruntime as ort
from onnx import TensorProto as T, helper

import shapecheck
from shapecheck.model.sizes import RANGES_KEY


def _conv(tmp_path, recorded: str | None) -> str:
    """A Conv with a kernel of 40 over [1, 1, samples]: the graph needs samples >= 40."""
    w = helper.make_tensor("w", T.FLOAT, [2, 1, 40], np.zeros(80, np.float32).tolist())
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, [1, 1, "samples"])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    if recorded:
        m.metadata_props.add(key=RANGES_KEY, value=recorded)
    path = str(tmp_path / "conv.onnx")
    onnx.save(m, path)
    return path


def test_a_recorded_range_narrower_than_the_graph_needs_is_said_to_be_the_exporters(tmp_path, capsys):
    from shapecheck.cli import main
    path = _conv(tmp_path, "{samples: VR[60, int_oo]}")
    rep = shapecheck.check_model(path)
    assert rep.domain.text() == "samples >= 60"
    (rel,) = rep.domain.relations
    assert rel.declared and rel.severity == "info" and rel.to_dict()["declared"] is True
    assert main(["check", path]) == 0
    out = capsys.readouterr().out
    assert "  samples >= 60    (recorded by the exporter and taken as the model's contract;" in out
    # the exporter's contract is no condition of the graph: --strict passes
    assert shapecheck.check_model(path, strict=True).exit_code == 0
    # what the graph itself needs: 40, where onnxruntime runs too
    at40 = shapecheck.check_model(path, dims="samples=40")
    assert at40.exit_code == 0 and not at40.violations
    # ... though the export's contract does not cover it, which a note says
    assert at40.notes == ["samples = 40 is outside the range the exporter recorded for it (60 <= samples): checked "
                          "there as the graph stands, though the export's contract does not cover it"]
    at39 = shapecheck.check_model(path, dims="samples=39")
    assert at39.exit_code == 1 and [f.constraint for f in at39.violations] == ["outside-domain"]
    assert at39.violations[0].values["from"] == "the range the exporter recorded (torch's range_constraints)"
    assert not shapecheck.check_model(path, dims="samples=60").notes
    ort.InferenceSession(path).run(None, {"x": np.zeros((1, 1, 40), np.float32)})


def test_without_a_record_the_graphs_own_need_is_the_domain(tmp_path):
    rep = shapecheck.check_model(_conv(tmp_path, None))
    assert rep.domain.text() == "samples >= 40"
    assert [r.declared for r in rep.domain.relations] == [False]


def test_the_range_of_a_dim_declared_as_an_expression_is_not_taken_for_its_symbol(tmp_path):
    # found on a dynamo export of an input declared [B, 4, 2*h, 2*w]: torch recorded
    # {s77: VR[0, 1024], 2*s39: VR[0, 1024], 2*s94: VR[0, 1024], s39: VR[2, 512], s94: VR[2, 512]}; the
    # '2*s39' entry was read as s39, the counts then disagreed with the input's names, and every range was dropped
    w = helper.make_tensor("w", T.FLOAT, [4, 4, 1, 1], np.zeros(16, np.float32).tolist())
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], "g",
                          [helper.make_tensor_value_info("x", T.FLOAT, ["B", 4, "2*h", "2*w"])],
                          [helper.make_tensor_value_info("y", T.FLOAT, None)], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.metadata_props.add(key=RANGES_KEY, value="{s77: VR[0, 1024], 2*s39: VR[0, 1024], 2*s94: VR[0, 1024], "
                                                "s39: VR[2, 512], s94: VR[2, 512]}")
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    rep = shapecheck.check_model(path)
    assert rep.domain.text() == "1 <= B <= 1024, 2 <= h <= 512, 2 <= w <= 512"
    assert shapecheck.check_model(path, dims="h=600").notes[0].startswith("h = 600 is outside the range the exporter recorded")


# inputs as torch.onnx (dynamo, torch 2.13) declared them and the ranges it recorded, from real exports
# with Dim maxima B 64, T 4096 (or 50), N 64 (or 32), M 16, d 128 (or 100); a new user's trial saw the
# first one's ranges on the wrong dims (1 <= d <= 64, 2 <= N <= 128): torch lists a dim used only
# inside expressions (2*d) last, so pairing symbols with names by first use swapped them
TORCH_RECORDS = [
    ([["B", "T", "2*d"], ["N", "2*d"]],
     "{s77: VR[0, 64], s27: VR[0, 4096], 2*s40: VR[0, 256], s17: VR[0, 64], s40: VR[2, 128]}",
     "1 <= B <= 64, 1 <= T <= 4096, 2 <= d <= 128, 1 <= N <= 64"),
    ([["B", "2*d"], ["N", "d"]], "{s77: VR[0, 64], 2*s94: VR[0, 256], s17: VR[0, 32], s94: VR[0, 128]}",
     "1 <= B <= 64, 1 <= d <= 128, 1 <= N <= 32"),
    ([["B", "d + 1"], ["N", "M"]], "{s77: VR[0, 64], s40 + 1: VR[1, 101], s17: VR[0, 32], s94: VR[0, 16], s40: VR[2, 100]}",
     "1 <= B <= 64, 2 <= d <= 100, 1 <= N <= 32, 1 <= M <= 16"),
    ([["2*d", "T"], ["M", "d"]], "{2*s94: VR[0, 200], s27: VR[0, 50], s17: VR[0, 16], s94: VR[0, 100]}",
     "1 <= d <= 100, 1 <= T <= 50, 1 <= M <= 16"),
    # one entry no input dim stands for (a dim torch specialized): nothing lines up, nothing is taken
    ([["B", "T"]], "{s77: VR[0, 64], s27: VR[0, 50], s3: VR[32, 32]}", "B >= 1, T >= 1"),
]


@pytest.mark.parametrize("inputs,recorded,domain", TORCH_RECORDS)
def test_torchs_symbols_are_paired_with_the_dims_they_stand_for(tmp_path, inputs, recorded, domain):
    nodes = [helper.make_node("ReduceSum", [f"x{i}"], [f"r{i}"], keepdims=0) for i in range(len(inputs))]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(f"x{i}", T.FLOAT, dims) for i, dims in enumerate(inputs)],
                          [helper.make_tensor_value_info(f"r{i}", T.FLOAT, None) for i in range(len(inputs))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.metadata_props.add(key=RANGES_KEY, value=recorded)
    path = str(tmp_path / "m.onnx")
    onnx.save(m, path)
    assert shapecheck.check_model(path).domain.text() == domain
