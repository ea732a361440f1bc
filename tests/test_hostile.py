"""Hostile input: never lose a user's file, never crash, hang or pass an invalid graph.

Every case is a CLI run inside a child process with a 1 GB address-space limit
(``RLIMIT_AS``) and a 10 s timer per case; a few children run all cases (one child per
case would cost an interpreter start each).  Each case asserts its exit code (2 for
unusable input, 1 for a finding), a one-paragraph message without a traceback, and that
every input file is byte-identical afterwards.
"""
from __future__ import annotations

import re

import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import onnx
import pytest
from google.protobuf.message import DecodeError
from onnx import TensorProto as T
from onnx import helper, numpy_helper

ROOT = Path(__file__).resolve().parent.parent
V = helper.make_tensor_value_info
CASE_SECONDS = 10  # of CPU per case
WALL_SECONDS = 120  # per case, whatever the machine's load
MEMORY = 1 << 30

# the child: limits, then each case through shapecheck.cli.main with its output captured
CHILD = r"""
import contextlib, io, json, resource, signal, sys, traceback
resource.setrlimit(resource.RLIMIT_AS, (%(memory)d, %(memory)d))
from shapecheck.cli import main

class Timeout(BaseException):
    pass

def alarm(*_):
    raise Timeout()

signal.signal(signal.SIGALRM, alarm)
signal.signal(signal.SIGPROF, alarm)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
for line in sys.stdin:
    case = json.loads(line)
    out, err = io.StringIO(), io.StringIO()
    if case.get("fsize"):
        resource.setrlimit(resource.RLIMIT_FSIZE, (case["fsize"], hard))
    # a CPU budget (a busy machine does not fail a case) and a wall budget (a case that waits)
    signal.setitimer(signal.ITIMER_PROF, %(seconds)d)
    signal.alarm(%(wall)d)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(case["argv"])
    except Timeout:
        code, err = "timeout", io.StringIO("timed out")
    except BaseException:
        code = "crash"
        err.write(traceback.format_exc())
    finally:
        signal.alarm(0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    print(json.dumps({"id": case["id"], "code": code, "out": out.getvalue(), "err": err.getvalue()}), flush=True)
"""


# ---------------------------------------------------------------- inputs

def _save(m, path: Path) -> str:
    path.write_bytes(m.SerializeToString())
    return str(path)


def _model(nodes, inputs, outputs, inits=(), opsets=(("", 18),)):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])


def _scatter(name="n"):
    return helper.make_node("ScatterND", ["d", "i", "u"], ["y"], name=name)


SCATTER_IO = [V("d", T.FLOAT, ["N", 4]), V("i", T.INT64, ["M", 1]), V("u", T.FLOAT, ["M", 4])]
SPEC_HEAD = """op = "Hostile"
domain = "com.hostile"
version = 1
semantics = { kind = "scatter_nd", reduction = '"none"' }
types = { T = ["float"] }
inputs = [{ name = "data", type = "T" }, { name = "indices", type = "T" }, { name = "updates", type = "T" }]
outputs = [{ name = "output", type = "dtype(data)", shape = "data.shape" }]
"""


def _spec(d: Path, name: str, body: str, lets: str = "", raw: bytes | None = None) -> str:
    p = d / f"{name}.toml"
    if raw is not None:
        p.write_bytes(raw)
    else:
        let = f"[let]\n{lets}\n" if lets else ""
        p.write_text(SPEC_HEAD + let + f'[[constraints]]\nid = "C1"\nrule = "{body}"\nmessage = "m"\n', encoding="utf-8")
    return str(p)


