"""Many models per run: find them (files, directories, globs) and check them, in parallel.

A model that cannot be read becomes an ``Outcome`` with an error (exit 2); it never stops
the others.  Workers are processes (``jobs`` of them, 1 = in this process); outcomes come
back in the order the models were found, whatever order they finish in.

>>> [os.path.basename(p) for p in discover(["examples"])]
['broken.onnx', 'histogram.onnx', 'kv_cache.onnx', 'pinned.onnx', 'positions.onnx', 'scatter_update.xml', 'subgraph.onnx']
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Sequence

from .errors import OptionError, OutputError, ShapeCheckError
from .findings import OPTIONS, OUTPUT, UNREADABLE

EXIT_OK, EXIT_FINDINGS, EXIT_UNUSABLE = 0, 1, 2


@dataclass
class Outcome:
    """One model's check: its report, or the error that kept it from being checked."""

    path: str
    report: Any = None          # model.ModelReport (without its type environment)
    error: str = ""
    kind: str = UNREADABLE      # what kept it from being checked: the model (unreadable) or the options

    @property
    def exit_code(self) -> int:
        return EXIT_UNUSABLE if self.error else self.report.exit_code

    def to_dict(self) -> dict[str, Any]:
        if self.error:
            return {"model": self.path, "ok": False, "exit_code": EXIT_UNUSABLE, "error": self.error, "kind": self.kind}
        return {**self.report.to_dict(), "exit_code": self.exit_code}


def discover(paths: Sequence[str]) -> list[str]:
    """Model files from files, directories (recursively: ``*.onnx``, and ``*.xml`` with a ``.bin``
    beside it or an OpenVINO IR's ``<net`` root) and glob patterns, sorted within each argument and
    without repeats.

    A path that does not exist, a pattern that matches nothing or a directory without models is
    kept as given: checking it reports why it is unusable.
    """
    found: dict[str, None] = {}
    for arg in paths:
        if os.path.isdir(arg):
            found.update((p, None) for p in _models_under(arg))
        elif not os.path.exists(arg) and glob.has_magic(arg):
            hits = sorted(glob.glob(arg, recursive=True))
            for h in hits:
                if os.path.isdir(h):
                    found.update((p, None) for p in _models_under(h))
                else:
                    found[h] = None
            if not hits:
                found[arg] = None
        else:
            found[arg] = None
    return list(found)


def _models_under(directory: str) -> list[str]:
    out = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            low = f.lower()
            path = os.path.join(root, f)
            if low.endswith(".onnx") or (low.endswith(".xml") and (os.path.exists(path[:-4] + ".bin") or _is_ir(path))):
                out.append(path)
    return sorted(out) or [directory]    # an empty directory is reported, not silently passed


def _is_ir(path: str) -> bool:
    """Whether an ``.xml`` without a ``.bin`` beside it is an OpenVINO IR all the same (its root element
    ``<net``, in its first 4 KB): then it is checked, and says what is wrong with it, rather than
    left out of a directory's count; any other XML file (a ``pom.xml``) is not a model."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return b"<net " in head or b"<net>" in head


@lru_cache(maxsize=8)   # keyed by the spec directories: a registry (and its solve cache) per set of them
def registry_for(specs: tuple[str, ...]):
    """The registry of the shipped specs and those in ``specs`` (one per set of directories, per process)."""
    from .registry import default_registry, registry_with
    return registry_with(list(specs)) if specs else default_registry()


def check_one(path: str, strict: bool = False, specs: tuple[str, ...] = (), load_external_data: bool = False,
              output: str | None = None, runtime: str | None = None, assume_nonempty: bool = True,
              dims: dict[str, int] | None = None, node_progress: Any = None) -> Outcome:
    """Check one model; any error becomes the outcome's ``error`` (the collector is paused, as the CLI does)."""
    from .model.check import check_model
    if os.path.isdir(path):
        return Outcome(path, error=f"{path}: is a directory without models (*.onnx, or *.xml with a .bin beside it)")
    try:
        report = check_model(path, strict=strict, registry=registry_for(tuple(specs)),
                             load_external_data=load_external_data, output=output, pause_gc=True, runtime=runtime,
                             light=True, assume_nonempty=assume_nonempty, dims=dims, progress=node_progress)
    except OptionError as exc:
        return Outcome(path, error=str(exc), kind=OPTIONS)
    except OutputError as exc:
        return Outcome(path, error=str(exc), kind=OUTPUT)
    except ShapeCheckError as exc:
        return Outcome(path, error=str(exc))
    except (RecursionError, MemoryError) as exc:
        return Outcome(path, error=f"{path}: cannot check the model: {type(exc).__name__}")
    except Exception as exc:   # a bug in shapecheck: reported for this model; the others are still checked
        return Outcome(path, error=f"{path}: internal error while checking the model ({type(exc).__name__}: {exc}); "
                                   "this is a bug in shapecheck, please report it with the model")
    report.types = {}       # large, and no renderer reads it: keep what crosses processes small
    return Outcome(path, report)


def run(paths: Sequence[str], *, jobs: int | None = None, progress: Callable[[Outcome], None] | None = None,
        **options: Any) -> list[Outcome]:
    """Check every path with ``jobs`` worker processes (default: all cores; 1: in this process)."""
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(paths) <= 1:
        out = []
        for p in paths:
            out.append(check_one(p, **options))
            if progress:
                progress(out[-1])
        return out
    registry_for(tuple(options.get("specs", ())))   # load (and validate) the specs once, before forking
    from concurrent.futures import ProcessPoolExecutor, as_completed   # 10 ms of imports a single model never needs
    results: dict[int, Outcome] = {}
    with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
        futures = {pool.submit(check_one, p, **options): i for i, p in enumerate(paths)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as exc:   # a worker that died (killed, out of memory) fails its model only
                results[i] = Outcome(paths[i], error=f"{paths[i]}: the worker checking it failed: "
                                                     f"{type(exc).__name__}: {exc}")
            if progress:
                progress(results[i])
    return [results[i] for i in range(len(paths))]


def worst(outcomes: Sequence[Outcome]) -> int:
    """The exit code of a run: the worst over its models (0 ok, 1 findings, 2 unusable)."""
    return max((o.exit_code for o in outcomes), default=EXIT_OK)


def totals(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """Models ok / failed / unreadable, and the node counts summed over the models."""
    t = {"models": len(outcomes), "ok": 0, "failed": 0, "unreadable": 0,
         "checked": 0, "valid": 0, "conditional": 0, "invalid": 0, "skipped": 0}
    for o in outcomes:
        if o.error:
            t["unreadable"] += 1
            continue
        t["failed" if o.report.failed else "ok"] += 1
        for k in ("checked", "valid", "conditional", "invalid", "skipped"):
            t[k] += o.report.summary.get(k, 0)
    return t
