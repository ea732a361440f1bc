"""The spec cache (``shapecheck/registry/cache.py``): the index and the TOML data kept between runs
are what scanning and parsing give, a changed file is read again, and a cache that cannot be read
or written changes nothing but the time."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from shapecheck.errors import SpecError
from shapecheck.registry import default_registry, spec_files, specs_dir
from shapecheck.registry.cache import CACHE_ENV, SpecIndex, cache_dir, toml_data
from shapecheck.registry.lazy import scan
from shapecheck.registry.source import read

ROOT = Path(__file__).resolve().parent.parent
FILES = spec_files(specs_dir())


def test_the_kept_index_is_the_scan_of_every_shipped_file(tmp_path):
    cold = SpecIndex(specs_dir(), tmp_path)
    assert [cold.scan(f, scan) for f in FILES] == [scan(f) for f in FILES]
    cold.save()
    warm = SpecIndex(specs_dir(), tmp_path)   # scanner None: every answer must come from the kept index
    assert [warm.scan(f, None) for f in FILES] == [scan(f) for f in FILES] and not warm.dirty


def test_a_changed_file_is_scanned_again(tmp_path):
    spec = tmp_path / "specs" / "onnx" / "Add-13.toml"
    spec.parent.mkdir(parents=True)
    shutil.copy(specs_dir() / "onnx" / "Add-13.toml", spec)
    index = SpecIndex(spec.parent.parent, tmp_path / "cache")
    assert index.scan(spec, scan)[1] == ["Add", "Sub", "Mul", "Div"]
    index.save()
    spec.write_text(spec.read_text().replace("Div = ", "Pow = "))   # another size: the kept scan is stale
    again = SpecIndex(spec.parent.parent, tmp_path / "cache")
    assert again.scan(spec, scan)[1] == ["Add", "Sub", "Mul", "Pow"] and again.dirty


def test_a_broken_or_unwritable_cache_is_ignored(tmp_path):
    where = tmp_path / "cache"
    where.mkdir()
    index = SpecIndex(specs_dir(), where)
    index.path.write_text("{not json")
    broken = SpecIndex(specs_dir(), where)
    assert broken.entries == {} and broken.scan(FILES[0], scan) == scan(FILES[0])
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be")
    index = SpecIndex(specs_dir(), blocked / "v1")
    index.scan(FILES[0], scan)
    index.save()   # cannot write: nothing raised, the index is still to be written
    assert index.dirty and blocked.read_text().startswith("a file")


def test_kept_toml_data_is_tomllib_s_for_every_shipped_spec(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    texts = [f.read_text(encoding="utf-8") for f in FILES]
    assert [toml_data(t, tomllib.loads) for t in texts] == [tomllib.loads(t) for t in texts]

    def no_parse(_text):
        raise AssertionError("parsed although kept")
    assert [toml_data(t, no_parse) for t in texts] == [tomllib.loads(t) for t in texts]
    assert len(list((cache_dir() / "toml").iterdir())) == len(set(texts))


def test_a_bad_spec_is_reported_as_without_a_cache_and_nothing_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    bad = tmp_path / "Bad-1.toml"
    bad.write_text('op = "Bad"\nversion = 1\n[[constraints]\n')
    for _ in range(2):   # the second time too: an error is never kept as data
        with pytest.raises(SpecError, match="not valid TOML"):
            read(bad)
    assert not (cache_dir() / "toml").exists()


def test_an_empty_cache_variable_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() is None
    assert toml_data('op = "X"', tomllib.loads) == {"op": "X"}
    default_registry().resolve("Add", 13)
    assert list(tmp_path.iterdir()) == []


def test_the_cli_gives_the_same_report_from_a_cold_and_a_warm_cache(tmp_path):
    env = {**os.environ, CACHE_ENV: str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "shapecheck", "check", "--format", "json", str(ROOT / "examples" / "kv_cache.onnx")]
    runs = [subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and json.loads(runs[0].stdout)
    assert (tmp_path / "cache" / "v1" / "toml").is_dir()


def test_merge_copies_spec_data_as_deepcopy_does():
    from shapecheck.registry.merge import _copied

    def containers(x, out):
        if isinstance(x, (dict, list)):
            out.add(id(x))
            for v in (x.values() if isinstance(x, dict) else x):
                containers(v, out)
        return out
    for f in FILES[::7]:
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        copied = _copied(data)
        assert copied == data and not containers(copied, set()) & containers(data, set()), f


def test_spec_files_lists_what_a_glob_lists_in_path_order(tmp_path):
    for rel in ("onnx/Add-7.toml", "onnx/_domain.toml", "onnx-ml/X-1.toml", "onnx/deep/Y-2.toml",
                "runtimes/onnxruntime.toml", "a.b/Z-1.toml", "notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text('op = "X"\n')
    for root in (specs_dir(), tmp_path):
        want = sorted(p for p in root.glob("**/*.toml")
                      if "runtimes" not in p.relative_to(root).parts[:-1] and not p.name.startswith("_"))
        assert spec_files(root) == want
