"""The light check (``shapecheck/dims/light.py``): a check without sympy, for models whose named
dims are only compared.  It gives the full check's report, or stops with ``NeedsAlgebra`` and
leaves the model to the full check; it never gives a report of its own."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from shapecheck.model import check
from shapecheck.api import light_solve
from shapecheck.model.check import check_model, light_check
from shapecheck.solver import solve
from shapecheck.frontends import Loaded
from shapecheck.deferred import Deferred, is_sympy, sympy
from shapecheck.dims import Name, NeedsAlgebra
from shapecheck.notation import compare_dims
from shapecheck.registry import default_registry
from tests.harness.models import FLOAT, INT64, const, model, node, vi

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted([*ROOT.glob("examples/*.onnx"), *ROOT.glob("tests/fixtures/*/*.onnx")])
REGISTRY = default_registry()


def light_or_none(m, strict: bool = False):
    """The light report, or None when the light check stopped; any other error fails the test."""
    try:
        return light_check(m, REGISTRY, strict)
    except NeedsAlgebra:
        return None


# ---------------------------------------------------------------- Name

def test_a_name_equals_only_the_same_name_and_hashes_so():
    n = Name("N")
    assert n == Name("N") and hash(n) == hash(Name("N"))
    assert n != Name("M") and n != 0 and n != "N" and not (n == 3)
    assert len({n, Name("N"), Name("M")}) == 2
    assert n.free_symbols == {n} and n.xreplace({n: Name("M")}) == Name("M") and n.xreplace({}) is n
    assert str(n) == "N" and n.is_Symbol and n.is_integer and n.is_nonnegative


@pytest.mark.parametrize("use", [
    lambda n: n // 2, lambda n: n % 2, lambda n: n * (n + 1), lambda n: n / 2, lambda n: 2 // n,
    lambda n: n < 3, lambda n: n >= Name("M"), lambda n: int(n), lambda n: [0, 1][n],
    lambda n: sorted([n, Name("M")]), lambda n: sympy.Integer(2) * n if "sympy" in sys.modules else n._sympy_(),
])
def test_anything_but_comparing_adding_and_multiplying_names_needs_algebra(use):
    with pytest.raises(NeedsAlgebra):
        use(Name("N"))


def test_needs_algebra_passes_every_except_exception():
    assert not issubclass(NeedsAlgebra, Exception)


def test_barred_stops_every_read_and_restores_what_was_read():
    lazy = Deferred("fractions")
    frac = lazy.Fraction
    with lazy.barred(NeedsAlgebra):
        with pytest.raises(NeedsAlgebra):
            lazy.Fraction
        with pytest.raises(NeedsAlgebra):
            lazy.gcd
    assert lazy.Fraction is frac and lazy.Fraction(1, 2) == frac(1, 2)


def test_is_sympy_reads_no_barred_module():
    with sympy.barred(NeedsAlgebra):
        assert not is_sympy(3) and not is_sympy(Name("N"))
    assert is_sympy(sympy.Integer(3)) and not is_sympy(sympy.Integer(3), "Symbol")


@pytest.mark.parametrize("b", [-2, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparing_a_name_with_a_number_is_what_sympy_decides(op, b):
    light = compare_dims(Name("N"), op, b)
    full = compare_dims(sympy.Symbol("N", integer=True, nonnegative=True), op, b)
    assert str(light) == str(full)
    flipped = compare_dims(b, op, Name("N"))
    assert str(flipped) == str(compare_dims(b, op, sympy.Symbol("N", integer=True, nonnegative=True)))


# ---------------------------------------------------------------- the light check against the full one

def test_every_shipped_model_gets_the_full_report_or_none():
    light = []
    for p in SHIPPED:
        report = light_or_none(str(p))
        if report is not None:
            assert report.to_dict() == check_model(str(p), registry=REGISTRY).to_dict(), p
            light.append(p.name)
    # the shipped examples, a finding among them, are checked without sympy: the test is not vacuous
    assert {"kv_cache.onnx", "broken.onnx", "histogram.onnx", "subgraph.onnx"} <= set(light)


@pytest.mark.parametrize("example", ["kv_cache.onnx", "broken.onnx"])
def test_the_cli_checks_a_small_model_without_importing_sympy(example):
    path = ROOT / "examples" / example
    code = ("import sys, json; from shapecheck.cli import main; "
            f"c = main(['check', {str(path)!r}, '--json']); print(json.dumps('sympy' in sys.modules)); sys.exit(c)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    doc, imported = run.stdout.rsplit("\n", 2)[:2]
    assert json.loads(imported) is False, run.stderr
    full = check_model(str(path), registry=REGISTRY)
    assert run.returncode == full.exit_code
    assert {k: v for k, v in json.loads(doc).items() if k != "exit_code"} == full.to_dict()


EXAMPLES = [str(ROOT / "examples" / f) for f in ("broken.onnx", "kv_cache.onnx", "histogram.onnx", "subgraph.onnx")]


@pytest.mark.parametrize("options", [[], ["--strict"], ["--runtime", "onnxruntime"], ["--json"],
                                     ["--format", "sarif"], ["--format", "junit"], ["--format", "github"]])
def test_every_output_format_is_the_same_from_a_light_check(options, capsys, monkeypatch):
    # in a fresh process the CLI checks the examples without sympy; in this one (sympy imported) in full
    monkeypatch.setenv("COLUMNS", "150")
    argv = ["check", *EXAMPLES, "--jobs", "1", *options]
    code = ("import sys; from shapecheck.cli import main; c = main(sys.argv[1:]); "
            "sys.stderr.write('sympy imported' if 'sympy' in sys.modules else ''); sys.exit(c)")
    run = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={**os.environ, "COLUMNS": "150"})
    assert "sympy imported" not in run.stderr
    from shapecheck.cli import main
    assert run.returncode == main(argv) == 1
    assert run.stdout == capsys.readouterr().out


def test_a_light_solve_of_every_spec_case_is_the_full_solve():
    # every constraint's own cases (test_spec_cases.py): proved, refuted, conditional, unchecked
    light = 0
    for spec in REGISTRY:
        for rule in spec.constraints:
            for case in rule.cases:
                try:
                    got = light_solve(spec, dict(case.inputs), dict(case.attrs), spec.version, REGISTRY)
                except NeedsAlgebra:
                    continue
                full = solve(spec, dict(case.inputs), dict(case.attrs), opset=spec.version, registry=REGISTRY)
                assert got.to_dict() == full.to_dict(), f"{case.file}:{case.line}"
                light += 1
    assert light >= 5500   # 5,784 of 7,218 on 2026-12-02, with the light algebra (dims/light.py)


def test_the_cli_infers_without_importing_sympy(capsys):
    argv = ["infer", "ScatterND", "-i", "data=float[N,4]", "-i", "indices=int64[M,1]", "-i", "updates=float[K,4]",
            "--json"]
    code = ("import sys; from shapecheck.cli import main; c = main(sys.argv[1:]); "
            "sys.stderr.write('sympy imported' if 'sympy' in sys.modules else ''); sys.exit(c)")
    run = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "sympy imported" not in run.stderr
    from shapecheck.cli import main
    assert run.returncode == main(argv) == 0
    assert run.stdout == capsys.readouterr().out and '"K == M"' in run.stdout


def _pool_model(tmp_path) -> str:
    m = model([node("AveragePool", ["x"], ["y"], kernel_shape=[2], strides=[2])],
              [vi("x", FLOAT, [1, 1, "H"])], [vi("y", FLOAT, None)])
    onnx.save(m, str(tmp_path / "pool.onnx"))
    return str(tmp_path / "pool.onnx")


def test_a_model_that_floors_its_dims_is_left_to_the_full_check(tmp_path, monkeypatch):
    path = _pool_model(tmp_path)
    with pytest.raises(NeedsAlgebra):
        light_check(path, REGISTRY)
    monkeypatch.setattr(check, "sympy_imported", lambda: False)   # as in a fresh CLI process
    report, loaded = check._light_check(path, REGISTRY, False, None, False)
    assert report is None and isinstance(loaded, Loaded) and loaded.path == path   # parsed once, for both
    report = check_model(path, registry=REGISTRY, light=True)
    assert list(report.nodes[0].outputs.values()) == ["float[1,1,floor(H/2)]"]
    assert report.to_dict() == check_model(path, registry=REGISTRY).to_dict()


def test_a_model_that_adds_and_multiplies_its_dims_is_light(tmp_path):
    # Concat's N + M, its shape doubled by Add and the first dim times 4 by Mul, then ConstantOfShape:
    # sums and products of names, which the light algebra holds as sympy does (dims/light.py)
    m = model([node("Concat", ["a", "b"], ["y"], axis=0), node("Shape", ["y"], ["s"]), node("Add", ["s", "s"], ["d"]),
               node("Mul", ["d", "four"], ["q"]), node("ConstantOfShape", ["q"], ["z"])],
              [vi("a", FLOAT, ["N", 4]), vi("b", FLOAT, ["M", 4])], [vi("z", FLOAT, None)],
              initializers=[const("four", [4, 1])])
    path = str(tmp_path / "concat.onnx")
    onnx.save(m, path)
    report = light_check(path, REGISTRY)
    assert report.to_dict() == check_model(path, registry=REGISTRY).to_dict()
    assert [list(n.outputs.values()) for n in report.nodes][0] == ["float[M+N,4]"]
    assert list(report.nodes[-1].outputs.values()) == ["float[8*M+8*N,8]"]


@pytest.mark.parametrize("name", ["exports/kv_setitem_ts17.onnx", "zoo/einsum_ts17.onnx", "zoo/masks_ts17.onnx"])
def test_exports_that_multiply_their_dims_are_light(name):
    path = str(ROOT / "tests" / "fixtures" / name)
    report = light_or_none(path)
    assert report is not None and report.to_dict() == check_model(path, registry=REGISTRY).to_dict()


def test_a_vision_model_with_only_its_batch_named_is_light(tmp_path):
    # the spatial dims are numbers: Conv and pool sizes are integer arithmetic, and Flatten's
    # prod(shape[:1]) is the batch itself (1 * batch, an identity, needs no algebra)
    import numpy as np
    w = onnx.numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    fc = onnx.numpy_helper.from_array(np.ones((4 * 15 * 15, 10), np.float32), "fc")
    m = model([node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3]), node("Relu", ["c"], ["r"]),
               node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
               node("Flatten", ["p"], ["f"], axis=1), node("MatMul", ["f", "fc"], ["y"])],
              [vi("x", FLOAT, ["batch", 3, 32, 32])], [vi("y", FLOAT, ["batch", 10])], initializers=[w, fc])
    path = str(tmp_path / "cnn.onnx")
    onnx.save(m, path)
    report = light_check(path, REGISTRY)
    assert report.to_dict() == check_model(path, registry=REGISTRY).to_dict() and report.exit_code == 0
    assert [list(n.outputs.values()) for n in report.nodes][-2:] == [["float[batch,900]"], ["float[batch,10]"]]


def test_the_light_check_is_skipped_where_it_saves_nothing(tmp_path, monkeypatch):
    def never(*_a, **_k):
        raise AssertionError("the light check ran")
    monkeypatch.setattr(check, "light_check", never)
    path = str(ROOT / "examples" / "kv_cache.onnx")
    assert check._light_check(path, REGISTRY, False, None, False)[0] is None     # sympy is imported here
    monkeypatch.setattr(check, "sympy_imported", lambda: False)
    monkeypatch.setattr(check, "LIGHT_MAX_NODES", 0)                             # a large model
    report, loaded = check._light_check(path, REGISTRY, False, None, False)
    assert report is None and isinstance(loaded, Loaded)
    xml = str(ROOT / "examples" / "scatter_update.xml")
    assert check._light_check(xml, REGISTRY, False, None, False) == (None, xml)


# random small graphs of the ops that only compare and move dims, with named, numeric and
# mismatched dims and declared outputs: each light report that finishes is the full one
_DIMS = ["N", "M", 1, 3, 4]


def small_model(rnd: random.Random) -> onnx.ModelProto:
    def shape(rank):
        return [rnd.choice(_DIMS) for _ in range(rank)]

    rank = rnd.randint(1, 3)
    inputs = [vi("x", FLOAT, shape(rank))]
    nodes, inits, cur = [], [], "x"
    for n in range(1, rnd.randint(2, 5)):
        out, other = f"t{n}", f"in{n}"
        kind = rnd.choice(["unary", "binary", "scatter_elements", "scatter_nd", "matmul", "gather", "where"])
        if kind == "unary":
            nodes.append(node(rnd.choice(["Relu", "Identity", "Neg", "Softmax"]), [cur], [out]))
        elif kind == "binary":
            inputs.append(vi(other, FLOAT, shape(rnd.randint(1, rank))))
            nodes.append(node(rnd.choice(["Add", "Mul", "Sub"]), [cur, other], [out]))
        elif kind == "where":
            inputs.append(vi(other, onnx.TensorProto.BOOL, shape(rank)))
            nodes.append(node("Where", [other, cur, cur], [out]))
        elif kind == "scatter_elements":
            inputs += [vi(other, INT64, shape(rank)), vi(other + "u", FLOAT, shape(rank))]
            nodes.append(node("ScatterElements", [cur, other, other + "u"], [out], axis=0))
        elif kind == "scatter_nd":
            inputs += [vi(other, INT64, [rnd.choice(_DIMS), 1]), vi(other + "u", FLOAT, shape(rank))]
            nodes.append(node("ScatterND", [cur, other, other + "u"], [out]))
        elif kind == "matmul":
            inputs.append(vi(other, FLOAT, shape(2)))
            nodes.append(node("MatMul", [cur, other], [out]))
        else:
            inits.append(const(other, [rnd.randint(-4, 4)]))
            nodes.append(node("Gather", [cur, other], [out], axis=0))
        cur = out
    declared = None if rnd.random() < 0.3 else shape(rnd.randint(1, 4))
    return model(nodes, inputs, [vi(cur, FLOAT, declared)], initializers=inits)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.booleans())
def test_a_light_report_is_the_full_report(rnd, strict):
    m = small_model(rnd)
    light = light_or_none(m, strict)
    if light is not None:
        assert light.to_dict() == check_model(m, registry=REGISTRY, strict=strict).to_dict()


def test_random_small_models_are_often_light():
    # the property above is not vacuous: many of its models finish the light check, valid or not
    reports = [light_or_none(small_model(random.Random(seed))) for seed in range(60)]
    finished = [r for r in reports if r is not None]
    assert len(finished) >= 15
    assert {"valid", "invalid"} <= {n.status for r in finished for n in r.nodes}


def test_the_identities_give_what_sympy_gives():
    import numpy as np
    from shapecheck.notation import arith
    n = sympy.Symbol("N", integer=True, nonnegative=True)
    for op, a, b in [("+", n, 0), ("+", 0, n), ("-", n, 0), ("*", n, 1), ("*", 1, n),
                     ("+", np.int64(3), 0), ("*", 1, np.int64(4))]:
        got, want = arith(op, a, b), {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b}[op]()
        assert got == want and type(got) is (int if not is_sympy(want) else type(want)), (op, a, b, got)
    assert arith("*", 1, Name("N")) == Name("N") and arith("+", Name("N"), 0) == Name("N")
