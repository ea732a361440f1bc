"""Imports are lazy: `shapecheck --version` loads neither sympy nor numpy nor onnx."""
from __future__ import annotations

import subprocess
import sys


def test_version_imports_no_heavy_module():
    code = ("import sys, shapecheck.cli; shapecheck.cli.main(['--version']); "
            "print(sorted(m for m in ('sympy', 'numpy', 'onnx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode in (0, None) or "shapecheck" in out.stdout, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_public_names_load_on_first_use():
    import shapecheck
    assert callable(shapecheck.execute) and callable(shapecheck.diff) and callable(shapecheck.check_model)
    import shapecheck.executor  # noqa: F401 - importing the module must not shadow the function
    assert callable(shapecheck.execute)


def test_verify_refuses_a_variadic_operator_with_a_clear_error(capsys):
    from shapecheck.cli import main
    assert main(["verify", "Concat", "--opset", "13", "-i", "inputs=float[N,4]", "-a", "axis=0"]) == 2
    err = capsys.readouterr().err
    assert "variable number" in err and "Traceback" not in err
