"""The ``check`` command: its options from the flags over the configuration (``config``), the run over
the models (``batch``, with a progress bar on a terminal), and the output in the format asked for."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import __version__
from .errors import UsageError
from .report.console import LazyConsole

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("text", "json", "sarif", "junit", "github")


def check_arguments(c: Any) -> None:
    """The ``check`` subcommand's options, on its argparse parser ``c``."""
    c.add_argument("paths", nargs="*", metavar="PATH",
                   help="model.onnx, model.xml (OpenVINO IR), a directory (searched recursively) or a glob")
    out = c.add_mutually_exclusive_group()
    out.add_argument("--format", choices=FORMATS, default=None, help="output format (default text)")
    out.add_argument("--json", action="store_true", help="the same as --format json (schema in README)")
    c.add_argument("--strict", action="store_true", default=None,
                   help="treat remaining conditions, declaration mismatches and nodes of which nothing is "
                        "inferred (no spec, no inference to fall back on) as failures")
    c.add_argument("--config", metavar="FILE",
                   help="read settings from FILE (pyproject.toml's [tool.shapecheck], else a TOML table); "
                        "by default the nearest pyproject.toml with one")
    c.add_argument("--select", metavar="ID,...", help="report only these constraint ids and finding kinds")
    c.add_argument("--ignore", metavar="ID,...",
                   help="leave out these constraint ids (C5, ScatterND-18/C7) and finding kinds (pinned, runtime-check, ...)")
    c.add_argument("--output", metavar="ANNOTATED.onnx", help="write a copy with inferred types in value_info (one model)")
    c.add_argument("--load-external-data", action="store_true", help="load external tensor data (off by default)")
    c.add_argument("--nodes", choices=["none", "attention", "all"], default="none",
                   help="print the per-node table: every node, or those that need attention (invalid, conditional, "
                        "unchecked); by default none")
    c.add_argument("--dims", metavar="NAME=SIZE,...",
                   help="check at these input sizes (batch=8,seq=4096): valid, or the first node that fails and its rule")
    c.add_argument("--allow-empty-dims", action="store_true", default=None,
                   help="let symbolic input dims be 0 (by default each is taken to be at least 1)")
    c.add_argument("--runtime", choices=["onnxruntime", "openvino"],
                   help="warn about nodes valid by the spec that this runtime cannot run")
    c.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                   help="worker processes (default: all cores; 1: check in this process)")


def _models(args: Any, cfg: Any, batch: Any) -> list[str]:
    """The model files ``check`` reads: the paths given, directories and globs searched, [tool.shapecheck]'s
    exclude applied to what a search finds (never to a file named on the command line)."""
    if args.jobs < 0:
        raise UsageError("--jobs must be at least 1 (or 0 for all cores)")
    if not args.paths:
        raise UsageError("shapecheck check: give the models to check (PATH...), or paths in [tool.shapecheck] "
                         "(see 'shapecheck check --help')")
    paths = [p for p in batch.discover(args.paths) if p in args.paths or not cfg.excluded(p)]
    if not paths:
        raise UsageError(f"no models to check: {cfg.source} excludes every model found under {', '.join(args.paths)}")
    if args.output and len(paths) != 1:
        raise UsageError(f"--output writes the annotated copy of one model; {len(paths)} models were given")
    if args.output and paths[0].lower().endswith(".xml"):
        raise UsageError("--output writes ONNX models only; this model is OpenVINO IR")
    return list(paths)