def _graph_cases(d: Path) -> list[dict]:
    """Models that are not graphs (onnx.checker or onnxruntime refuses each): a finding naming the tensor."""
    cases = []

    def add(cid, m, expect, *needles):
        cases.append({"id": cid, "argv": ["check", _save(m, d / f"{cid}.onnx")], "expect": expect, "needles": needles})

    relu = lambda i, o, name="": helper.make_node("Relu", [i], [o], name=name)
    add("self-consuming node", _model([relu("y", "y")], [V("a", T.FLOAT, [2])], [V("y", T.FLOAT, None)]),
        1, "G2", "'y'")
    add("two-node cycle", _model([relu("z", "y", "p"), relu("y", "z", "q")], [V("a", T.FLOAT, [2])],
                                 [V("y", T.FLOAT, None)]), 1, "G2", "cycle", "'p'", "'q'")
    add("two writers", _model([relu("a", "y"), relu("a", "y")], [V("a", T.FLOAT, [2])], [V("y", T.FLOAT, None)]),
        1, "G1", "'y'")
    add("undefined input", _model([relu("ghost", "y")], [V("a", T.FLOAT, [2])], [V("y", T.FLOAT, None)]),
        1, "G3", "'ghost'")
    short = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[4, 4], raw_data=b"\0" * 12)
    add("short raw data", _model([helper.make_node("Add", ["a", "w"], ["y"])], [V("a", T.FLOAT, [4, 4])],
                                 [V("y", T.FLOAT, None)], [short]), 1, "G4", "'w'", "12 bytes")
    typed = helper.make_tensor("w", T.INT64, [3], [1, 2, 3])
    del typed.int64_data[2:]
    add("typed data count", _model([helper.make_node("Add", ["a", "w"], ["y"])], [V("a", T.INT64, [3])],
                                   [V("y", T.INT64, None)], [typed]), 1, "G4", "'w'")
    add("negative dim_value", _model([relu("a", "y")], [V("a", T.FLOAT, [-5, 4])], [V("y", T.FLOAT, None)]),
        0, "dim 0 as -5", "read as unknown")
    add("opset 999", _model([relu("a", "y")], [V("a", T.FLOAT, [5])], [V("y", T.FLOAT, None)], opsets=(("", 999),)),
        0, "warning", "opset 999", "up to")
    # an undeclared domain is a finding on that node; the scatter after it is still checked
    m = _model([helper.make_node("Foo", ["a"], ["b"], name="foo", domain="com.x"), _scatter()],
               [V("a", T.FLOAT, [2])] + SCATTER_IO[:2] + [V("u", T.FLOAT, ["M", 5])], [V("y", T.FLOAT, None)])
    add("undeclared domain", m, 1, "error[domain]", "'com.x'", "error[C7]")
    # subgraphs see their outer scope: a branch reading an outer tensor is fine, one reading nothing is not
    def branch(reads):
        return helper.make_graph([helper.make_node("Identity", [reads], ["o"])], "b", [], [V("o", T.FLOAT, None)])
    for cid, reads, expect, needles in (("outer scope read", "a", 0, ("OK",)),
                                        ("undefined in subgraph", "nowhere", 1, ("G3", "'nowhere'"))):
        node = helper.make_node("If", ["c"], ["y"], then_branch=branch(reads), else_branch=branch("a"))
        add(cid, _model([node], [V("c", T.BOOL, []), V("a", T.FLOAT, [2])], [V("y", T.FLOAT, None)]),
            expect, *needles)
    # a branch that makes a tensor the graph around it has made already (onnxruntime: "Graph must be in single
    # static assignment (SSA) form"), and two branches that each make a tensor of one name (onnxruntime loads it)
    remake = helper.make_node("If", ["c"], ["y"], then_branch=helper.make_graph(
        [helper.make_node("Neg", ["a"], ["s"]), helper.make_node("Identity", ["s"], ["o"])], "b", [],
        [V("o", T.FLOAT, None)]), else_branch=branch("a"))
    add("subgraph remakes an outer tensor", _model([helper.make_node("Identity", ["a"], ["s"]), remake],
                                                   [V("c", T.BOOL, []), V("a", T.FLOAT, [2])], [V("y", T.FLOAT, None)]),
        1, "G1", "'s'")
    twins = helper.make_node("If", ["c"], ["y"], then_branch=branch("a"), else_branch=branch("a"))
    add("sibling branches share a name", _model([twins], [V("c", T.BOOL, []), V("a", T.FLOAT, [2])],
                                                [V("y", T.FLOAT, None)]), 0, "OK")
    # QLinearMatMul's inner dims must agree (its spec's C3), as onnxruntime and onnx's inference say too
    q = [V(n, T.FLOAT if n.startswith("s") else T.UINT8, []) for n in ("sa", "za", "sb", "zb", "sy", "zy")]
    mm = lambda a, b: _model([helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"],
                                               name="mm")], [V("a", T.UINT8, a), V("b", T.UINT8, b)] + q,
                             [V("y", T.UINT8, None)])
    add("matmul inner dims", mm(["N", 3], [4, 5]), 1, "C3", "K must equal")
    add("matmul symbolic", mm(["N", "K"], ["K", 5]), 0, "OK")
    add("matmul unknown rank", mm(None, [4, 5]), 0, "OK")
    return cases


