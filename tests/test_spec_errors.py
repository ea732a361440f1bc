"""Malformed spec files: each mistake is a SpecError located at file:line, saying what is wrong."""
from __future__ import annotations

import textwrap

import pytest

from shapecheck.cli import main
from shapecheck.errors import SpecError
from shapecheck.registry import load_files, registry_with

GOOD = textwrap.dedent('''\
    # a minimal spec
    op = "ProbeOp"
    domain = "ai.onnx"
    version = 1

    [types]
    T = ["float", "double"]

    [let]
    r = "rank(data)"

    [[inputs]]
    name = "data"
    type = "T"

    [[outputs]]
    name = "output"
    type = "dtype(data)"
    shape = "data.shape"

    [[constraints]]
    id = "C1"
    rule = "r >= 1"
    message = "data must have rank >= 1"

    [[constraints]]
    id = "C2"
    rule = "dtype(data) in T"
    message = "data must be float or double"
''')

LINES = GOOD.splitlines()


def line_of(text: str, needle: str, nth: int = 1) -> int:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    return hits[nth - 1]


def load_text(tmp_path, text, name="probe.toml"):
    f = tmp_path / name
    f.write_text(text)
    return f, load_files([f])


def test_the_good_spec_loads(tmp_path):
    _, specs = load_text(tmp_path, GOOD)
    assert [s.name for s in specs] == ["ProbeOp-1"]
    assert [r.id for r in specs[0].constraints] == ["C1", "C2"]
    assert specs[0].rule("C1").line == line_of(GOOD, 'rule = "r >= 1"')


def broken(tmp_path, text):
    f = tmp_path / "broken.toml"
    f.write_text(text)
    with pytest.raises(SpecError) as exc:
        load_files([f])
    return f, exc.value


def test_toml_syntax_error(tmp_path):
    text = GOOD.replace("version = 1", "version = = 1")
    f, err = broken(tmp_path, text)
    assert str(err).startswith(f"{f}:{line_of(text, 'version = = 1')}: ")
    assert "not valid TOML" in str(err)
    assert err.line == 4


def test_unknown_top_level_key(tmp_path):
    text = GOOD.replace("version = 1", "version = 1\nopset = 3")
    f, err = broken(tmp_path, text)
    assert str(err).startswith(f"{f}:{line_of(text, 'opset = 3')}: ")
    assert "unknown key(s) opset" in str(err)


def test_unknown_key_in_a_constraint(tmp_path):
    text = GOOD.replace('message = "data must have rank >= 1"', 'mesage = "data must have rank >= 1"')
    f, err = broken(tmp_path, text)
    assert "constraint C1: unknown key(s) mesage" in str(err)
    assert err.line == line_of(text, 'rule = "r >= 1"')


def test_rule_syntax_error_with_column(tmp_path):
    text = GOOD.replace('rule = "r >= 1"', 'rule = "r >= (1"')
    f, err = broken(tmp_path, text)
    assert str(err).startswith(f"{f}:{line_of(text, 'r >= (1')}: ")
    assert "constraint C1" in str(err)
    assert "expected ')'" in str(err) and "column 8" in str(err)


def test_unknown_name(tmp_path):
    text = GOOD.replace('rule = "dtype(data) in T"', 'rule = "dtype(data) in T2"')
    f, err = broken(tmp_path, text)
    assert err.line == line_of(text, "in T2")
    assert "constraint C2: unknown name(s) T2" in str(err)
    assert "known are" in str(err) and "data" in str(err)


def test_unknown_function(tmp_path):
    text = GOOD.replace('rule = "r >= 1"', 'rule = "size(data) >= 1"')
    f, err = broken(tmp_path, text)
    assert err.line == line_of(text, "size(data)")
    assert "unknown function size()" in str(err)
    assert "rank" in str(err)  # lists what exists


def test_unknown_name_in_a_let(tmp_path):
    text = GOOD.replace('r = "rank(data)"', 'r = "rank(dta)"')
    f, err = broken(tmp_path, text)
    assert err.line == line_of(text, 'r = "rank(dta)"')
    assert "let r: unknown name(s) dta" in str(err)


def test_duplicate_id_points_at_the_second_definition(tmp_path):
    text = GOOD.replace('id = "C2"', 'id = "C1"')
    f, err = broken(tmp_path, text)
    assert "duplicate id C1" in str(err)
    assert err.line in (line_of(text, 'id = "C1"', 2), line_of(text, 'rule = "dtype(data) in T"'))


