"""Sizes from outside the graph: dims the user binds (``--dims batch=8,seq=4096``) and the ranges an
exporter recorded (torch's ``range_constraints``).

``bind_sizes`` replaces named input dims by the user's values everywhere the model states them
(its inputs and its declarations), so the check answers for exactly those sizes.
``recorded_ranges`` reads the ranges torch.onnx writes into the graph's metadata
(``pkg.torch.export.ExportedProgram.range_constraints``, ``{s77: VR[1, 1024], s27: VR[2, 64]}``):
keys that are input dim names are taken as they are; torch's own symbols (``s27``) are paired with
the input dims by the order torch lists them in (``_by_position``), where every entry lines up, and
are otherwise left out (a range given to the wrong dim would be a wrong fact).

>>> parse_sizes("batch=8, seq=4096")
{'batch': 8, 'seq': 4096}
>>> parse_ranges("{s77: VR[1, 1024], s27: VR[2, int_oo]}")
[('s77', 1, 1024), ('s27', 2, None)]
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import permutations
from typing import Any

from ..errors import OptionError, UsageError
from ..frontends.graph import Declaration, ModelGraph
from ..containers import dims_in
from ..types import TensorType
from ..dims import is_runtime, is_symbolic, is_unknown, parse_dim

RANGES_KEY = "pkg.torch.export.ExportedProgram.range_constraints"
# one entry: its key (a symbol, or an expression of symbols: ``2*s39``) and its range; the key is read
# whole, from the dict's opening brace or the comma before it, so that ``2*s39`` is not taken for ``s39``
_RANGE = re.compile(r"(?:^|[{,])\s*([^{},:]+?)\s*:\s*VR\[\s*(-?\d+|-?int_oo)\s*,\s*(-?\d+|-?int_oo)\s*\]")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_sizes(text: str | dict) -> dict[str, int]:
    """``batch=8,seq=4096`` (or a dict) as ``{name: size}``; a size must be a non-negative integer."""
    if isinstance(text, dict):
        items = list(text.items())
    else:
        items = []
        for part in filter(None, (p.strip() for p in str(text).split(","))):
            name, eq, value = part.partition("=")
            if not eq:
                raise UsageError(f"--dims takes NAME=SIZE pairs separated by commas (batch=8,seq=4096); got {part!r}")
            items.append((name.strip(), value.strip()))
    out = {}
    for name, value in items:
        try:
            size = int(value)
        except (TypeError, ValueError):
            size = -1
        if not name or size < 0 or isinstance(value, bool):
            raise UsageError(f"--dims: {name or '?'}={value!r}: a size is a non-negative integer")
        if str(name) in out and out[str(name)] != size:
            raise UsageError(f"--dims gives {name} twice ({name}={out[str(name)]}, {name}={size}): one size each")
        out[str(name)] = size
    return out


def input_dim_names(graph: ModelGraph) -> list[str]:
    """The dim names the graph's inputs declare, in order of first use."""
    out: dict[str, None] = {}
    for name, t in graph.sources.items():
        if graph.source_kind.get(name) == "graph input":
            for d in dims_in(t):
                if is_symbolic(d) and not is_unknown(d):
                    out.update((s.name, None) for s in d.free_symbols if not is_unknown(s))
    return list(out)


def bind_sizes(graph: ModelGraph, sizes: dict[str, int]) -> None:
    """Bind the named input dims to ``sizes`` in the graph's inputs and declarations (in place)."""
    known = input_dim_names(graph)
    unknown = [n for n in sizes if n not in known]
    if unknown:
        raise OptionError(f"{graph.path}: --dims names {', '.join(map(repr, unknown))}, which no input of the model "
                         f"declares; its inputs declare {', '.join(known) or 'no named dims'}")
    for name in list(graph.sources):
        graph.sources[name] = _bound(graph.sources[name], sizes)
    for name, decl in list(graph.declared.items()):
        graph.declared[name] = Declaration(decl.tensor, _bound(decl.type, sizes), decl.kind)
    for name in list(graph.fallback):
        graph.fallback[name] = _bound(graph.fallback[name], sizes)


def _bound(t: TensorType, sizes: dict[str, int]) -> TensorType:
    if t.shape is None or not any(is_symbolic(d) for d in t.shape):
        return t
    from ..dims import normalize_dim
    mapping = {s: sizes[s.name] for d in t.shape if is_symbolic(d) for s in d.free_symbols if s.name in sizes}
    if not mapping:
        return t
    # xreplace, not dims.rebuild (a renaming, which leaves a Min unevaluated): Min(64, seq) at seq = 65 is 64
    shape = tuple(normalize_dim(d.xreplace(mapping)) if is_symbolic(d) else d for d in t.shape)
    return TensorType(t.dtype, shape, t.value, t.sym, t.bounds)