def _output_cases(d: Path) -> list[dict]:
    """--output through links, into external data, and interrupted by a file-size limit."""
    out = d / "out"
    out.mkdir()
    model = _save(_model([_scatter()], SCATTER_IO, [V("y", T.FLOAT, None)]), out / "m.onnx")
    os.symlink("m.onnx", out / "link.onnx")
    os.link(out / "m.onnx", out / "hard.onnx")
    os.symlink(str(out), d / "linkdir")
    ext = d / "ext"
    ext.mkdir()
    w = numpy_helper.from_array(np.arange(64, dtype=np.float32), "w")
    m = _model([helper.make_node("Add", ["a", "w"], ["y"])], [V("a", T.FLOAT, [64])], [V("y", T.FLOAT, None)], [w])
    onnx.save(m, str(ext / "e.onnx"), save_as_external_data=True, location="w.bin", size_threshold=0)
    (out / "old.onnx").write_bytes(b"the file that was there")
    same = "the same file as the input"
    cases = [
        {"id": "output symlink to model", "argv": ["check", model, "--output", str(out / "link.onnx")], "expect": 2,
         "needles": (same,)},
        {"id": "output hard link to model", "argv": ["check", model, "--output", str(out / "hard.onnx")], "expect": 2,
         "needles": (same,)},
        {"id": "output through linked dir", "argv": ["check", model, "--output", str(d / "linkdir" / "m.onnx")],
         "expect": 2, "needles": (same,)},
        {"id": "output is external data", "argv": ["check", str(ext / "e.onnx"), "--output", str(ext / "w.bin")],
         "expect": 2, "needles": (same, "w.bin")},
        {"id": "annotated copy beside external data", "argv": ["check", str(ext / "e.onnx"), "--output",
                                                                str(ext / "copy.onnx")], "expect": 0, "needles": ("OK",),
         "creates": [str(ext / "copy.onnx")]},
        {"id": "annotated copy with external data loaded", "argv": ["check", str(ext / "e.onnx"), "--load-external-data",
                                                                    "--output", str(ext / "copy2.onnx")],
         "expect": 0, "needles": ("OK",), "creates": [str(ext / "copy2.onnx")]},
        {"id": "write past the file-size limit", "argv": ["check", model, "--output", str(out / "old.onnx")],
         "expect": 2, "needles": ("cannot write", "unchanged"), "fsize": 64},
    ]
    return cases


