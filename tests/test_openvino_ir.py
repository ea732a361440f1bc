"""OpenVINO IR as OpenVINO 2026 writes it: the corpus in tests/fixtures/ir (made by
tests/fixtures/make_ir_models.py with openvino.convert_model / save_model), version dispatch,
hand-broken copies, and what the frontend reads (dims, constants, ports).

The corpus tests need no OpenVINO; the few that build IR on the fly skip without it.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import shapecheck
from shapecheck.cli import main
from shapecheck.errors import UsageError
from shapecheck.registry import default_registry

IR = Path(__file__).parent / "fixtures" / "ir"
MANIFEST = json.loads((IR / "manifest.json").read_text())
MODELS = sorted(MANIFEST["models"])
REG = default_registry()
FAMILY = {"ScatterElementsUpdate", "ScatterNDUpdate", "ScatterUpdate", "SliceScatter"}


def _layers(name: str) -> list[tuple[str, int]]:
    """(op, opset) of every scatter-family layer of a corpus model, as the manifest records them."""
    out = []
    for text in MANIFEST["models"][name]["layers"]:
        op, version = text.rsplit("-", 1)
        if op in FAMILY:
            out.append((op, int(version.removeprefix("opset"))))
    return out


def test_corpus_was_written_by_a_2026_openvino_and_covers_each_op_and_reduction():
    assert MANIFEST["openvino"].startswith("2026.")
    layers = {t for m in MODELS for t in MANIFEST["models"][m]["layers"]}
    assert {"ScatterElementsUpdate-opset12", "ScatterNDUpdate-opset15", "ScatterNDUpdate-opset4",
            "ScatterUpdate-opset3", "SliceScatter-opset15"} <= layers
    reductions = {}
    for m in MODELS:
        text = (IR / f"{m}.xml").read_text()
        for op, red in re.findall(r'<layer [^>]*type="(Scatter\w+)"[^>]*>\s*<data [^>]*reduction="(\w+)"', text):
            reductions.setdefault(op, set()).add(red)
        for op, red in re.findall(r'<layer [^>]*type="(Scatter\w+)"[^>]*>\s*<data reduction="(\w+)"', text):
            reductions.setdefault(op, set()).add(red)
    assert reductions["ScatterElementsUpdate"] >= {"none", "sum", "prod", "min", "max", "mean"}
    assert reductions["ScatterNDUpdate"] >= {"none", "sum", "sub", "prod", "min", "max"}


@pytest.mark.parametrize("name", MODELS)
def test_corpus_model_is_not_invalid_and_each_layer_uses_its_versions_spec(name):
    rep = shapecheck.check_model(str(IR / f"{name}.xml"))
    assert not rep.failed, [(n.name, [str(v) for v in n.violations]) for n in rep.nodes]
    assert all(n.status in ("valid", "conditional") for n in rep.nodes)
    # every scatter-family layer is checked, by the newest spec at or below its layer version
    layers = _layers(name)
    assert sorted((n.op_type, n.opset) for n in rep.nodes) == sorted(layers)
    for n in rep.nodes:
        want = max((s for s in REG.versions(n.op_type, "openvino") if s.version <= n.opset), key=lambda s: s.version)
        assert n.spec == want.name
    # each declared output port agrees with inference (a -1 dim is filled in, never contradicted)
    ports = [d for d in rep.declarations if d.kind == "port"]
    assert len(ports) == len(layers)
    assert all(d.status in ("agrees", "refines") for d in ports), [(d.tensor, d.declared, d.inferred) for d in ports]


def test_opset12_and_opset15_layers_are_checked_by_the_new_specs():
    # the issue: ScatterElementsUpdate opset12 was checked by -3 and its reduction called unknown
    rep = shapecheck.check_model(str(IR / "seu12_mean_init.xml"))
    (n,) = rep.nodes
    assert (n.spec, n.status) == ("openvino:ScatterElementsUpdate-12", "conditional")
    assert n.conditions == ["updates_d0 == indices_d0", "indices_d0 <= data_d0"]   # named Parameter dims
    (n,) = shapecheck.check_model(str(IR / "sndu15_sub.xml")).nodes
    assert n.spec == "openvino:ScatterNDUpdate-15"


def test_interval_dims_and_constant_indices_from_the_bin():
    rep = shapecheck.check_model(str(IR / "scatter_nd_const_indices.xml"))
    assert any("bounded dynamic dim 1..8" in note and "data_d1" in note for note in rep.notes)
    (n,) = rep.nodes
    assert n.inputs["indices"]["type"] == "int64[2,1] = [[0], [3]]" and n.inputs["indices"]["source"] == "constant"
    assert n.inputs["data"]["type"] == "float[4,data_d1]"        # 1..8 is dynamic: a named symbol
    assert n.conditions == ["updates_d1 == data_d1"]


# ---------------------------------------------------------------- hand-broken copies

def _copy(tmp_path: Path, name: str) -> tuple[Path, str]:
    shutil.copy(IR / f"{name}.bin", tmp_path / f"{name}.bin")
    return tmp_path / f"{name}.xml", (IR / f"{name}.xml").read_text()


def _set_port_dims(xml: str, layer_name: str, dims: list[str]) -> str:
    """Replace the dims of the output port of Parameter ``layer_name`` and of every input port it feeds."""
    m = re.search(rf'<layer id="(\d+)" name="{layer_name}" type="Parameter"', xml)
    lid = m.group(1)
    edges = re.findall(rf'<edge from-layer="{lid}" from-port="\d+" to-layer="(\d+)" to-port="(\d+)"', xml)
    new_dims = "".join(f"<dim>{d}</dim>" for d in dims)

    def fix(text: str, port_id: str) -> str:
        return re.sub(rf'(<port id="{port_id}"[^>]*>)(.*?)(</port>)',
                      lambda mm: mm.group(1) + re.sub(r"(<dim>.*</dim>)", new_dims, mm.group(2), flags=re.DOTALL)
                      + mm.group(3), text, count=1, flags=re.DOTALL)

    start = m.start()
    end = xml.index("</layer>", start)
    layer = re.sub(r'(<data shape=")[^"]*(")', lambda mm: mm.group(1) + ",".join(dims) + mm.group(2),
                   fix(xml[start:end], r"\d+"), count=1)
    out = xml[:start] + layer + xml[end:]
    for to_layer, to_port in edges:
        s = out.index(f'<layer id="{to_layer}"')
        e = out.index("</layer>", s)
        out = out[:s] + fix(out[s:e], to_port) + out[e:]
    return out


def test_wrong_updates_shape_is_invalid_with_the_constraint_id(tmp_path):
    path, xml = _copy(tmp_path, "sndu3")
    path.write_text(_set_port_dims(xml, "updates", ["3", "5"]))
    (n,) = shapecheck.check_model(str(path)).nodes
    assert n.status == "invalid" and [v.constraint for v in n.violations] == ["C4"]
    path, xml = _copy(tmp_path, "seu12_sum_noinit")
    path.write_text(_set_port_dims(xml, "updates", ["-1", "4"]))
    rep = shapecheck.check_model(str(path))
    assert rep.failed and [v.constraint for v in rep.nodes[0].violations] == ["C2"]


def test_axis_out_of_range_is_invalid_with_the_constraint_id(tmp_path):
    path, xml = _copy(tmp_path, "seu12_max_init")
    path.write_text(xml)
    const = re.search(r'type="Const"[^>]*>\s*<data element_type="i64" shape="" offset="(\d+)" size="8"', xml)
    blob = bytearray((IR / "seu12_max_init.bin").read_bytes())
    off = int(const.group(1))
    assert int.from_bytes(blob[off:off + 8], "little", signed=True) == 1
    blob[off:off + 8] = (5).to_bytes(8, "little", signed=True)
    path.with_suffix(".bin").write_bytes(bytes(blob))
    (n,) = shapecheck.check_model(str(path)).nodes
    assert n.status == "invalid" and "C4" in [v.constraint for v in n.violations]
    assert n.inputs["axis"]["type"] == "int64[] = 5"


# ---------------------------------------------------------------- version dispatch

def _with_version(tmp_path: Path, name: str, op: str, version: str) -> Path:
    path, xml = _copy(tmp_path, name)
    path.write_text(re.sub(rf'(type="{op}" version=")\w+(")', lambda m: m.group(1) + version + m.group(2), xml))
    return path


@pytest.mark.parametrize("version,words", [
    ("opset999", ["opset999 is beyond opset17", "newest openvino opset"]),
    ("banana", ["'banana' is not opsetN"]),
    ("opset2", ["no spec of ScatterNDUpdate is at or below opset2"]),
])
def test_layer_without_a_spec_for_its_version_is_unchecked_never_checked_by_another(tmp_path, capsys, version, words):
    path = _with_version(tmp_path, "sndu15_sum", "ScatterNDUpdate", version)
    rep = shapecheck.check_model(str(path))
    (n,) = rep.nodes
    assert (n.status, n.spec) == ("unchecked", "") and all(w in n.reason for w in words)
    assert "openvino:ScatterNDUpdate-3, openvino:ScatterNDUpdate-15" in n.reason
    assert rep.summary["unchecked"] == 1 and rep.summary["checked"] == 0
    assert not rep.failed and rep.exit_code == 0
    assert shapecheck.check_model(str(path), strict=True).failed
    # the text report never says a bare OK, and names the reason
    assert main(["check", str(path)]) == 0
    cap = capsys.readouterr()
    assert "OK except 1 unchecked" in cap.out and words[0] in " ".join(cap.err.split())   # the reason is a note
    assert main(["check", "--strict", str(path)]) == 1
    capsys.readouterr()
    assert main(["check", "--json", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["unchecked"] == 1 and doc["nodes"][0]["status"] == "unchecked"
    assert words[0] in doc["nodes"][0]["reason"]


def test_layer_version_picks_the_newest_spec_at_or_below_it(tmp_path):
    # an opset11 ScatterElementsUpdate is version 3 (no reduction): its attributes are findings there
    (n,) = shapecheck.check_model(str(_with_version(tmp_path, "seu12_none_init", "ScatterElementsUpdate", "opset11"))).nodes
    assert n.spec == "openvino:ScatterElementsUpdate-3"
    assert {v.constraint for v in n.violations} == {"A1"}
    (n,) = shapecheck.check_model(str(_with_version(tmp_path, "seu12_none_init", "ScatterElementsUpdate", "opset17"))).nodes
    assert n.spec == "openvino:ScatterElementsUpdate-12" and n.status != "invalid"
    (n,) = shapecheck.check_model(str(_with_version(tmp_path, "sndu15_sub", "ScatterNDUpdate", "opset14"))).nodes
    assert n.spec == "openvino:ScatterNDUpdate-3" and n.status == "invalid"   # sub does not exist before 15


def test_the_highest_known_opset_is_data():
    assert REG.domains["openvino"]["highest_opset"] == 17
    ov = pytest.importorskip("openvino")
    assert hasattr(ov, f"opset{REG.domains['openvino']['highest_opset']}")


# ---------------------------------------------------------------- frontend errors and constants

def test_edge_to_a_port_the_layer_lacks_is_a_usage_error(tmp_path, capsys):
    path, xml = _copy(tmp_path, "sndu3")
    path.write_text(re.sub(r'(<edge from-layer="\d+" from-port="\d+" to-layer="\d+" to-port=")\d+(")',
                           lambda m: m.group(1) + "7" + m.group(2), xml, count=1))
    with pytest.raises(UsageError, match="input port '7' of layer id=.*which has no such port"):
        shapecheck.check_model(str(path))
    assert main(["check", str(path)]) == 2
    assert "no such port" in capsys.readouterr().err


def test_parameter_shape_disagreeing_with_its_port_is_a_usage_error(tmp_path):
    path, xml = _copy(tmp_path, "sndu3")
    path.write_text(xml.replace('<data shape="6,4"', '<data shape="6,5"', 1))
    with pytest.raises(UsageError, match="gives dim 1 = 5 but its output port has 4"):
        shapecheck.check_model(str(path))


def test_bad_dim_text_is_a_usage_error(tmp_path):
    path, xml = _copy(tmp_path, "sndu3")
    path.write_text(xml.replace("<dim>6</dim>", "<dim>six</dim>", 1))
    with pytest.raises(UsageError, match="'six'"):
        shapecheck.check_model(str(path))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_constant_indices_of_every_integer_type_are_read_from_the_bin(tmp_path, dtype):
    ov = pytest.importorskip("openvino")
    o12 = pytest.importorskip("openvino.opset12")
    d = o12.parameter([4, 3], np.float32, name="data")
    u = o12.parameter([2, 3], np.float32, name="updates")
    idx = np.array([[3, 0, 1], [2, 2, 0]], dtype=dtype)
    node = o12.scatter_elements_update(d, o12.constant(idx), u, o12.constant(np.array([0], dtype)), "sum", True)
    ov.save_model(ov.Model([node.output(0)], [d, u], "m"), tmp_path / "m.xml", compress_to_fp16=False)
    (n,) = shapecheck.check_model(str(tmp_path / "m.xml")).nodes
    want = f"{np.dtype(dtype).name}[2,3] = [[3, 0, 1], [2, 2, 0]]"
    assert n.inputs["indices"]["type"] == want and n.status == "valid"