def parse_ranges(text: str, expressions: bool = False) -> list[tuple[str, int, int | None]]:
    """``(symbol, lo, hi)`` for each ``s: VR[lo, hi]`` of torch's text (``int_oo``: unbounded); the
    ranges of expressions (``2*s39: VR[0, 1024]``, which torch records for a dim declared ``2*h``) are
    left out, unless ``expressions``: they bound no one dim.

    >>> parse_ranges("{s77: VR[0, 1024], 2*s39: VR[0, 1024], s39: VR[2, 512]}")
    [('s77', 0, 1024), ('s39', 2, 512)]
    """
    out = []
    for m in _RANGE.finditer(text):
        if not expressions and not _SYMBOL.fullmatch(m.group(1)):
            continue
        lo = 0 if "int_oo" in m.group(2) else int(m.group(2))
        hi = None if "int_oo" in m.group(3) else int(m.group(3))
        out.append((m.group(1), max(lo, 0), hi))
    return out


def recorded_ranges(graph: ModelGraph) -> dict[str, tuple[int, int | None]]:
    """The ranges the exporter recorded for the input dims, by dim name (see the module's text)."""
    text = _metadata(graph.proto, RANGES_KEY)
    if not text:
        return {}
    ranges = parse_ranges(text)
    names = input_dim_names(graph)
    direct = {k: (lo, hi) for k, lo, hi in ranges if k in names}
    if direct:
        return direct
    return _by_position(parse_ranges(text, expressions=True), _input_dims_in_order(graph)) or {}


_TORCH = re.compile(r"\bs\d+\b")   # torch's own symbols: s77


def _input_dims_in_order(graph: ModelGraph) -> list:
    """Each distinct symbolic dim of the graph's inputs (``B``, ``2*d``), in order of first use."""
    out: list = []
    for name, t in graph.sources.items():
        if graph.source_kind.get(name) == "graph input":
            out += [d for d in dims_in(t) if is_symbolic(d) and not is_unknown(d) and d not in out]
    return out


def _by_position(entries: list, dims: list) -> dict[str, tuple[int, int | None]] | None:
    """Torch's symbols paired with the input dims they stand for.  Its entries list each distinct input
    dim in order of first use (one declared ``2*d`` by its expression, ``2*s40``), then each symbol used
    only inside expressions (``s40``); an expression's symbols are the names that make it the input's
    dim.  None where the entries do not line up so (a range given to the wrong dim would be a wrong fact).

    >>> from shapecheck.dims import symbol
    >>> B, N, d = symbol("B"), symbol("N"), symbol("d")
    >>> _by_position([("s77", 0, 64), ("2*s40", 0, 256), ("s17", 0, 64), ("s40", 2, 128)], [B, 2 * d, N])
    {'B': (0, 64), 'N': (0, 64), 'd': (2, 128)}
    >>> _by_position([("s77", 0, 64), ("s17", 0, 64), ("s40", 0, 64)], [B, N]) is None   # one too many
    True
    """
    if len(entries) < len(dims):
        return None
    mapping: dict[str, str] = {}
    plain: set[str] = set()
    for (key, _lo, _hi), d in zip(entries, dims):
        if getattr(d, "is_Symbol", False):
            if not _TORCH.fullmatch(key) or mapping.setdefault(key, d.name) != d.name:
                return None
            plain.add(key)
            continue
        tokens = list(dict.fromkeys(_TORCH.findall(key)))
        names = sorted(s.name for s in d.free_symbols)
        if _TORCH.fullmatch(key) or len(tokens) != len(names) or len(names) > 3:
            return None
        fits = [trial for trial in (dict(zip(tokens, p)) for p in permutations(names))
                if all(mapping.get(t, n) == n for t, n in trial.items())
                and parse_dim(_TORCH.sub(lambda m, trial=trial: trial[m.group(0)], key)) == d]
        if len(fits) != 1:
            return None
        mapping.update(fits[0])
    rest = entries[len(dims):]
    if any(not _TORCH.fullmatch(key) or key not in mapping or key in plain for key, _lo, _hi in rest) or \
            len({key for key, _lo, _hi in rest}) != len(rest) or len(set(mapping.values())) != len(mapping):
        return None
    return {mapping[key]: (lo, hi) for key, lo, hi in entries if _TORCH.fullmatch(key)}


def _metadata(model: Any, key: str) -> str:
    """The value of ``key`` in the graph's, else the model's ``metadata_props`` (a ModelProto's
    entries, or an onnx_ir model's dict)."""
    graph = getattr(model, "graph", None)
    for holder in (graph, model):
        props = getattr(holder, "metadata_props", None) or ()
        if isinstance(props, Mapping):
            if key in props:
                return props[key]
            continue
        for p in props:
            if p.key == key:
                return p.value
    return ""


def input_dims(graph: ModelGraph) -> list:
    """The symbols the graph's inputs declare as dims (not unknowns, not run-time sizes)."""
    out: dict = {}
    for name, t in graph.sources.items():
        if graph.source_kind.get(name) == "graph input":
            for d in dims_in(t):
                if is_symbolic(d) and not is_unknown(d):
                    out.update((s, None) for s in d.free_symbols if not is_unknown(s) and not is_runtime(s))
    return list(out)


def names_in(types) -> set[str]:
    """The dim names the model's sources use: run-time sizes are never named like them."""
    names: set[str] = set()
    for t in {id(t): t for t in types}.values():   # a type many sources share is read once
        for d in dims_in(t):
            if is_symbolic(d):
                names |= {s.name for s in d.free_symbols}
    return names


__all__ = ["input_dims", "names_in", "bind_sizes", "parse_sizes", "recorded_ranges", "parse_ranges", "input_dim_names", "RANGES_KEY"]
