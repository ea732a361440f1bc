"""Every shipped spec loads, every example of every spec goes through the solver, and
opset resolution picks the right version (or says clearly why none exists)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import shapecheck
from shapecheck import UsageError
from shapecheck.cli import main
from shapecheck.solver import solve
from shapecheck.registry import default_registry, spec_files, specs_dir
from shapecheck.containers import is_container, parse_value_type, tensors_in, type_text
from shapecheck.dims import is_unknown

REG = default_registry()
SPEC_FILES = spec_files(specs_dir())

# The 11 spec files shipped under specs/: name -> (op, domain, version, deprecated)
# deprecated specs, by name; every other spec file is a live operator version
DEPRECATED = {"Scatter-11", "Upsample-10", "ai.onnx.ml:TreeEnsembleClassifier-5", "ai.onnx.ml:TreeEnsembleRegressor-5"}


def _names_in(path: Path) -> list[str]:
    """The specs a file defines: its stem, or for a [family] file (named after its first member) each member."""
    members = tomllib.loads(path.read_text()).get("family")
    version = path.stem.rsplit("-", 1)[1]
    stems = [f"{m}-{version}" for m in members] if members else [path.stem]
    return [s if path.parent.name == "onnx" else f"{path.parent.name}:{s}" for s in stems]


EXPECTED_SPECS = {name: name in DEPRECATED for p in SPEC_FILES for name in _names_in(p)}
# the scatter family as issue 11 completes it
SCATTER_FAMILY = {"TensorScatter-24", "GatherND-11", "GatherND-12", "GatherND-13", "GatherElements-11",
                  "GatherElements-13", "openvino:ScatterElementsUpdate-3", "openvino:ScatterElementsUpdate-12",
                  "openvino:ScatterNDUpdate-3", "openvino:ScatterNDUpdate-15", "openvino:ScatterUpdate-3",
                  "openvino:SliceScatter-15"}


def test_the_scatter_family_is_shipped():
    assert SCATTER_FAMILY <= set(EXPECTED_SPECS) and SCATTER_FAMILY <= {s.name for s in REG}
    # each of their constraints carries its own prove/refute/conditional cases (own or inherited)
    for name in SCATTER_FAMILY:
        assert [c.id for c in REG.get(name).constraints if not c.cases] == [], name


def _examples():
    for spec in REG:
        for ex in spec.examples:
            yield pytest.param(spec, ex, id=f"{spec.name}:{ex.name}")


def test_every_spec_file_loads_into_the_registry():
    names = sorted(s.name for s in REG)
    assert names == sorted(EXPECTED_SPECS)
    for spec in REG:
        assert bool(spec.deprecated) == EXPECTED_SPECS[spec.name], spec.name
        assert Path(spec.file).is_file()
        assert spec.constraints, f"{spec.name} has no constraints"
        assert spec.outputs, f"{spec.name} has no outputs"


def test_every_shipped_spec_binds_its_kernels_arguments():
    """The shipped specs are loaded without importing the kernels (a check never executes a node);
    here each one's [semantics] is checked against its kernel as a user's spec directory is."""
    from shapecheck.registry import load_specs, spec_files, specs_dir
    loaded = load_specs(spec_files(specs_dir()), check_kernels=True)
    assert len(loaded) == len(list(REG)) and all(spec is not None for spec, _ in loaded)


def test_spec_versions_match_their_file_names():
    # the file name says op-version; the loaded spec must agree (extends must not leak the parent's version)
    # a [family] file is named after its first member
    for spec in REG:
        assert Path(spec.file).stem == f"{(spec.family or (spec.op,))[0]}-{spec.version}", spec.name
        assert not spec.family or spec.op in spec.family


def test_inherited_specs_keep_their_own_changes():
    # ScatterND-13 only adds bfloat16 to T; ScatterND-11 must not have it
    assert "bfloat16" not in REG.get("ScatterND-11").types["T"]
    assert "bfloat16" in REG.get("ScatterND-13").types["T"]
    assert REG.get("ScatterND-11").types["T"] | {"bfloat16"} == REG.get("ScatterND-13").types["T"]
    # reduction exists from 16 on; max/min only from 18
    assert "reduction" not in REG.get("ScatterND-13").attributes
    assert REG.get("ScatterND-16").rule("C9").rule == 'reduction in {"none", "add", "mul"}'
    assert REG.get("ScatterND-18").rule("C9").rule == 'reduction in {"none", "add", "mul", "max", "min"}'
    # deprecation is not inherited: ScatterElements-11 extends the deprecated Scatter-11
    assert REG.get("Scatter-11").deprecated
    assert not REG.get("ScatterElements-11").deprecated
    assert REG.get("ScatterElements-11").op == "ScatterElements"
    # Scatter-11 replaces C9's message (the bound is stated in 11) but keeps C1..C8 from 9
    assert [r.id for r in REG.get("Scatter-11").constraints] == [r.id for r in REG.get("Scatter-9").constraints]
    assert "error if any is out of bounds" in REG.get("Scatter-11").rule("C9").message


def _same_type(got, want) -> bool:
    """The same type, values aside; a sequence, optional or map part by part (each element where known)."""
    if is_container(want) or is_container(got):
        if type(got) is not type(want):
            return False
        inner = [(a, b) for a, b in zip(tensors_in(got), tensors_in(want))]
        return len(inner) == len(list(tensors_in(want))) and all(type_text(a) == type_text(b) for a, b in inner) and \
            getattr(got, "length", None) == getattr(want, "length", None) and \
            getattr(got, "present", None) == getattr(want, "present", None)
    # a dim the page leaves to the data (ImageDecoder's height) is written ? and is a run-time size
    same_shape = got.shape == want.shape or (got.shape is not None and want.shape is not None and
                                             len(got.shape) == len(want.shape) and
                                             all(g == w or (is_unknown(w) and is_unknown(g))
                                                 for g, w in zip(got.shape, want.shape)))
    return got.dtype == want.dtype and same_shape and (got.is_static or not want.is_static)


@pytest.mark.parametrize("spec,ex", list(_examples()))
def test_example_gives_expected_output_type(spec, ex):
    result = solve(spec, ex.inputs, ex.attrs)
    for name, text in ex.expect.items():
        want = parse_value_type(text)
        got = result.outputs[name]
        assert _same_type(got, want), f"{spec.name} {ex.name}: {got} != {want}"
        if not is_container(want) and want.shape is not None and all(type(d) is int for d in want.shape):
            assert got.is_static
    # every example is a legal query: constant inputs decide everything, so nothing is left open
    if spec.deprecated:
        assert result.status == "invalid"
        assert [v.constraint for v in result.violations] == ["deprecated"]
    else:
        assert result.status == "valid", [str(v) for v in result.violations] + result.conditions
        assert not result.conditions
    # an example whose indices are constant has its index bounds actually checked, not skipped
    if all(isinstance(t, str) and "=" in t for t in ex.inputs.values()):
        assert all(c.status == "proved" for c in result.constraints), \
            [(c.id, c.status) for c in result.constraints]


def test_every_spec_has_examples_or_inherits_them():
    for spec in REG:
        assert spec.examples, spec.name


def test_examples_in_files_are_what_the_registry_holds():
    # each [[examples]] of a file (own, not inherited) is present in its spec under the same name
    for path in SPEC_FILES:
        raw = tomllib.loads(path.read_text())
        own = [e["name"] for e in raw.get("examples", [])]
        spec = next(s for s in REG if Path(s.file) == path)
        names = [e.name for e in spec.examples]
        for n in own:
            assert n in names, (path.name, n)


def test_cli_specs_lists_every_spec_file(capsys):
    assert main(["specs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted(r["name"] for r in rows) == sorted(EXPECTED_SPECS)
    assert {r["name"]: r["deprecated"] for r in rows} == EXPECTED_SPECS
    assert main(["specs"]) == 0
    text = capsys.readouterr().out
    for name in EXPECTED_SPECS:
        op, version = name.split(":")[-1].rsplit("-", 1)
        assert op in text
    assert text.count("ScatterND") >= 4


# ---------------------------------------------------------------- version resolution

@pytest.mark.parametrize("op,opset,want", [
    ("ScatterND", 11, "ScatterND-11"),
    ("ScatterND", 12, "ScatterND-11"),
    ("ScatterND", 13, "ScatterND-13"),
    ("ScatterND", 15, "ScatterND-13"),
    ("ScatterND", 16, "ScatterND-16"),
    ("ScatterND", 17, "ScatterND-16"),
    ("ScatterND", 18, "ScatterND-18"),
    ("ScatterND", 25, "ScatterND-18"),
    ("ScatterElements", 11, "ScatterElements-11"),
    ("ScatterElements", 17, "ScatterElements-16"),
    ("Scatter", 9, "Scatter-9"),
    ("Scatter", 10, "Scatter-9"),
    ("Scatter", 11, "Scatter-11"),
    ("Scatter", 18, "Scatter-11"),
    ("openvino:ScatterElementsUpdate", 3, "openvino:ScatterElementsUpdate-3"),
    ("openvino:ScatterElementsUpdate", 11, "openvino:ScatterElementsUpdate-3"),
    ("openvino:ScatterElementsUpdate", 12, "openvino:ScatterElementsUpdate-12"),
    ("openvino:ScatterElementsUpdate", 16, "openvino:ScatterElementsUpdate-12"),
    ("openvino:ScatterNDUpdate", 14, "openvino:ScatterNDUpdate-3"),
    ("openvino:ScatterNDUpdate", 15, "openvino:ScatterNDUpdate-15"),
    ("GatherND", 12, "GatherND-12"),
    ("GatherElements", 12, "GatherElements-11"),
    ("TensorScatter", 25, "TensorScatter-24"),
])
def test_resolve(op, opset, want):
    assert REG.resolve(op, opset).name == want


def test_resolve_through_infer_reports_the_spec_used():
    q = {"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"}
    assert shapecheck.infer("ScatterND", 17, q).spec == "ScatterND-16"
    ov = {"data": "float[N,C]", "indices": "int64[M,C]", "updates": "float[M,C]", "axis": "int64[] = 0"}
    for opset, want in ((3, "openvino:ScatterElementsUpdate-3"), (12, "openvino:ScatterElementsUpdate-12")):
        r = shapecheck.infer("openvino:ScatterElementsUpdate", opset, ov)
        assert r.spec == want
        assert r.op == "openvino:ScatterElementsUpdate"


def test_resolve_before_first_version_is_a_clear_usage_error():
    with pytest.raises(UsageError) as exc:
        REG.resolve("ScatterElements", 10)
    msg = str(exc.value)
    assert "ScatterElements-11" in msg and "opset 10" in msg
    with pytest.raises(UsageError, match="Scatter-9"):
        REG.resolve("Scatter", 8)
    with pytest.raises(UsageError, match="ScatterND-11"):
        shapecheck.infer("ScatterND", 10, {})


def test_resolve_unknown_op_names_the_nearest_ones():
    with pytest.raises(UsageError) as exc:
        REG.resolve("ScatterNd", 13)
    assert "did you mean ScatterND?" in str(exc.value)
    with pytest.raises(UsageError) as exc:
        REG.resolve("NoSuchOp", 13)
    assert "`shapecheck specs` lists them all" in str(exc.value) and len(str(exc.value)) < 200
    # the OpenVINO op is not an ONNX op
    with pytest.raises(UsageError):
        REG.resolve("ScatterElementsUpdate", 3)


def test_get_by_name():
    assert REG.get("ScatterND-16").version == 16
    assert REG.get("openvino:ScatterElementsUpdate-3").domain == "openvino"
    with pytest.raises(UsageError, match="unknown spec"):
        REG.get("ScatterND-17")


# ---------------------------------------------------------------- ScatterND, k < rank

def test_scatternd_slice_updates_need_trailing_data_dims():
    # data [4,4,4], indices [2,1] -> k = 1 < r = 3: each index addresses a [4,4] slice,
    # so updates are indices.shape[:-1] ++ data.shape[1:] = [2] ++ [4,4]
    base = {"data": "float[4,4,4]", "indices": "int64[2,1]"}
    ok = shapecheck.infer("ScatterND", 18, {**base, "updates": "float[2,4,4]"})
    assert ok.status == "valid"
    assert str(ok.outputs["output"]) == "float[4,4,4]"

    bad = shapecheck.infer("ScatterND", 18, {**base, "updates": "float[2,4]"})
    assert bad.status == "invalid"
    assert [v.constraint for v in bad.violations] == ["C7"]
    v = bad.violations[0]
    assert v.rule == "updates.shape == indices.shape[:-1] ++ data.shape[k:]"
    assert "give updates the shape [2,4,4]" in v.fix
    assert v.values["updates.shape"] == "[2,4]"
    assert v.values["data.shape[k:]"] == "[4,4]"
    # the page's data.shape[k:r-1] would give [2,4]: it must not be accepted at any version
    for opset in (11, 13, 16):
        assert shapecheck.infer("ScatterND", opset, {**base, "updates": "float[2,4]"}).status == "invalid"


def test_scatternd_full_index_updates_are_scalars_per_row():
    # k == r: each row of indices addresses one element, updates = indices.shape[:-1]
    r = shapecheck.infer("ScatterND", 18, {"data": "float[4,4]", "indices": "int64[5,2]", "updates": "float[5]"})
    assert r.status == "valid"
    # k == 0: each update replaces the whole tensor (runtime-findings Q8)
    r = shapecheck.infer("ScatterND", 18, {"data": "float[4,4]", "indices": "int64[2,0]", "updates": "float[2,4,4]"})
    assert r.status == "valid"