def _bounded_cases(d: Path) -> list[dict]:
    """Deep nesting in every parser, let cycles and doubling, huge and non-UTF-8 specs, huge integers."""
    s = d / "specs"
    s.mkdir()
    deep = "(" * 3000 + "rank(data)" + ")" * 3000 + " >= 1"
    doubling = "\n".join(["a0 = \"rank(data)\""] + [f'a{i} = "a{i-1} + a{i-1}"' for i in range(1, 31)])
    chain = "\n".join(["b0 = \"rank(data)\""] + [f'b{i} = "b{i-1} + 1"' for i in range(1, 200)])
    huge = (SPEC_HEAD + "# " + "x" * 100 + "\n") * 1 + "\n".join(f"# {'y' * 200}" for _ in range(60_000))
    specs = [
        ("deep rule", _spec(s, "deep", deep), ("deep.toml", "nests more than")),
        ("long chain rule", _spec(s, "chain", " + ".join(["rank(data)"] * 3000) + " >= 1"), ("levels deep",)),
        ("let cycle", _spec(s, "cycle", "a >= 1", 'a = "b + 1"\nb = "a * 2"'), ("refers to itself", "cycle.toml:")),
        ("let doubling", _spec(s, "double", "a30 >= 1", doubling), ("double.toml", "20000 nodes")),
        ("let chain", _spec(s, "letchain", "b199 >= 1", chain), ("chain of more than",)),
        ("huge spec file", _spec(s, "huge", "", raw=huge.encode()), ("larger than",)),
        ("non-UTF-8 spec", _spec(s, "latin", "", raw=(SPEC_HEAD + "# caf\xe9\n").encode("latin-1")),
         ("not UTF-8", f"latin.toml:{SPEC_HEAD.count(chr(10)) + 1}")),
        ("int past int64 in rule", _spec(s, "bigint", "rank(data) < 99999999999999999999"), ("larger than int64",)),
        ("5000 digits in rule", _spec(s, "digits", "rank(data) < " + "9" * 5000), ("larger than int64",)),
        ("5000 digits in TOML", _spec(s, "tomlint", "", raw=(SPEC_HEAD + "x = " + "9" * 5000 + "\n").encode()),
         ("tomlint.toml",)),
        ("deep TOML arrays", _spec(s, "tomldeep", "", raw=(SPEC_HEAD + "x = " + "[" * 5000 + "]" * 5000).encode()),
         ("tomldeep.toml",)),
    ]
    cases = [{"id": cid, "argv": ["--specs", path, "specs"], "expect": 2, "needles": needles}
             for cid, path, needles in specs]
    q = ["infer", "ScatterND", "-i", "indices=int64[M,1]", "-i", "updates=float[M,4]", "-i"]
    for cid, data, needle in (("deep type", "data=float[" + "(" * 100 + "N" + ")" * 100 + ",4]", "nests more than"),
                              ("deep unary in type", "data=float[" + "-" * 100 + "N,4]", "nests more than"),
                              ("long dim expression", "data=float[" + "+".join(["N"] * 100_000) + ",4]", "tokens"),
                              ("int past int64 in type", "data=float[99999999999999999999,4]", "int64"),
                              ("5000 digits in type", "data=float[" + "9" * 5000 + ",4]", "int64"),
                              ("5000 digits in constant", "data=int64[1] = [" + "9" * 5000 + "]", "4300"),
                              ("deep constant", "data=int64 = " + "[" * 100_000 + "]" * 100_000, "nest too deeply")):
        cases.append({"id": cid, "argv": q + [data], "expect": 2, "needles": (needle,)})
    cases.append({"id": "int past int64 in attribute", "argv": ["infer", "ScatterElements", "-i", "data=float[4]", "-i",
                                                                 "indices=int64[1]", "-i", "updates=float[1]", "-a",
                                                                 "axis=" + "9" * 5000], "expect": 2, "needles": ("int64",)})
    cases.append({"id": "verify huge instance", "argv": ["verify", "ScatterND", "-i", "data=float[100000,100000]", "-i",
                                                          "indices=int64[M,1]", "-i", "updates=float[M,100000]"],
                  "expect": 2, "needles": ("elements",)})
    # dim_params that nest deeply or hold huge numbers are names, never a crash; the bad updates are a finding
    m = _model([_scatter()], [V("d", T.FLOAT, ["(" * 3000 + "N+1" + ")" * 3000, "9" * 5000 + "+1"]),
                              V("i", T.FLOAT, ["M", 1]), V("u", T.FLOAT, ["M", 3])], [V("y", T.FLOAT, None)])
    cases.append({"id": "hostile dim_params", "argv": ["check", _save(m, d / "dimparam.onnx")], "expect": 1,
                  "needles": ("error[C5]",)})
    # subgraphs nested as deep as protobuf builds them (its decoder stops at 100 message levels):
    # every walker gets there, and the innermost branch's undefined input is still found
    leaf = helper.make_graph([helper.make_node("Identity", ["ghost"], ["o"])], "b", [], [V("o", T.FLOAT, None)])
    g = leaf
    for _ in range(200):
        try:
            node = helper.make_node("If", ["c"], ["o"], then_branch=g, else_branch=leaf)
            g = helper.make_graph([node], "b", [], [V("o", T.FLOAT, None)])
        except DecodeError:  # protobuf's depth limit
            break
    m = _model(list(g.node), [V("c", T.BOOL, []), V("a", T.FLOAT, [2])], [V("o", T.FLOAT, None)])
    cases.append({"id": "deeply nested subgraphs", "argv": ["check", _save(m, d / "nested.onnx")], "expect": 1,
                  "needles": ("G3", "'ghost'")})
    return cases