def test_duplicate_id_with_the_same_rule_text(tmp_path):
    text = GOOD + '\n[[constraints]]\nid = "C1"\nrule = "r >= 1"\nmessage = "again"\n'
    f, err = broken(tmp_path, text)
    assert "duplicate id C1" in str(err)
    assert err.line == line_of(text, 'id = "C1"', 2)


def test_missing_extends_target(tmp_path):
    text = '# a child\nversion = 2\nextends = "NoSuchOp-1"\n'
    f, err = broken(tmp_path, text)
    assert str(err).startswith(f"{f}:3: ")
    assert "NoSuchOp-1" in str(err) and "no known spec" in str(err)


def test_extends_a_shipped_spec(tmp_path):
    f = tmp_path / "ScatterND-99.toml"
    f.write_text('extends = "ScatterND-18"\nversion = 99\n')
    reg = registry_with([tmp_path])
    assert reg.resolve("ScatterND", 120).name == "ScatterND-99"
    assert [r.id for r in reg.get("ScatterND-99").constraints] == [r.id for r in reg.get("ScatterND-18").constraints]


def test_bad_type_set_member(tmp_path):
    text = GOOD.replace('T = ["float", "double"]', 'T = ["float", "dubble"]')
    f, err = broken(tmp_path, text)
    assert "type set T" in str(err) and "dubble" in str(err)
    assert err.line == line_of(text, "dubble")


def test_bad_attribute_type(tmp_path):
    text = GOOD.replace("[let]", '[attributes.axis]\ntype = "integer"\n\n[let]')
    f, err = broken(tmp_path, text)
    assert "attribute axis: type must be int" in str(err)
    assert err.line == line_of(text, "[attributes.axis]")


SEMANTICS = """
[semantics]
kind = "scatter_nd"
data = "data"
indices = "data"
reduction = '"none"'
"""


def test_unknown_semantics_kind(tmp_path):
    text = GOOD + SEMANTICS.replace('kind = "scatter_nd"', 'kind = "scatter_everything"')
    f, err = broken(tmp_path, text)
    assert "kind 'scatter_everything' has no kernel" in str(err) and err.line == line_of(text, "[semantics]")


def test_semantics_must_bind_every_kernel_argument(tmp_path):
    text = GOOD + SEMANTICS
    f, err = broken(tmp_path, text)
    assert "missing updates" in str(err) and err.line == line_of(text, "[semantics]")


def test_spec_without_semantics_is_checked_but_not_run(tmp_path):
    import numpy as np
    from shapecheck import execute
    from shapecheck.errors import UsageError
    from shapecheck.solver import solve
    f = tmp_path / "Probe-1.toml"
    f.write_text(GOOD)
    reg = registry_with([f])
    assert solve(reg.resolve("ProbeOp", 1), {"data": "float[4]"}).status == "valid"
    with pytest.raises(UsageError, match="no \\[semantics\\]"):
        execute("ProbeOp", 1, {"data": np.zeros(4, np.float32)}, registry=reg)


def test_unknown_field(tmp_path):
    text = GOOD.replace('rule = "r >= 1"', 'rule = "data.size >= 1"')
    f, err = broken(tmp_path, text)
    assert "unknown field .size" in str(err)
    assert err.line == line_of(text, "data.size")


def test_registry_with_a_broken_directory(tmp_path):
    (tmp_path / "x.toml").write_text(GOOD.replace('rule = "r >= 1"', 'rule = "r >="'))
    with pytest.raises(SpecError, match="x.toml:"):
        registry_with([tmp_path])


def test_cli_with_broken_specs_dir_exits_2_with_one_paragraph(tmp_path, capsys):
    bad = GOOD.replace('rule = "r >= 1"', 'rule = "r >= ="')
    (tmp_path / "probe.toml").write_text(bad)
    code = main(["--specs", str(tmp_path), "specs"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in out + err
    flat = err.replace("\n", "")  # rich may wrap a long path
    assert f"probe.toml:{line_of(bad, 'r >= =')}: constraint C1" in flat
    assert "unexpected character '='" in flat and "column 6" in flat
    assert "\n\n" not in err.strip()
    code = main(["--specs", str(tmp_path), "infer", "ScatterND", "-i", "data=float[N]",
                 "-i", "indices=int64[M,1]", "-i", "updates=float[M]"])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err and "probe.toml" in err


def test_cli_with_missing_specs_dir(tmp_path, capsys):
    code = main(["--specs", str(tmp_path / "nope"), "specs"])
    out, err = capsys.readouterr()
    assert code == 2 and "no such spec directory" in err and "Traceback" not in err
