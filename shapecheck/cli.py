"""Command line: argument parsing, output streams and exit codes (0 ok, 1 findings, 2 unusable input).

No logic of its own: every command calls the package's API and a renderer from
``shapecheck.report``.  Global options (``--specs``, ``--quiet``) are accepted before or after
the subcommand.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any, NoReturn, Sequence, cast

if TYPE_CHECKING:
    from rich.console import Console

from . import __version__
from .errors import ShapeCheckError, UsageError
from .check_command import check, check_arguments

EPILOG = "exit codes: 0 valid (or only conditions), 1 violations found, 2 unusable input"
CHECK_EPILOG = """examples:
  shapecheck check model.onnx
  shapecheck check models/ 'exported/**/*.onnx' --jobs 4
  shapecheck check models/ --format sarif > shapecheck.sarif
  shapecheck check models/ --format github --quiet

exit codes: the worst over all models: 0 valid (or only conditions), 1 findings, 2 a model or an
option is unusable"""
INFER_EPILOG = """examples:
  shapecheck infer ScatterND --opset 18 -i data='float[N,C]' -i indices='int64[M,K]' -i updates='float[M,C]'
  shapecheck infer ScatterElements --opset 16 -i data='float[4,5]' -i indices='int64[2,5]' \
      -i updates='float[2,5]' -a axis=0 -a reduction=add

""" + EPILOG
VERIFY_EPILOG = """examples:
  shapecheck verify ScatterND --opset 18 -i data='float[N,C]' -i indices='int64[M,K]' -i updates='float[M,C]'
  shapecheck verify ScatterElements --opset 18 -i data='float[N,C]' -i indices='int64[M,C]' \
      -i updates='float[M,C]' -a axis=0 --samples 50 --seed 3

exit codes: 0 solver and executor agree on every sample, 1 a disagreement (with a reproducer),
2 unusable input"""
DIFF_EPILOG = """examples:
  shapecheck diff ScatterND-16 ScatterND-18
  shapecheck diff ScatterND --opset 11..18
  shapecheck diff --all --markdown > docs/changelog.md

exit codes: 0 (differences are results, not failures), 2 unusable input"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # one paragraph, exit 2
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def _globals(p: argparse.ArgumentParser, suffix: str = "") -> None:
    """The global options; on a subcommand they land in ``*_sub`` and are merged after parsing."""
    p.add_argument("--specs", dest="specs" + suffix, action="append", default=[], metavar="DIR",
                   help="load extra spec files from DIR (repeatable)")
    p.add_argument("-q", "--quiet", dest="quiet" + suffix, action="store_true",
                   help="print the errors, the warnings and the summary only")
    p.add_argument("--version", action="version", version=f"shapecheck {__version__}")


def _build() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    p = _Parser(prog="shapecheck", description="Symbolic shape and type checker for ONNX and OpenVINO models: "
                "which input sizes a model is valid for, and why.", epilog=EPILOG, formatter_class=fmt)
    _globals(p)
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    q = sub.add_parser("infer", help="check one operator query and infer its output types (given a model: every "
                       "tensor's type)", epilog=INFER_EPILOG,
                       formatter_class=fmt)
    _query_args(q)
    q.add_argument("--json", action="store_true", help="print the result as JSON")

    s = sub.add_parser("specs", help="list every spec", formatter_class=fmt)
    s.add_argument("--json", action="store_true")

    v = sub.add_parser("verify", help="confirm the solver by running the executor on sampled shapes",
                       epilog=VERIFY_EPILOG, formatter_class=fmt)
    _query_args(v)
    v.add_argument("--samples", type=int, default=20, help="how many instances to draw (default 20)")
    v.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    v.add_argument("--json", action="store_true")

    c = sub.add_parser("check", help="check every node of ONNX models or OpenVINO IR", epilog=CHECK_EPILOG,
                       formatter_class=fmt)
    check_arguments(c)

    d = sub.add_parser("diff", help="what changed between two operator versions, with witnesses", epilog=DIFF_EPILOG,
                       formatter_class=fmt)
    d.add_argument("a", nargs="?", help="a spec name (ScatterND-16) or, with --opset, an operator")
    d.add_argument("b", nargs="?", help="the spec to compare with")
    d.add_argument("--opset", metavar="LO..HI", help="diff every consecutive pair of versions of operator A in LO..HI")
    d.add_argument("--all", action="store_true", help="every consecutive pair of every operator")
    dfmt = d.add_mutually_exclusive_group()
    dfmt.add_argument("--json", action="store_true")
    dfmt.add_argument("--markdown", action="store_true")
    for sp in (q, s, v, c, d):
        _globals(sp, "_sub")
    return p