# ---------------------------------------------------------------- the run

def _digest(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def _ir_cases(d: Path) -> list[dict]:
    """OpenVINO IR files edited by hand: a clear error or an unchecked node, never a traceback or a wrong spec."""
    xml = (ROOT / "examples" / "scatter_update.xml").read_text()
    blob = (ROOT / "examples" / "scatter_update.bin").read_bytes()
    cases = []

    def add(cid, text, expect, *needles):
        path = d / f"{cid.replace(' ', '_')}.xml"
        path.write_text(text)
        path.with_suffix(".bin").write_bytes(blob)
        cases.append({"id": cid, "argv": ["check", str(path)], "expect": expect, "needles": needles})

    first_dim = re.search(r"<dim>\d+</dim>", xml)
    add("IR dim past int64", xml[:first_dim.start()] + "<dim>99999999999999999999999</dim>" + xml[first_dim.end():],
        2, "larger than an int64 dim")
    add("IR dim of 5000 digits", xml[:first_dim.start()] + "<dim>" + "9" * 5000 + "</dim>" + xml[first_dim.end():],
        2, "larger than an int64 dim")
    add("IR version opset999", xml.replace('version="opset3"', 'version="opset999"', 1), 0, "unchecked")
    add("IR version banana", xml.replace('version="opset3"', 'version="banana"', 1), 0, "unchecked")
    edge = re.search(r'from-port="(\d+)"', xml)
    add("IR edge from a missing port", xml[:edge.start()] + 'from-port="77"' + xml[edge.end():], 2, "port")
    return cases


def _run_batch(cases: list[dict]) -> list[dict]:
    script = CHILD % {"memory": MEMORY, "seconds": CASE_SECONDS, "wall": WALL_SECONDS}
    feed = "".join(json.dumps({"id": c["id"], "argv": c["argv"], "fsize": c.get("fsize")}) + "\n" for c in cases)
    proc = subprocess.run([sys.executable, "-c", script], input=feed, capture_output=True, text=True, cwd=ROOT,
                          timeout=WALL_SECONDS * len(cases) + 30, check=False)
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(cases), proc.stderr[-2000:]
    return results




@pytest.fixture(scope="session")   # the module runs in one worker (--dist loadscope): built once
def outcome(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    cases = _graph_cases(d) + _output_cases(d) + _bounded_cases(d) + _ir_cases(d)
    before = _digest(d)
    batches = [cases[i::2] for i in range(2)]
    with ThreadPoolExecutor(2) as pool:
        results = [r for batch in pool.map(_run_batch, batches) for r in batch]
    after = _digest(d)
    created = {p for c in cases for p in c.get("creates", ())}
    return {c["id"]: c for c in cases}, {r["id"]: r for r in results}, before, after, created, d


ALL_IDS = [
    "self-consuming node", "two-node cycle", "two writers", "undefined input", "short raw data", "typed data count",
    "negative dim_value", "opset 999", "undeclared domain", "outer scope read", "undefined in subgraph",
    "subgraph remakes an outer tensor", "sibling branches share a name",
    "matmul inner dims", "matmul symbolic", "matmul unknown rank",
    "output symlink to model", "output hard link to model", "output through linked dir", "output is external data",
    "annotated copy beside external data", "annotated copy with external data loaded", "write past the file-size limit",
    "deep rule", "long chain rule", "let cycle", "let doubling", "let chain", "huge spec file", "non-UTF-8 spec",
    "int past int64 in rule", "5000 digits in rule", "5000 digits in TOML", "deep TOML arrays", "deep type",
    "deep unary in type", "long dim expression", "int past int64 in type", "5000 digits in type",
    "5000 digits in constant", "deep constant", "int past int64 in attribute", "verify huge instance",
    "hostile dim_params", "deeply nested subgraphs",
    "IR dim past int64", "IR dim of 5000 digits", "IR version opset999", "IR version banana", "IR edge from a missing port",
]


@pytest.mark.parametrize("cid", ALL_IDS)
def test_hostile_input(outcome, cid):
    cases, results, _before, _after, _created, _d = outcome
    case, r = cases[cid], results[cid]
    text = r["out"] + r["err"]
    assert r["code"] == case["expect"], text[-3000:]
    assert "Traceback" not in text
    for needle in case["needles"]:
        assert needle in text, (needle, text[-3000:])
    if case["expect"] == 2:
        msg = r["err"].strip()
        # a usage error, or a model that could not be checked, named by its file as compilers do
        assert re.match(r"(shapecheck: error:|\S+: error\[[\w-]+\]:)", msg) and "\n" not in msg, msg[:3000]
        assert len(msg) < 2000


def test_every_case_is_listed(outcome):
    cases, results, *_ = outcome
    assert sorted(cases) == sorted(ALL_IDS) == sorted(results)


def test_inputs_are_byte_identical_and_no_temporary_is_left(outcome):
    _cases, _results, before, after, created, _d = outcome
    changed = [p for p in before if before[p] != after.get(p)]
    assert changed == []
    new = sorted(set(after) - set(before))
    assert new == sorted(created)   # the annotated copies, nothing else (no .tmp left by the failed write)
    for p in created:   # the copies keep the external reference as it was, and their types
        m = onnx.load(p, load_external_data=False)
        (w,) = m.graph.initializer
        assert w.data_location == T.EXTERNAL and {e.key: e.value for e in w.external_data}["location"] == "w.bin"
        assert [o.type.tensor_type.shape.dim[0].dim_value for o in m.graph.output] == [64]


# ---------------------------------------------------------------- interrupted writes, in process

class _Halfway(Exception):
    pass


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_write_interrupted_halfway_keeps_the_old_file(tmp_path, monkeypatch, error):
    from shapecheck import atomic
    from shapecheck.errors import UsageError
    target = tmp_path / "out.onnx"
    target.write_bytes(b"old contents")
    real = os.fdopen

    class Half:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[: len(data) // 2])
            self.fh.flush()
            raise error

        def __getattr__(self, name):
            return getattr(self.fh, name)

    monkeypatch.setattr(atomic.os, "fdopen", lambda fd, mode: Half(real(fd, mode)))
    with pytest.raises(UsageError if isinstance(error, OSError) else KeyboardInterrupt):
        atomic.write_atomic(target, b"x" * 10_000)
    assert target.read_bytes() == b"old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.onnx"]


@pytest.mark.parametrize("value", ["9" * 5000, 10 ** 5000, 2 ** 63, [2 ** 64]], ids=["digits", "huge", "2**63", "list"])
def test_api_attribute_past_int64_is_a_usage_error(value):
    import shapecheck
    from shapecheck.errors import UsageError
    with pytest.raises(UsageError, match="holds int64 values"):
        shapecheck.infer("ScatterElements", 18, {"data": "float[4]", "indices": "int64[1]", "updates": "float[1]"},
                         {"axis": value})
