"""``[family]`` spec files: one file, one spec per member, each resolved by its own name.

A member's lets are merged over the file's; a family file that ``extends`` a version makes
each member extend its own op's version.  Errors name the file, the line and the member.
"""
from __future__ import annotations

import pytest

from shapecheck import SpecError
from shapecheck.solver import solve
from shapecheck.registry import Registry, load_files

BASE = '''
op = "Add"
domain = "ai.onnx"
version = 7

[family]
Add = { fn = '"+"' }
Sub = { fn = '"-"' }
Mul = { fn = '"*"', extra = "1" }

[types]
T = ["float", "int64"]

[let]
fn = '"?"'
extra = "0"

[[inputs]]
name = "A"
type = "T"

[[inputs]]
name = "B"
type = "T"

[[outputs]]
name = "C"
type = "dtype(A)"
shape = "broadcast(A.shape, B.shape)"
value = "elementwise(fn, A.value, B.value)"

[[constraints]]
id = "C1"
rule = "broadcastable(A.shape, B.shape)"
message = "A and B must broadcast"
'''

CHILD = '''
extends = "Add-7"
version = 13

[family]
Add = {}
Sub = {}
Mul = {}

[add_types]
T = ["int32"]
'''


def _load(tmp_path, files: dict[str, str]):
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.write_text(text)
        paths.append(p)
    return load_files(paths)


def test_each_member_is_a_spec_with_its_own_lets(tmp_path):
    specs = _load(tmp_path, {"Add-7.toml": BASE})
    reg = Registry(specs)
    assert sorted(s.name for s in specs) == ["Add-7", "Mul-7", "Sub-7"]
    assert {s.op: s.lets["fn"][0] for s in specs} == {"Add": '"+"', "Sub": '"-"', "Mul": '"*"'}
    assert reg.get("Mul-7").lets["extra"][0] == "1" and reg.get("Sub-7").lets["extra"][0] == "0"
    assert all(s.family == ("Add", "Sub", "Mul") and s.file == str(tmp_path / "Add-7.toml") for s in specs)
    q = {"A": "int64[2] = [N, 3]", "B": "int64[] = 2"}
    assert str(solve(reg.get("Sub-7"), q).outputs["C"]) == "int64[2] = [N-2, 1]"
    assert str(solve(reg.get("Mul-7"), q).outputs["C"]) == "int64[2] = [2*N, 6]"
    assert reg.resolve("Sub", 12).name == "Sub-7"


def test_family_extends_gives_each_member_its_own_parent(tmp_path):
    specs = _load(tmp_path, {"Add-13.toml": CHILD, "Add-7.toml": BASE})
    reg = Registry(specs)
    for op in ("Add", "Sub", "Mul"):
        child = reg.get(f"{op}-13")
        assert child.extends == f"{op}-7"
        assert child.types["T"] == reg.get(f"{op}-7").types["T"] | {"int32"}
        assert reg.resolve(op, 18) is child
    assert reg.get("Sub-13").lets["fn"][0] == '"-"'
    assert str(solve(reg.get("Sub-13"), {"A": "int32[1] = [5]", "B": "int32[1] = [7]"}).outputs["C"]) == "int32[1] = [-2]"


def test_a_member_can_extend_a_spec_of_a_plain_file(tmp_path):
    plain = BASE.replace("[family]\nAdd = { fn = '\"+\"' }\nSub = { fn = '\"-\"' }\nMul = { fn = '\"*\"', extra = \"1\" }\n", "")
    plain = plain.replace('fn = \'"?"\'', 'fn = \'"-"\'').replace('op = "Add"', 'op = "Sub"')
    child = '''extends = "Sub-7"\nversion = 14\n[family]\nSub = {}\n'''
    specs = _load(tmp_path, {"Sub-7.toml": plain, "Sub-14.toml": child})
    assert sorted(s.name for s in specs) == ["Sub-14", "Sub-7"]
    assert Registry(specs).get("Sub-14").family == ("Sub",)


def _error(tmp_path, files: dict[str, str]) -> str:
    with pytest.raises(SpecError) as exc:
        _load(tmp_path, files)
    return str(exc.value)


def test_member_missing_its_parent_is_named(tmp_path):
    child = CHILD.replace("Mul = {}", "Mul = {}\nDiv = {}")
    msg = _error(tmp_path, {"Add-7.toml": BASE, "Add-13.toml": child})
    assert "Add-13.toml:2:" in msg and "member Div" in msg and "'Div-7'" in msg