def _query_args(q: argparse.ArgumentParser) -> None:
    q.add_argument("op", help="operator, e.g. ScatterND, TensorScatter or openvino:ScatterNDUpdate (shapecheck specs "
                   "lists them); for infer, a model file too")
    q.add_argument("--opset", type=int, default=18, help="opset of the operator's domain (default 18)")
    q.add_argument("-i", "--input", action="append", default=[], metavar="NAME=TYPE",
                   help='an input type, e.g. data=float[N,C] or indices="int64[2,1] = [[0],[3]]"')
    q.add_argument("-a", "--attr", action="append", default=[], metavar="NAME=VALUE",
                   help="an attribute, e.g. reduction=add or axis=1")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    args = _build().parse_args(list(argv))
    args.specs = list(args.specs) + list(getattr(args, "specs_sub", []))
    args.quiet = bool(args.quiet or getattr(args, "quiet_sub", False))
    return args


def parse_assignments(items: Sequence[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"bad {what} {item!r}: expected NAME=VALUE, e.g. "
                             + ("data=float[N,C]" if what == "input" else "reduction=add"))
        out[name.strip()] = value.strip()
    return out


def parse_attr_value(text: str) -> Any:
    """``1`` -> 1, ``add`` -> "add", ``[1,2]`` -> [1, 2], ``'x'`` -> "x"."""
    t = text.strip()
    if re.fullmatch(r"-?\d+", t):
        if len(t.lstrip("-")) > 19 or not -(1 << 63) <= int(t) < (1 << 63):
            raise UsageError(f"bad attribute value {t[:30]!r}: an integer attribute is int64")
        return int(t)
    if t.startswith("["):
        try:
            return json.loads(t)
        except (ValueError, RecursionError):
            raise UsageError(f"bad attribute value {t[:30]!r}: not a JSON list (or nested too deeply, "
                             "or with a number too long)") from None
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    return t


def _registry(args):
    from .batch import registry_for
    return registry_for(tuple(args.specs))


def _query(args) -> tuple[dict, dict]:
    inputs = parse_assignments(args.input, "input")
    attrs = {k: parse_attr_value(v) for k, v in parse_assignments(args.attr, "attribute").items()}
    return inputs, attrs


def cmd_infer(args, out: Console, err: Console) -> int:
    from .api import infer, is_model_path, model_types
    from .report.text import render_result
    inputs, attrs = _query(args)
    if is_model_path(args.op):   # a model: every tensor's inferred type (``check`` gives its findings)
        if inputs or attrs:
            raise UsageError(f"{args.op}: -i and -a describe an operator query; a model's inputs are its own")
        types = model_types(args.op, registry=_registry(args))
        if args.json:
            print(json.dumps({k: str(v) for k, v in types.items()}, indent=2))
        else:
            for name, t in types.items():
                out.print(f"{name}: {t}", markup=False, highlight=False)
        return 0
    result = infer(args.op, args.opset, inputs, attrs, registry=_registry(args), light=True)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        render_result(result, out, f"{args.op} at opset {args.opset}", quiet=args.quiet)
    return 1 if result.status == "invalid" else 0


def cmd_specs(args, out: Console, err: Console) -> int:
    from .report.text import render_specs
    reg = _registry(args)
    if args.json:
        print(json.dumps([{"name": s.name, "op": s.op, "domain": s.domain, "version": s.version,
                           "deprecated": bool(s.deprecated), "constraints": len(s.constraints),
                           "file": s.file} for s in reg], indent=2))
    else:
        render_specs(reg, out)
    return 0


def cmd_verify(args, out: Console, err: Console) -> int:
    from .report.verify import render_verify
    from .verify import verify
    inputs, attrs = _query(args)
    if args.samples < 1:
        raise UsageError("--samples must be at least 1")
    report = verify(args.op, args.opset, inputs, attrs, samples=args.samples, seed=args.seed,
                    registry=_registry(args))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        render_verify(report, out)
    return 0 if report.ok else 1


def cmd_diff(args, out: Console, err: Console) -> int:
    from . import specdiff
    from .report.diff import render_diff, to_markdown
    reg = _registry(args)
    if args.all:
        diffs = specdiff.diff_all(registry=reg)
    elif args.opset:
        m = re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*", args.opset)
        if not m or int(m.group(1)) > int(m.group(2)):
            raise UsageError(f"bad --opset range {args.opset!r}: expected LO..HI such as 11..18")
        if not args.a or args.b:
            raise UsageError("diff --opset LO..HI takes one operator, e.g. shapecheck diff ScatterND --opset 11..18")
        diffs = specdiff.diff_range(args.a, int(m.group(1)), int(m.group(2)), registry=reg)
    else:
        if not (args.a and args.b):
            raise UsageError("diff takes two spec names (shapecheck diff ScatterND-16 ScatterND-18), "
                             "or OP --opset LO..HI, or --all")
        models = [x for x in (args.a, args.b) if x.lower().endswith((".onnx", ".xml")) or os.path.isfile(x)]
        if models:
            raise UsageError(f"diff compares two operator specs (shapecheck diff ScatterND-16 ScatterND-18), and "
                             f"{models[0]!r} is a file: to compare what two models accept, check both "
                             f"(shapecheck check {args.a} {args.b}) and compare their `valid for:` lines "
                             "(--json: each model's domain.relations)")
        diffs = [specdiff.diff(args.a, args.b, registry=reg)]
    if args.json:
        print(json.dumps([d.to_dict() for d in diffs] if len(diffs) != 1 or args.all or args.opset
                         else diffs[0].to_dict(), indent=2))
    elif args.markdown:
        print(to_markdown(diffs))
    else:
        for d in diffs:
            render_diff(d, out)
    return 0


def cmd_check(args, out: Console, err: Console) -> int:
    return check(args, out, err)


COMMANDS = {"infer": cmd_infer, "specs": cmd_specs, "verify": cmd_verify, "check": cmd_check, "diff": cmd_diff}


def table_width() -> int | None:
    """Tables fit ``COLUMNS``, else the terminal; piped output with neither gets 120 columns.
    Findings are never wrapped (``soft_wrap``), whatever the width."""
    if os.environ.get("COLUMNS", "").strip().isdigit() or sys.stdout.isatty():
        return None     # rich reads COLUMNS, then the terminal size
    return 120


def main(argv: Sequence[str] | None = None) -> int:
    args: Any = None
    problem: ShapeCheckError | None = None
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:     # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except ShapeCheckError as exc:
        problem = exc
    # rich's consoles, imported only for what needs rich (a table, a terminal): report/console.py
    # (a LazyConsole stands for a rich Console: what it does not do itself, the rich one does)
    from .report.console import LazyConsole
    out = cast("Console", LazyConsole(highlight=False, width=table_width()))
    err = cast("Console", LazyConsole(stderr=True, highlight=False, soft_wrap=True))
    try:
        if problem is not None:
            raise problem
        if not args.command:
            _build().print_help()
            return 2
        return COMMANDS[args.command](args, out, err)
    except ShapeCheckError as exc:
        err.print(f"[bold red]shapecheck: error:[/] {_escape(str(exc))}")
        return 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _escape(s: str) -> str:
    from .report.console import escape
    return escape(s)


def entry(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``shapecheck`` command (console script, ``python -m shapecheck``): ``main``, its output
    flushed, and the process ended without the interpreter's teardown.

    Freeing every module and object at exit (sympy's thousands of classes and caches, the specs)
    took 0.09 s of a small model's 0.52 s from the command line, on this project's 2-core bench
    machine; nothing is left to do by then (files are written atomically and closed, worker pools
    are joined), so the teardown is skipped, as mypy's ``hard_exit`` does.  ``main``, which
    tests and callers use, returns as usual.  Output the reader no longer takes (``| head``) is
    dropped, as ``main`` does."""
    code = main(argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):   # the reader has gone, or the stream was closed
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
