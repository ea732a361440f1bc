"""The command line as CI uses it: many models per run (files, directories, globs, workers),
global options anywhere, --version, --quiet, python -m shapecheck, table width, the --help
epilogs, the pre-commit hook, and verify --seed across processes."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import shapecheck
from shapecheck import batch
from shapecheck.cli import _build, main, parse_args

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    cap = capsys.readouterr()
    assert "Traceback" not in cap.out + cap.err
    return code, cap.out, cap.err


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Path:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / ".hidden").mkdir()
    shutil.copy(EXAMPLES / "kv_cache.onnx", tmp_path / "a" / "kv.onnx")
    shutil.copy(EXAMPLES / "subgraph.onnx", tmp_path / "a" / "b" / "sub.onnx")
    shutil.copy(EXAMPLES / "scatter_update.xml", tmp_path / "a" / "b" / "ir.xml")
    shutil.copy(EXAMPLES / "scatter_update.bin", tmp_path / "a" / "b" / "ir.bin")
    (tmp_path / "a" / "b" / "pom.xml").write_text("<project/>")          # an .xml without a .bin is not IR
    shutil.copy(EXAMPLES / "kv_cache.onnx", tmp_path / "a" / ".hidden" / "x.onnx")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_discover_directories_globs_and_files(tree):
    assert batch.discover(["a"]) == ["a/b/ir.xml", "a/b/sub.onnx", "a/kv.onnx"]
    assert batch.discover(["a/**/*.onnx"]) == ["a/b/sub.onnx", "a/kv.onnx"]
    # a file named twice (directly and through a directory) is checked once; a missing one is kept
    assert batch.discover(["a/kv.onnx", "a", "nope.onnx"]) == ["a/kv.onnx", "a/b/ir.xml", "a/b/sub.onnx", "nope.onnx"]
    assert batch.discover(["*.none"]) == ["*.none"]


def test_an_ir_without_its_bin_is_found_and_says_what_is_wrong(tree, capsys):
    # a trial's directory left out an IR whose .bin was missing, and a malformed one, from its count
    shutil.copy(EXAMPLES / "scatter_update.xml", tree / "a" / "b" / "lone.xml")
    (tree / "a" / "b" / "broken.xml").write_text("<net><layers><layer id='0'")
    assert batch.discover(["a"]) == ["a/b/broken.xml", "a/b/ir.xml", "a/b/lone.xml", "a/b/sub.onnx", "a/kv.onnx"]
    assert main(["check", "-j", "1", "-q", "a/b/broken.xml"]) == 2
    assert "unreadable" in capsys.readouterr().out


def test_check_many_in_parallel_equals_in_process(tree, capsys):
    one = json.loads(run(capsys, "check", "a", "--json", "--jobs", "1")[1])
    two = json.loads(run(capsys, "check", "a", "--jobs", "2", "--json")[1])
    assert one == two and one["summary"]["models"] == 3 and one["exit_code"] == 0
    code, out, err = run(capsys, "check", "a", "nope.onnx", "--quiet")
    assert code == 2 and "nope.onnx: error[unreadable]" in err and "no such file" in err
    assert "total: 4 models: 3 ok, 0 failed, 1 not checked" in out


def test_bad_jobs_and_output_with_several_models(tree, capsys):
    code, _, err = run(capsys, "check", "a", "--jobs", "-1")
    assert code == 2 and "--jobs" in err
    code, _, err = run(capsys, "check", "a", "--output", "x.onnx")
    assert code == 2 and "one model" in err and not Path("x.onnx").exists()


def test_global_options_before_or_after_the_subcommand():
    specs = str(ROOT / "specs")
    for argv in (["--specs", specs, "-q", "check", "m.onnx"], ["check", "m.onnx", "--specs", specs, "--quiet"],
                 ["--specs", specs, "check", "--quiet", "m.onnx"]):
        args = parse_args(argv)
        assert args.specs == [specs] and args.quiet and args.paths == ["m.onnx"]
    assert parse_args(["--specs", "x", "specs", "--specs", "y"]).specs == ["x", "y"]


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"shapecheck {shapecheck.__version__}"


def test_python_dash_m_shapecheck(tmp_path):
    p = subprocess.run([sys.executable, "-m", "shapecheck", "check", str(EXAMPLES / "kv_cache.onnx"), "--quiet"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith("OK  ") and "kv_cache.onnx: checked 1: 1 valid" in p.stdout


def test_quiet_prints_findings_and_summary_only(capsys):
    code, out, err = run(capsys, "check", str(EXAMPLES / "broken.onnx"), "--quiet")
    assert code == 1 and out.count("\n") == 1 and out.startswith("FAILED  ")
    assert err.count("error[") == 4
    code, out, _ = run(capsys, "--quiet", "infer", "ScatterND", "-i", "data=float[N,C]", "-i", "indices=int64[M,K]",
                       "-i", "updates=float[M,C]")
    assert code == 0 and "┏" not in out and "valid only if: K == 1" in out


def test_tables_fit_columns(capsys, monkeypatch):
    for width in (60, 150):
        monkeypatch.setenv("COLUMNS", str(width))
        run(capsys, "check", str(EXAMPLES / "broken.onnx"), "--nodes", "all")
        code, out, err = run(capsys, "check", str(EXAMPLES / "broken.onnx"), "--nodes", "all")
        table = [line for line in out.splitlines() if line[:1] in "┏┃┡│└"]
        assert table and max(len(line) for line in table) <= width
        # findings are never wrapped, whatever the width
        assert any(len(line) > 60 for line in err.splitlines())


def _epilog_examples() -> list[list[str]]:
    parser = _build()
    sub = next(a for a in parser._actions if a.dest == "command")
    out = []
    for p in sub.choices.values():
        text = (p.epilog or "").replace("\\\n", " ")
        out += [shlex.split(m) for m in re.findall(r"^\s+shapecheck (.+)$", text, re.M)]
    return out


@pytest.mark.parametrize("argv", _epilog_examples(), ids=lambda a: " ".join(a)[:60])
def test_help_epilog_examples_run(argv, tmp_path, monkeypatch, capsys):
    """Every example in a --help epilog is a command that runs (on a shipped model where it names one)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(EXAMPLES, tmp_path / "models", ignore=shutil.ignore_patterns("*.py", "broken*"))
    (tmp_path / "exported" / "v2").mkdir(parents=True)
    shutil.copy(EXAMPLES / "kv_cache.onnx", tmp_path / "exported" / "v2" / "kv.onnx")
    shutil.copy(EXAMPLES / "kv_cache.onnx", tmp_path / "model.onnx")
    argv = [a for a in argv if a not in (">", "docs/changelog.md", "shapecheck.sarif")]
    code, out, err = run(capsys, *argv)
    assert code in (0, 1) and "error:" not in err, (argv, err)
    if "verify" in argv:
        assert code == 0      # the solver and the executor agree on the documented examples


