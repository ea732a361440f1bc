"""onnx's own shape-inference unit tests, run with shapecheck as the inference (on demand, not a test).

    python bench/outside_suite.py PATH/shape_inference_test.py [PATH/data_propagation_test.py ...]
        [--engine onnx|shapecheck|both] [--shapecheck DIR] [--list] [--json OUT] [-k EXPR]

The test files are onnx's (``onnx/test/shape_inference_test.py`` and ``data_propagation_test.py``
before onnx moved its tests to ``tests/python``: ``git show 1e58fd5ec^:onnx/test/<file>`` in a clone
of github.com/onnx/onnx, the tests of onnx 1.23; 1,028 tests): they are not part of this repository.  Each test builds a small graph, runs ``onnx.shape_inference.infer_shapes``
(through its ``_inferred`` helper, or directly) and asserts the inferred types, or an error.

With ``--engine shapecheck`` the inference is swapped, in a pytest run of its own:

* ``onnx.shape_inference.infer_shapes(model, check_type, strict_mode, data_prop)`` runs
  ``shapecheck.check_model(model)`` and returns ``shapecheck.annotate(model)`` (the inferred types
  in value_info and the graph outputs).  A model the report finds invalid (an invalid node, a
  model-level finding, a declaration that contradicts inference) raises onnx's error:
  ``InferenceError`` when a node or a declaration is refused, else ``onnx.checker.ValidationError``
  for what onnx's checker refuses (a deprecated operator, an undeclared domain, a tensor defined
  twice or never, nodes out of order).  Without ``strict_mode`` only the second kind raises, as
  onnx's inference ignores node errors then.  A ``ShapeCheckError`` (the package's documented
  error type: the model cannot be used at all, such as a function that calls itself) is both.
* ``onnx.checker.check_model(model, full_check=True)`` runs onnx's checker without its full check,
  then the swapped inference in strict mode (the full check is onnx's strict inference).

Anything else shapecheck raises is a crash.  ``infer_function_output_types`` (function_inference_test)
has no shapecheck counterpart and is not swapped.  Each failing test is classified:

    crash            an exception other than ShapeCheckError escaped check_model/annotate
    missed error     the test expects an error, shapecheck finds the model valid
    refusal          shapecheck refuses a model the test expects to pass (or refuses it with
                     the other error kind)
    message          both refuse the model, in other words than the test matches
    wrong type       an inferred type differs from the test's (element type, rank or a dim)
    more exact       shapecheck inferred a shape or dim where the test expects an unknown one (or
                     a name onnx's inference made up, unk__0)
    value_info set   shapecheck typed other tensors than the test expects (more or fewer)
    checker refuses  onnx.checker refuses the annotated model
    other            anything else (the message says what)

``--shapecheck DIR`` imports shapecheck from DIR (default: the repository holding this script),
so that two checkouts can be compared.  Prints the pass counts per engine and the failures by class.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLASSES = ("crash", "missed error", "refusal", "message", "wrong type", "more exact", "value_info set", "checker refuses",
           "other")
# engine findings that onnx's checker (ValidationError), not its inference, refuses
VALIDATION = frozenset({"deprecated", "domain", "G1", "G2", "G3"})


# ---------------------------------------------------------------- the swapped inference (worker side)

def install_shapecheck() -> None:
    """Swap onnx's inference (and the full check of its checker) for shapecheck's."""
    import onnx
    import onnx.checker
    import onnx.shape_inference

    import shapecheck
    from shapecheck.errors import ShapeCheckError

    original_infer, original_check = onnx.shape_inference.infer_shapes, onnx.checker.check_model

    class ShapecheckCrash(RuntimeError):
        """An exception other than ShapeCheckError escaped shapecheck."""

    class ShapecheckInferenceError(onnx.shape_inference.InferenceError):
        pass

    class ShapecheckValidationError(onnx.checker.ValidationError):
        pass

    class ShapecheckUnusable(ShapecheckInferenceError, ShapecheckValidationError):
        """A ShapeCheckError: the model cannot be used at all (onnx raises either kind for such)."""

    class AnnotatedModelInvalid(onnx.checker.ValidationError):
        pass

    produced: set[int] = set()   # ids of the models the swapped inference returned

    def refusals(report) -> tuple[list[str], list[str]]:
        """(the checker's kind, the inference's kind) of what the report refuses, as text."""
        checker, inference = [], []
        for f in report.violations:
            (checker if f.constraint in VALIDATION else inference).append(f"model: {f}")
        for n in report.nodes:
            for f in n.violations:
                (checker if f.constraint in VALIDATION else inference).append(f"{n.name} ({n.op_type}): {f}")
        inference += [d.message for d in report.declarations if d.status == "contradicts"]
        return checker, inference

    def infer_shapes(model, check_type=False, strict_mode=False, data_prop=False):
        if isinstance(model, bytes):
            model = onnx.load_from_string(model)
        if not isinstance(model, onnx.ModelProto):
            return original_infer(model, check_type, strict_mode, data_prop)   # onnx's own TypeError
        try:
            report = shapecheck.check_model(model)
            annotated = shapecheck.annotate(model)
        except ShapeCheckError as exc:
            raise ShapecheckUnusable(f"[shapecheck] {type(exc).__name__}: {exc}") from exc
        except Exception as exc:
            raise ShapecheckCrash(f"{type(exc).__name__}: {exc}") from exc
        checker, inference = refusals(report)
        if inference and strict_mode:
            raise ShapecheckInferenceError("[shapecheck] " + "; ".join(inference + checker))
        if checker:
            raise ShapecheckValidationError("[shapecheck] " + "; ".join(checker))
        produced.add(id(annotated))
        return annotated

    def check_model(model, full_check=False, skip_opset_compatibility_check=False, check_custom_domain=False):
        if isinstance(model, (str, os.PathLike)):
            model = onnx.load(model)
        try:
            original_check(model, False, skip_opset_compatibility_check, check_custom_domain)
        except onnx.checker.ValidationError as exc:
            if id(model) in produced:
                raise AnnotatedModelInvalid(str(exc)) from exc
            raise
        if full_check:
            infer_shapes(model, True, True)

    onnx.shape_inference.infer_shapes = infer_shapes
    onnx.checker.check_model = check_model
    _KINDS.update(crash=ShapecheckCrash, inference=ShapecheckInferenceError,
                  validation=ShapecheckValidationError, checker=AnnotatedModelInvalid)


_KINDS: dict[str, type] = {}


def classify(excinfo) -> str:
    """The class (``CLASSES``) of a failing test's exception."""
    exc = excinfo.value
    if _KINDS and isinstance(exc, _KINDS["crash"]):
        return "crash"
    if _KINDS and isinstance(exc, _KINDS["checker"]):
        return "checker refuses"
    if _KINDS and isinstance(exc, (_KINDS["inference"], _KINDS["validation"])):
        return "refusal"
    text = str(exc)
    if "DID NOT RAISE" in text:
        return "missed error"
    if "Regex pattern did not match" in text:
        return "message"
    if isinstance(exc, AssertionError):
        if "Expected value infos for" in text:
            return "value_info set"
        frames = [e for e in excinfo.traceback if e.name == "_compare_value_infos"]
        if frames:
            return "more exact" if _more_exact(frames[-1].locals) else "wrong type"
    return "other"


