"""The registry a query is given is the one used: version hints, verify and ``specs="dir"``.

A family loaded with ``--specs`` (here ``com.acme:RowScatter``, ScatterND-11's rules under
another name, and a version 2 that adds ``reduction``) exists only in that registry: a hint
or a re-resolution through the default registry would miss it.
"""
from __future__ import annotations

import pytest

import shapecheck
from shapecheck.cli import main
from shapecheck.errors import UsageError
from shapecheck.registry import registry_with, specs_dir


@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    root = tmp_path_factory.mktemp("specs")
    d = root / "com.acme"
    d.mkdir()
    text = (specs_dir() / "onnx" / "ScatterND-11.toml").read_text(encoding="utf-8")
    text = text.replace('op = "ScatterND"', 'op = "RowScatter"').replace('domain = "ai.onnx"', 'domain = "com.acme"')
    text = text.replace("version = 11", "version = 1")
    (d / "RowScatter-1.toml").write_text(text, encoding="utf-8")
    (d / "RowScatter-2.toml").write_text('extends = "com.acme:RowScatter-1"\nversion = 2\n'
                                         '[attributes.reduction]\ntype = "string"\ndefault = "none"\n', encoding="utf-8")
    return root


QUERY = {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"}


def test_hint_names_a_later_version_of_an_extra_family(acme):
    reg = registry_with([str(acme)])
    with pytest.raises(UsageError, match=r"or use com\.acme:RowScatter-2 \(opset >= 2\)"):
        shapecheck.infer("com.acme:RowScatter", 1, QUERY, {"reduction": "add"}, registry=reg)
    # the same query without the family in the registry names no version that does not exist there
    assert shapecheck.infer("com.acme:RowScatter", 2, QUERY, {"reduction": "add"}, registry=reg).status == "valid"


def test_verify_with_extra_specs_agrees(acme, capsys):
    args = ["--specs", str(acme), "verify", "com.acme:RowScatter", "--opset", "1", "--samples", "10"]
    for k, v in QUERY.items():
        args += ["-i", f"{k}={v}"]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 0 and "disagreement" not in out and "verified" in out


def test_specs_as_one_string_is_one_directory(acme, tmp_path):
    import onnx
    from onnx import TensorProto as T
    from onnx import helper
    vi = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("RowScatter", ["d", "i", "u"], ["y"], domain="com.acme")], "g",
                          [vi("d", T.FLOAT, ["N", 4]), vi("i", T.INT64, ["M", 1]), vi("u", T.FLOAT, ["M", 5])],
                          [vi("y", T.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.acme", 1)])
    onnx.save(m, str(tmp_path / "m.onnx"))
    rep = shapecheck.check_model(str(tmp_path / "m.onnx"), specs=str(acme))
    assert rep.nodes[0].spec == "com.acme:RowScatter-1" and [v.constraint for v in rep.nodes[0].violations] == ["C7"]
