"""The default registry compiles an op's specs on first use, and gives exactly what loading every
spec file gives."""
from __future__ import annotations

from shapecheck.notation.lazy import LazyRegistry, scan
from shapecheck.notation.load import Registry, load_files, load_specs, spec_files, specs_dir


def test_lazy_registry_equals_loading_everything():
    files = spec_files(specs_dir())
    full = Registry(load_files(files))
    lazy = LazyRegistry(files, load_specs)
    for (domain, op), versions in full.by_op.items():
        assert lazy.has_op(op, domain)
        got = lazy.versions(op, domain)
        assert [s.name for s in got] == [s.name for s in versions]
        assert [[c.id for c in s.constraints] for s in got] == [[c.id for c in s.constraints] for s in versions]
    assert set(lazy.by_op) == set(full.by_op) and set(lazy._files) == set(full.by_op)


def test_only_the_ops_a_model_uses_are_compiled():
    lazy = LazyRegistry(spec_files(specs_dir()), load_specs)
    assert lazy.has_op("Reshape") and not lazy.has_op("NoSuchOp") and lazy.by_name == {}
    lazy.resolve("Abs", 13)   # Abs-6 extends Neg-6: Neg's specs come with it, nothing else
    assert {s.op for s in lazy.by_name.values()} == {"Abs", "Neg"}


def test_scan_reads_family_members_and_skips_multiline_strings(tmp_path):
    f = tmp_path / "Foo-3.toml"
    f.write_text('summary = """\nop = "NotThis"\n"""\nextends = "openvino:Bar-1"\n\n[family]\nFoo = {}\nBaz = {}\n'
                 '\n[let]\nop = "x"\n')
    assert scan(f) == ("openvino", ["Foo", "Baz"], "openvino:Bar-1")