def _more_exact(local: dict) -> bool:
    """True when the failed comparison is the test's unknown (no shape, an empty dim, a dim named
    unk__N by onnx's inference) against a shape or dim shapecheck inferred."""
    want, got = local.get("vi_type"), local.get("inferred_vi_type")
    if want is None or got is None or not want.HasField("tensor_type"):
        return False
    w, g = want.tensor_type, got.tensor_type
    if not w.HasField("shape"):
        return g.HasField("shape") and w.elem_type == g.elem_type
    if not g.HasField("shape") or len(w.shape.dim) != len(g.shape.dim):
        return False
    return all(a == b or not (a.HasField("dim_value") or a.HasField("dim_param")) or a.dim_param.startswith("unk__")
               for a, b in zip(w.shape.dim, g.shape.dim))


class Collector:
    """A pytest plugin: every test's outcome, and a failure's class and message."""

    def __init__(self):
        self.rows: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        row = self.rows.setdefault(report.nodeid, {"outcome": "passed"})
        if report.skipped:
            row["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
        elif report.failed:
            row["outcome"] = "failed"
        elif report.when == "call" and hasattr(report, "wasxfail"):
            row["outcome"] = "xpassed"

    def pytest_exception_interact(self, node, call, report):
        row = self.rows.setdefault(report.nodeid, {})
        row["class"] = classify(call.excinfo)
        row["message"] = f"{call.excinfo.type.__name__}: {call.excinfo.value}".replace("\n", " ")[:400]


def worker(engine: str, files: list[str], out: str, keyword: str | None) -> None:
    import pytest
    if engine == "shapecheck":
        install_shapecheck()
    collector = Collector()
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as ini:
        ini.write("[pytest]\n")
    args = ["-q", "-p", "no:cacheprovider", "-c", ini.name, "--rootdir", str(Path(files[0]).parent),
            "--no-header", "-o", "console_output_style=classic", "--tb=no", "-rN", *files]
    if keyword:
        args += ["-k", keyword]
    try:
        pytest.main(args, plugins=[collector])
    finally:
        os.unlink(ini.name)
    where = sys.modules["shapecheck"].__file__ if "shapecheck" in sys.modules else ""
    Path(out).write_text(json.dumps({"shapecheck": where, "rows": collector.rows}, indent=1))


# ---------------------------------------------------------------- the driver

def run_engine(engine: str, files: list[str], shapecheck_dir: Path, keyword: str | None) -> dict[str, dict]:
    """Run the suite in a process of its own (tests register schemas; each engine starts clean)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shapecheck_dir), os.environ.get("PYTHONPATH", "")]))
        cmd = [sys.executable, __file__, "--worker", engine, "--out", str(out), *files]
        if keyword:
            cmd += ["-k", keyword]
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=False)
        data = json.loads(out.read_text())
    if engine == "shapecheck":
        print(f"shapecheck from {data['shapecheck']}")
    return data["rows"]


def summarize(engine: str, rows: dict[str, dict]) -> str:
    outcomes = Counter(r["outcome"] for r in rows.values())
    line = f"{engine:>10}: {outcomes['passed']} passed of {len(rows)}"
    rest = ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()) if k != "passed")
    return line + (f" ({rest})" if rest else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="onnx's test files (shape_inference_test.py, ...)")
    ap.add_argument("--engine", choices=("onnx", "shapecheck", "both"), default="both")
    ap.add_argument("--shapecheck", type=Path, default=REPO, help="the checkout to import shapecheck from")
    ap.add_argument("--list", action="store_true", help="list every test shapecheck fails, with its class")
    ap.add_argument("--json", help="write every test's outcome per engine to this file")
    ap.add_argument("-k", dest="keyword", help="pytest's -k: run only the matching tests")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    files = [str(Path(f).resolve()) for f in args.files]
    if args.worker:
        worker(args.worker, files, args.out, args.keyword)
        return 0
    engines = ("onnx", "shapecheck") if args.engine == "both" else (args.engine,)
    results = {e: run_engine(e, files, args.shapecheck.resolve(), args.keyword) for e in engines}
    for e, rows in results.items():
        print(summarize(e, rows))
    sc = results.get("shapecheck")
    if sc is not None:
        failing = {k: r for k, r in sc.items() if r["outcome"] == "failed"}
        by_class = Counter(r.get("class", "other") for r in failing.values())
        print("shapecheck's failures: " + (", ".join(f"{by_class[c]} {c}" for c in CLASSES if by_class[c]) or "none"))
        if "onnx" in results:
            both = sum(1 for k in failing if results["onnx"].get(k, {}).get("outcome") == "failed")
            print(f"  of which onnx fails too: {both}")
        if args.list:
            for c in CLASSES:
                for k, r in sorted(failing.items()):
                    if r.get("class", "other") == c:
                        print(f"[{c}] {k.split('::', 1)[-1]}: {r.get('message', '')[:300]}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