def check(args, out: Console, err: Console) -> int:
    """Run ``shapecheck check`` with the parsed ``args``; the exit code."""
    from . import batch
    from .config import load_config
    from .model.sizes import parse_sizes
    cfg = load_config(args.config)
    _settle_options(args, cfg)
    fmt = "json" if args.json else args.format
    paths = _models(args, cfg, batch)
    registry = batch.registry_for(tuple(args.specs))   # a malformed --specs file stops the run here, once
    options = dict(strict=args.strict, specs=tuple(args.specs), load_external_data=args.load_external_data,
                   output=args.output, runtime=args.runtime, assume_nonempty=not args.allow_empty_dims,
                   dims=parse_sizes(args.dims) if args.dims else None)
    def chosen(o: Any) -> Any:
        return batch.Outcome(o.path, o.report.without(cfg.ignored), o.error, o.kind) if o.report and \
            (cfg.select or cfg.ignore) else o
    each = None
    if fmt == "text" and len(paths) > 1:   # each model's findings and summary as soon as it is checked
        from .report.model_text import render_outcome
        each = lambda o: render_outcome(chosen(o), out, err, quiet=args.quiet, nodes=args.nodes)  # noqa: E731
    outcomes = [chosen(o) for o in _run_with_progress(batch, paths, args.jobs or None, options, err, each)]
    code = batch.worst(outcomes)
    single = len(args.paths) == 1 and len(paths) == 1 and paths[0] == args.paths[0]
    if fmt == "json":
        from .report.json import dumps, to_json
        doc = outcomes[0].to_dict() if single else to_json(outcomes)
        print(dumps(doc, depth=2 if single else 4))   # a line per node
        if single and outcomes[0].error:   # the error object above, and the error itself on stderr
            raise UsageError(outcomes[0].error)
    elif fmt == "sarif":
        from .report.json import dumps
        from .report.sarif import to_sarif
        print(dumps(to_sarif(outcomes, registry, __version__, code), depth=5))   # a line per result
    elif fmt == "junit":
        from .report.junit import to_junit
        print(to_junit(outcomes, registry))
    elif fmt == "github":
        from .report.github import to_github
        from .report.model_text import render_outcomes
        for line in to_github(outcomes, registry):
            print(line)
        render_outcomes(outcomes, out, err, quiet=True, findings=False)
    else:
        from .report.model_text import render_outcomes, render_total
        if each is None:
            render_outcomes(outcomes, out, err, quiet=args.quiet, findings=True, nodes=args.nodes)
        else:
            render_total(outcomes, out)
    return code


def _settle_options(args, cfg) -> None:
    """Command-line flags over the configuration over the defaults (in place on ``args`` and ``cfg``)."""
    args.paths = args.paths or cfg.paths
    args.strict = args.strict if args.strict is not None else bool(cfg.strict)
    args.allow_empty_dims = args.allow_empty_dims if args.allow_empty_dims is not None else bool(cfg.allow_empty_dims)
    args.runtime = args.runtime or cfg.runtime
    if args.format is None:
        args.format = cfg.format or "text"
    if args.format not in FORMATS:
        raise UsageError(f"{cfg.source}: format must be one of {', '.join(FORMATS)}, got {args.format!r}")
    args.specs = list(args.specs) + [s for s in cfg.specs if s not in args.specs]
    if args.select is not None:
        cfg.select = [x.strip() for x in args.select.split(",") if x.strip()]
    if args.ignore is not None:
        cfg.ignore = [x.strip() for x in args.ignore.split(",") if x.strip()]


def _run_with_progress(batch, paths: list[str], jobs: int | None, options: dict, err: Console,
                       each: Any = None) -> list:
    """Check ``paths``; on a terminal, a progress bar on stderr (models, or one model's nodes);
    ``each(outcome)`` is called as each model finishes."""
    if not err.is_terminal:
        return batch.run(paths, jobs=jobs, progress=each, **options)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    with Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err.rich() if isinstance(err, LazyConsole) else err, transient=True) as bar:
        if len(paths) == 1:
            task = bar.add_task("nodes", total=None)
            return batch.run(paths, jobs=1, node_progress=lambda done, total: bar.update(task, completed=done,
                                                                                            total=total), **options)
        task = bar.add_task("models", total=len(paths))

        def advance(o: Any) -> None:
            bar.advance(task)
            if each is not None:
                each(o)
        return batch.run(paths, jobs=jobs, progress=advance, **options)


__all__ = ["check", "check_arguments", "FORMATS"]
