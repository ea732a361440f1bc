"""Command line: argument parsing and exit codes (0 ok, 1 findings, 2 unusable input).

No logic of its own: every command calls the package's API and a renderer.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, Sequence

from rich.console import Console

from .errors import ShapeCheckError, UsageError

EPILOG = "exit codes: 0 valid (or only conditions), 1 violations found, 2 unusable input"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one paragraph, exit 2, no usage dump on stdout
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def _build() -> argparse.ArgumentParser:
    p = _Parser(prog="shapecheck", description="Symbolic shape and type checker for tensor operators.",
                epilog=EPILOG)
    p.add_argument("--specs", action="append", default=[], metavar="DIR",
                   help="load extra spec files from DIR (repeatable)")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    q = sub.add_parser("infer", help="check one operator query and infer its output types", epilog=EPILOG)
    _query_args(q)
    q.add_argument("--json", action="store_true", help="print the result as JSON")

    s = sub.add_parser("specs", help="list every spec")
    s.add_argument("--json", action="store_true")

    v = sub.add_parser("verify", help="confirm the solver by running the executor on sampled shapes", epilog=EPILOG)
    _query_args(v)
    v.add_argument("--samples", type=int, default=20, help="how many instances to draw (default 20)")
    v.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    v.add_argument("--json", action="store_true")

    c = sub.add_parser("check", help="check every node of an ONNX model or OpenVINO IR", epilog=EPILOG)
    c.add_argument("model", help="model.onnx or model.xml (OpenVINO IR)")
    c.add_argument("--json", action="store_true", help="print the report as JSON (schema in README)")
    c.add_argument("--strict", action="store_true", help="treat remaining conditions and declaration mismatches as failures")
    c.add_argument("--output", metavar="ANNOTATED.onnx", help="write a copy with inferred types in value_info")
    c.add_argument("--load-external-data", action="store_true", help="load external tensor data (off by default)")
    c.add_argument("--runtime", choices=["onnxruntime", "openvino"],
                   help="warn about nodes valid by the spec that this runtime cannot run")

    d = sub.add_parser("diff", help="what changed between two operator versions, with witnesses", epilog=EPILOG)
    d.add_argument("a", nargs="?", help="a spec name (ScatterND-16) or, with --opset, an operator")
    d.add_argument("b", nargs="?", help="the spec to compare with")
    d.add_argument("--opset", metavar="LO..HI", help="diff every consecutive pair of versions of operator A in LO..HI")
    d.add_argument("--all", action="store_true", help="every consecutive pair of every operator")
    fmt = d.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true")
    return p


def _query_args(q: argparse.ArgumentParser) -> None:
    q.add_argument("op", help="operator, e.g. ScatterND, TensorScatter or openvino:ScatterNDUpdate (shapecheck specs lists them)")
    q.add_argument("--opset", type=int, default=18, help="opset of the operator's domain (default 18)")
    q.add_argument("-i", "--input", action="append", default=[], metavar="NAME=TYPE",
                   help='an input type, e.g. data=float[N,C] or indices="int64[2,1] = [[0],[3]]"')
    q.add_argument("-a", "--attr", action="append", default=[], metavar="NAME=VALUE",
                   help="an attribute, e.g. reduction=add or axis=1")


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
    from .spec.load import default_registry, registry_with
    return registry_with(args.specs) if args.specs else default_registry()


def _query(args) -> tuple[dict, dict]:
    inputs = parse_assignments(args.input, "input")
    attrs = {k: parse_attr_value(v) for k, v in parse_assignments(args.attr, "attribute").items()}
    return inputs, attrs


def cmd_infer(args, out: Console) -> int:
    from .api import infer
    from .report import render_result
    inputs, attrs = _query(args)
    result = infer(args.op, args.opset, inputs, attrs, registry=_registry(args))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        render_result(result, out, f"{args.op} at opset {args.opset}")
    return 1 if result.status == "invalid" else 0


def cmd_specs(args, out: Console) -> int:
    from .report import render_specs
    reg = _registry(args)
    if args.json:
        print(json.dumps([{"name": s.name, "op": s.op, "domain": s.domain, "version": s.version,
                           "deprecated": bool(s.deprecated), "constraints": len(s.constraints),
                           "file": s.file} for s in reg], indent=2))
    else:
        render_specs(reg, out)
    return 0


def cmd_verify(args, out: Console) -> int:
    from .verify import render_verify, verify
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


def cmd_check(args, out: Console) -> int:
    from .check import check_model
    from .report import render_model_report
    report = check_model(args.model, strict=args.strict, registry=_registry(args),
                         load_external_data=args.load_external_data, output=args.output, runtime=args.runtime)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        render_model_report(report, out)
    return report.exit_code


def cmd_diff(args, out: Console) -> int:
    from . import diff as diffmod
    reg = _registry(args)
    if args.all:
        diffs = diffmod.diff_all(registry=reg)
    elif args.opset:
        m = re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*", args.opset)
        if not m or int(m.group(1)) > int(m.group(2)):
            raise UsageError(f"bad --opset range {args.opset!r}: expected LO..HI such as 11..18")
        if not args.a or args.b:
            raise UsageError("diff --opset LO..HI takes one operator, e.g. shapecheck diff ScatterND --opset 11..18")
        diffs = diffmod.diff_range(args.a, int(m.group(1)), int(m.group(2)), registry=reg)
    else:
        if not (args.a and args.b):
            raise UsageError("diff takes two spec names (shapecheck diff ScatterND-16 ScatterND-18), "
                             "or OP --opset LO..HI, or --all")
        diffs = [diffmod.diff(args.a, args.b, registry=reg)]
    if args.json:
        print(json.dumps([d.to_dict() for d in diffs] if len(diffs) != 1 or args.all or args.opset
                         else diffs[0].to_dict(), indent=2))
    elif args.markdown:
        print(diffmod.to_markdown(diffs))
    else:
        for d in diffs:
            diffmod.render_diff(d, out)
    return 0


COMMANDS = {"infer": cmd_infer, "specs": cmd_specs, "verify": cmd_verify, "check": cmd_check, "diff": cmd_diff}


def main(argv: Sequence[str] | None = None) -> int:
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        args = _build().parse_args(list(sys.argv[1:] if argv is None else argv))
        if not args.command:
            _build().print_help()
            return 2
        return COMMANDS[args.command](args, out)
    except ShapeCheckError as exc:
        err.print(f"[bold red]shapecheck: error:[/] {_escape(str(exc))}")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _escape(s: str) -> str:
    from rich.markup import escape
    return escape(s)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