def test_member_let_that_does_not_parse_names_its_line(tmp_path):
    bad = BASE.replace("Sub = { fn = '\"-\"' }", "Sub = { fn = '\"-\" +' }")
    msg = _error(tmp_path, {"Add-7.toml": bad})
    assert "Add-7.toml:8:" in msg and "member Sub" in msg and "let fn" in msg


def test_member_let_with_unknown_name_names_its_line(tmp_path):
    bad = BASE.replace("Mul = { fn = '\"*\"', extra = \"1\" }", "Mul = { fn = '\"*\"', extra = \"nope\" }")
    msg = _error(tmp_path, {"Add-7.toml": bad})
    assert "Add-7.toml:9:" in msg and "member Mul" in msg and "nope" in msg


def test_member_that_is_not_a_table_of_lets(tmp_path):
    msg = _error(tmp_path, {"Add-7.toml": BASE.replace("Sub = { fn = '\"-\"' }", "Sub = 3")})
    assert "Add-7.toml:8:" in msg and "Sub must be a table of let definitions" in msg
    msg = _error(tmp_path, {"Add-7.toml": BASE.replace("Sub = { fn = '\"-\"' }", "Sub = { fn = 3 }")})
    assert "Add-7.toml:8:" in msg and "table of let definitions" in msg


def test_empty_family_and_op_outside_the_family(tmp_path):
    empty = BASE.replace("Add = { fn = '\"+\"' }\nSub = { fn = '\"-\"' }\nMul = { fn = '\"*\"', extra = \"1\" }\n", "")
    msg = _error(tmp_path, {"Add-7.toml": empty})
    assert "Add-7.toml:6:" in msg and "at least one member" in msg
    msg = _error(tmp_path, {"Add-7.toml": BASE.replace('op = "Add"', 'op = "Div"')})
    assert "Add-7.toml:2:" in msg and "'Div' is not a member" in msg


def test_family_extends_must_name_a_version(tmp_path):
    msg = _error(tmp_path, {"Add-7.toml": BASE, "Add-13.toml": CHILD.replace('"Add-7"', '"Add"')})
    assert "Add-13.toml:2:" in msg and "Op-VERSION" in msg


def test_a_member_defined_by_two_files_is_an_error(tmp_path):
    other = BASE.replace("Add = { fn = '\"+\"' }\n", "").replace('op = "Add"', 'op = "Sub"')
    msg = _error(tmp_path, {"Add-7.toml": BASE, "Sub-7.toml": other})
    assert "defined twice" in msg and "Sub-7" in msg


def test_cli_specs_lists_every_member(tmp_path, capsys):
    import json

    from shapecheck.cli import main
    (tmp_path / "Add-7.toml").write_text(BASE)
    (tmp_path / "Add-13.toml").write_text(CHILD)
    assert main(["--specs", str(tmp_path), "specs", "--json"]) == 0
    names = {r["name"] for r in json.loads(capsys.readouterr().out)}
    assert {f"{op}-{v}" for op in ("Add", "Sub", "Mul") for v in (7, 13)} <= names


def test_examples_expecting_a_renamed_output_are_not_inherited(tmp_path):
    # Min-6 extends Max-6 with its own output name: Max-6's examples (expecting "max") stay Max-6's
    base = BASE.replace("[family]\nAdd = { fn = '\"+\"' }\nSub = { fn = '\"-\"' }\nMul = { fn = '\"*\"', extra = \"1\" }\n", "")
    base += '\n[[examples]]\nname = "adds"\n[examples.inputs]\nA = "float[2]"\nB = "float[2]"\n[examples.expect]\nC = "float[2]"\n'
    renamed = ('extends = "Add-7"\nop = "Sub"\nversion = 7\n[[outputs]]\nname = "D"\ntype = "dtype(A)"\n'
               'shape = "broadcast(A.shape, B.shape)"\n')
    same = 'extends = "Add-7"\nop = "Mul"\nversion = 7\n'
    reg = Registry(_load(tmp_path, {"Add-7.toml": base, "Sub-7.toml": renamed, "Mul-7.toml": same}))
    assert [e.name for e in reg.get("Add-7").examples] == ["adds"]
    assert [e.name for e in reg.get("Mul-7").examples] == ["adds"]
    assert reg.get("Sub-7").examples == []