def test_pre_commit_hook_matches_the_cli(capsys):
    import yaml
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["language"] == "python" and hook["entry"].split()[0] == "shapecheck"
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["shapecheck"] == "shapecheck.cli:entry"
    assert re.search(hook["files"], "models/a.onnx") and not re.search(hook["files"], "pom.xml")
    # pre-commit appends the staged file names to entry + args
    argv = hook["entry"].split()[1:] + hook["args"] + [str(EXAMPLES / "kv_cache.onnx"), str(EXAMPLES / "broken.onnx")]
    code, out, _ = run(capsys, *argv)
    assert code == 1 and out.count("\n") == 3     # two summary lines and the total
    # the manifest is valid for pre-commit itself (offline)
    exe = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    if os.path.exists(exe):
        p = subprocess.run([exe, "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr


def test_verify_seed_is_reproducible_across_processes():
    argv = [sys.executable, "-m", "shapecheck", "verify", "ScatterElements", "--opset", "18", "-i", "data=float[N,C,D]",
            "-i", "indices=int64[M,K,D]", "-i", "updates=float[M,K,E]", "-a", "axis=1", "--samples", "8",
            "--seed", "5", "--json"]
    outs = []
    for hash_seed in ("1", "2"):
        p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120,
                           env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert p.returncode == 0 and p.stderr == ""
        outs.append(json.loads(p.stdout))
    assert outs[0] == outs[1]
    assert len({json.dumps(s["substitution"]) for s in outs[0]["samples"]}) > 1


def test_progress_bar_on_a_terminal_with_several_models(tree):
    import io

    from rich.console import Console

    from shapecheck.check_command import _run_with_progress
    buf = io.StringIO()
    term = Console(file=buf, force_terminal=True, width=80)
    outcomes = _run_with_progress(batch, batch.discover(["a"]), 1, {}, term)
    assert [o.exit_code for o in outcomes] == [0, 0, 0]
    assert "checking" in buf.getvalue() and "3/3" in buf.getvalue()
    buf2 = io.StringIO()
    _run_with_progress(batch, ["a/kv.onnx"], 1, {}, Console(file=buf2, force_terminal=True))
    assert "checking" in buf2.getvalue()     # one model: a bar over its nodes


def test_an_internal_error_in_one_model_does_not_stop_the_others(tree, capsys, monkeypatch):
    from shapecheck.model import check
    real = check.check_model

    def flaky(path, **kw):
        if str(path).endswith("sub.onnx"):
            raise RuntimeError("boom")
        return real(path, **kw)

    monkeypatch.setattr(check, "check_model", flaky)
    code, out, err = run(capsys, "check", "a", "--jobs", "1", "--quiet")
    assert code == 2 and "a/b/sub.onnx: error[unreadable]: internal error while checking the model (RuntimeError: boom)" in err
    assert "OK  a/kv.onnx" in out and "OK  a/b/ir.xml" in out


def test_text_notes_what_the_runtime_still_checks(capsys):
    code, out, err = run(capsys, "check", str(EXAMPLES / "kv_cache.onnx"))
    assert code == 0 and "note[runtime-check]: node 'kv_update' (#0) (ScatterND, ScatterND-18): C8 not proved here" in err
    code, out, err = run(capsys, "check", str(EXAMPLES / "broken.onnx"))
    assert "note[runtime-check]" not in out + err  # constant indices: checked (C8 refuted), nothing left to the runtime


def test_every_subpackage_is_in_the_wheel():
    """setuptools' package list is explicit: a new subpackage missing from it breaks `pip install .`."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "shapecheck").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(found - listed)}"
    assert (ROOT / "shapecheck" / "py.typed").exists()
