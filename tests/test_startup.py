"""What a fresh CLI process imports.  `shapecheck --version` loads none of sympy, numpy, onnx
and rich; a small model is read without onnx (``frontends/onnx_proto.py``) and checked without numpy
or sympy (``deferred.py``), with the same result as a full check."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper
import pytest

from shapecheck.model.check import check_model
from shapecheck.errors import UsageError
from shapecheck.frontends import load_model, is_protobuf_file, parse_model
from shapecheck.frontends.wellformed import ITEMSIZE, PACKED_BITS
from shapecheck.types import ONNX_CODES, numpy_dtype

ROOT = Path(__file__).resolve().parent.parent
KV = ROOT / "examples" / "kv_cache.onnx"


def _fresh(code: str, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)


IMPORTED = "json.dumps(sorted(m for m in ('onnx', 'numpy', 'sympy', 'shapecheck.kernels') if m in sys.modules))"


def test_the_cli_checks_a_model_without_values_importing_neither_onnx_nor_numpy():
    """Nor the kernels: the shipped specs load without them (tests/test_specs.py checks their bindings)."""
    code = ("import sys, json; from shapecheck.cli import main; "
            f"c = main(['check', {str(KV)!r}, '--json']); print({IMPORTED}); sys.exit(c)")
    run = _fresh(code)
    doc, imported = run.stdout.rsplit("\n", 2)[:2]
    assert json.loads(imported) == [], run.stderr
    full = check_model(str(KV))
    assert run.returncode == full.exit_code == 0
    assert {k: v for k, v in json.loads(doc).items() if k != "exit_code"} == full.to_dict()


def test_a_model_parsed_without_onnx_is_an_onnx_model_once_onnx_is_imported(tmp_path):
    # a fresh process: parsed first, onnx imported after; the classes are the same, so onnx's
    # checker and serializer take the model, and its bytes are those of the file
    code = ("import sys; from shapecheck.frontends.onnx_proto import parse_model; "
            "m = parse_model(open(sys.argv[1], 'rb').read()); assert 'onnx' not in sys.modules; "
            "import onnx; onnx.checker.check_model(m); "
            "print(isinstance(m, onnx.ModelProto), m.SerializeToString() == open(sys.argv[1], 'rb').read())")
    run = _fresh(code, str(KV))
    assert run.stdout.split() == ["True", "True"], run.stderr


def test_parse_model_reads_what_onnx_load_reads():
    for path in [KV, *sorted((ROOT / "tests" / "fixtures" / "zoo").glob("*.onnx"))[:5]]:
        assert parse_model(path.read_bytes()) == onnx.load(str(path), load_external_data=False), path


@pytest.mark.parametrize("bare", [True, False])
def test_a_truncated_model_is_refused_as_onnx_load_refuses_it(tmp_path, bare):
    data = KV.read_bytes()
    bad = tmp_path / "cut.onnx"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(Exception):
        onnx.load(str(bad))
    with pytest.raises(UsageError, match="cut.onnx: not an ONNX model"):
        load_model(str(bad), bare=bare)


def test_a_text_format_model_is_read_by_onnx(tmp_path):
    # onnx.load picks the format by extension; such files never reach the protobuf parser
    text = tmp_path / "kv.textproto"
    onnx.save(onnx.load(str(KV)), str(text), format="textproto")
    assert not is_protobuf_file(text) and is_protobuf_file(KV) and is_protobuf_file("model.bin")
    assert load_model(str(text), bare=True).model == onnx.load(str(KV)) == load_model(str(KV), bare=True).model
    assert check_model(str(text)).to_dict()["nodes"] == check_model(str(KV)).to_dict()["nodes"]


def test_the_raw_data_sizes_are_numpys():
    want = {code: (2 if name == "bfloat16" else numpy_dtype(name).itemsize)
            for code, name in ONNX_CODES.items() if name != "string" and code not in PACKED_BITS}
    assert ITEMSIZE == want
    # the packed types: onnx writes ceil(count * bits / 8) bytes
    for code, bits in PACKED_BITS.items():
        arr = np.zeros(5, numpy_dtype(ONNX_CODES[code]))
        assert len(numpy_helper.from_array(arr).raw_data) == -(-5 * bits // 8), ONNX_CODES[code]
    assert np.dtype(bool).itemsize == ITEMSIZE[onnx.TensorProto.BOOL]


def test_version_imports_no_heavy_module():
    code = ("import sys, shapecheck.cli; shapecheck.cli.main(['--version']); "
            "print(sorted(m for m in ('sympy', 'numpy', 'onnx', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode in (0, None) or "shapecheck" in out.stdout, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_the_command_ends_with_mains_code_and_its_output_written_but_no_teardown():
    """``entry`` (the console script, ``python -m shapecheck``) flushes both streams and ends the process
    without the interpreter's teardown: an atexit handler, which a normal exit runs, does not run."""
    for model, want in ((KV, 0), (ROOT / "examples" / "broken.onnx", 1)):
        code = ("import atexit, sys; from shapecheck.cli import entry; "
                "atexit.register(lambda: sys.stdout.write('TORN DOWN')); "
                f"entry(['check', {str(model)!r}, '--json'])")
        run = _fresh(code)
        assert run.returncode == want, run.stderr
        assert "TORN DOWN" not in run.stdout
        doc = json.loads(run.stdout)   # the whole document reached the pipe
        assert doc["model"].endswith(model.name) and doc["exit_code"] == want
    module = subprocess.run([sys.executable, "-m", "shapecheck", "check", "-q", str(ROOT / "examples" / "broken.onnx")],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert module.returncode == 1 and "FAILED" in module.stdout, module.stderr


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


def test_the_cli_checks_an_export_with_constants_without_importing_onnx():
    # Constant nodes are read from their protobuf fields: a model that needs sympy and numpy
    # (a T5 export folds its constants) still never pays for onnx's import in the CLI
    t5 = ROOT / "tests" / "fixtures" / "zoo" / "t5_ts17.onnx"
    code = ("import sys, json; from shapecheck.cli import main; "
            f"c = main(['check', {str(t5)!r}, '--json']); print({IMPORTED}); sys.exit(c)")
    run = _fresh(code)
    doc, imported = run.stdout.rsplit("\n", 2)[:2]
    assert "onnx" not in json.loads(imported) and "sympy" in json.loads(imported), run.stderr
    assert {k: v for k, v in json.loads(doc).items() if k != "exit_code"} == check_model(str(t5)).to_dict()


@pytest.mark.parametrize("attrs", [{"value_int": -3}, {"value_float": 2.5}, {"value_ints": [1, 2, 3]},
                                   {"value_floats": [1.5, -2.0]}, {"value": numpy_helper.from_array(np.ones((2, 1), np.int32))}])
def test_a_constant_node_reads_as_onnx_reference_runs_it(attrs):
    from onnx import helper
    from onnx.reference import ReferenceEvaluator
    from shapecheck.frontends.onnx_types import constant_node_value
    node = helper.make_node("Constant", [], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", 0, None)])
    want = ReferenceEvaluator(helper.make_model(graph)).run(None, {})[0]
    got = constant_node_value(node, "y").value
    assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
