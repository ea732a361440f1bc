"""Reports of a model as every entry point gives them, as canonical text, for comparing processes.

``reports(path)`` is run in a process that has imported shapecheck and checked nothing else
(``fresh_reports`` forks one per model from a server that preloads this module), and again in
processes that checked other models before (``tests/test_process_state.py``).  Any difference is
a result that depends on what the process did before.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
from typing import Any

import shapecheck
from shapecheck.batch import check_one

ENTRIES = ("check", "check --strict --runtime", "check --allow-empty-dims", "check --dims", "annotate", "infer")


def _canon(d: Any) -> str:
    return json.dumps(d, sort_keys=True, default=str)


def _report(rep) -> str:
    d = rep.to_dict()
    d.pop("model", None)
    d["types"] = {k: str(v) for k, v in rep.types.items()}
    return _canon(d)


def entry(path: str, name: str) -> str:
    """One entry point's answer for one model, as text (an error as its message)."""
    try:
        if name == "check":
            return _report(shapecheck.check_model(path))
        if name == "check --strict --runtime":
            return _report(shapecheck.check_model(path, strict=True, runtime="onnxruntime"))
        if name == "check --allow-empty-dims":
            return _report(shapecheck.check_model(path, assume_nonempty=False))
        if name == "check --dims":
            dims = _dim_names(path)
            return _report(shapecheck.check_model(path, dims={n: 3 for n in dims})) if dims else ""
        if name == "annotate":
            if not path.endswith(".onnx"):
                return ""
            return hashlib.sha256(shapecheck.annotate(path).SerializeToString(deterministic=True)).hexdigest()
        if name == "infer":
            return _canon({k: str(v) for k, v in shapecheck.infer(path).items()})
        if name == "batch":
            d = check_one(path).to_dict()
            d.pop("model", None)
            return _canon(d)
    except Exception as exc:   # noqa: BLE001 - the text of an error is part of the answer
        return f"{type(exc).__name__}: {exc}"
    raise ValueError(name)


def _dim_names(path: str) -> list[str]:
    if not path.endswith(".onnx"):
        return []
    import onnx
    from tests.harness.corpora import input_dim_names
    return input_dim_names(onnx.load(path, load_external_data=False))


def reports(path: str, names: tuple[str, ...] = ENTRIES + ("batch",)) -> dict[str, str]:
    """The answers of the entries ``names`` (every entry by default) for ``path``; the first is a fresh
    process's, the rest follow a check of this model only."""
    return {name: entry(path, name) for name in names}


def fresh_reports(paths: list[str], workers: int = 2, names: list[tuple[str, ...]] | None = None) -> list[dict[str, str]]:
    """``reports`` of each path from a process of its own, forked from a server that has imported
    shapecheck, onnx, numpy and sympy, compiled the specs and checked nothing (``fresh_server``);
    ``names``: per path, the entries to answer (every entry by default)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["tests.harness.fresh_server"])
    with ctx.Pool(workers, maxtasksperchild=1) as pool:
        if names is None:
            return pool.map(reports, paths, chunksize=1)
        return pool.starmap(reports, zip(paths, names), chunksize=1)


def in_order(paths: list[str], order: list[tuple[int, str]]) -> dict[tuple[int, str], str]:
    """Each (path index, entry) answered in the given order, all in this one process."""
    return {(i, name): entry(paths[i], name) for i, name in order}
