"""The default registry compiles an op's specs on first use, and gives exactly what loading every
spec file gives."""
from __future__ import annotations

from shapecheck.registry.lazy import LazyRegistry, scan
from shapecheck.registry import Registry, load_files, load_registry, load_specs, spec_files, specs_dir


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


def test_only_the_version_a_model_uses_is_compiled():
    lazy = LazyRegistry(spec_files(specs_dir()), load_specs)
    assert lazy.has_op("Reshape") and not lazy.has_op("NoSuchOp") and lazy.by_name == {}
    # Neg-13.toml is a family (Neg, Abs) extending Neg-6 and Abs-6, and Abs-6 extends Neg-6: the
    # family file is compiled, the two it extends are read for what they pass on, not compiled
    lazy.resolve("Abs", 13)
    assert sorted(lazy.by_name) == ["Abs-13", "Neg-13"] and {"Abs-6", "Neg-6"} <= set(lazy.raw)
    lazy.resolve("MaxPool", 12)   # the end of a chain of versions, back to AveragePool-1
    assert sorted(lazy.by_name) == ["Abs-13", "MaxPool-12", "Neg-13"]
    assert [s.name for s in lazy.versions("Neg")] == ["Neg-1", "Neg-6", "Neg-13"]   # compiled now, from the same files


def _same(a, b):
    assert a.name == b.name and a.file == b.file
    assert a.constraints == b.constraints and a.warnings == b.warnings   # ids, rules, messages, lines, cases
    assert [o.name for o in a.outputs] == [o.name for o in b.outputs] and a.attributes.keys() == b.attributes.keys()


def test_resolving_one_version_gives_what_loading_everything_gives():
    # every op at every opset, in a registry of its own: newest first for one op (the newest
    # compiled while the versions it extends are only read, then those compiled from what was
    # read), oldest first for the next (each version compiled after the ones it extends)
    files = spec_files(specs_dir())
    full = load_registry(files)
    empty = LazyRegistry(files, load_specs)
    for i, ((domain, op), versions) in enumerate(sorted(full.by_op.items())):
        opsets = sorted({v.version for v in versions} | {versions[-1].version + 1})
        reg = empty.fresh()   # the index as scanned, nothing compiled
        for opset in opsets[::-1] if i % 2 == 0 else opsets:
            got, want = reg.resolve(op, opset, domain), full.resolve(op, opset, domain)
            _same(got, want)
            assert reg.raw[got.name] == full.raw[want.name]
        assert [s.name for s in reg.versions(op, domain)] == [s.name for s in versions]
    assert empty.by_name == {}


def test_scan_reads_family_members_and_skips_multiline_strings(tmp_path):
    f = tmp_path / "Foo-3.toml"
    f.write_text('summary = """\nop = "NotThis"\n"""\nextends = "openvino:Bar-1"\n\n[family]\nFoo = {}\nBaz = {}\n'
                 '\n[let]\nop = "x"\n')
    assert scan(f)[:3] == ("openvino", ["Foo", "Baz"], "openvino:Bar-1")
