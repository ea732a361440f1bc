"""Portability warnings: nodes valid by their spec that a named runtime cannot run.

The knowledge is data beside the specs (``specs/runtimes/<runtime>.toml``): each rule is a
line of the spec notation over the names of the node's spec, keyed by op (``ScatterND``) or
spec name (``ScatterND-18``), with the finding it comes from.  A rule that is *refuted* on a
node's query is a warning carrying the rule's id; a rule that only may fail (it depends on an
unknown) says nothing, since the node may well run.

>>> from shapecheck.registry import default_registry
>>> ort = load_runtime("onnxruntime")
>>> spec = default_registry().resolve("ScatterND", 18)
>>> [w.constraint for w in ort.warnings(spec, {"data": "complex64[4]", "indices": "int64[1,1]",
...                                            "updates": "complex64[1]"}, {})]
['ORT1']
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .errors import SpecError, UsageError
from .result import Finding
from .notation import EvalError, NeedInt, compile_expr, parse, Node, NotationError, names_in
from .registry import Spec, specs_dir


@dataclass(frozen=True)
class RuntimeRule:
    id: str
    ops: frozenset
    rule: str
    message: str
    tree: Node = field(repr=False, compare=False)
    fn: Any = field(repr=False, compare=False)
    fix: str = ""
    finding: str = ""
    example: dict = field(default_factory=dict, compare=False)
    passes: dict = field(default_factory=dict, compare=False)


@dataclass
class Runtime:
    """The rules of one runtime, and what it was checked with."""

    name: str
    checked: str
    file: str
    rules: list[RuntimeRule]

    def applicable(self, spec: Spec) -> list[RuntimeRule]:
        """The rules for ``spec``: listed for its op or its name, and using only names the spec has."""
        known = {i.name for i in spec.inputs} | set(spec.attributes) | set(spec.lets) | set(spec.types)
        return [r for r in self.rules if (spec.qualified_op in r.ops or spec.name in r.ops)
                and names_in(r.tree) <= known]

    def warnings(self, spec: Spec, types: dict[str, Any], attrs: dict[str, Any] | None) -> list[Finding]:
        """A warning for each applicable rule that ``types`` and ``attrs`` refute."""
        rules = self.applicable(spec)
        if not rules:
            return []
        from .solver import prepare_attrs, prepare_inputs, spec_env
        try:
            prepared = prepare_inputs(spec, types)
            values, _ = prepare_attrs(spec, attrs, "finding")
        except UsageError:
            return []     # the node's own findings say what is wrong with its query
        out = []
        for r in rules:
            try:
                v = r.fn(spec_env(spec, prepared, values))
            except (EvalError, NeedInt):
                continue
            if v is False or (isinstance(v, (bool, np.bool_)) and not v):
                out.append(Finding(r.id, r.rule, f"{self.name} cannot run this node: {r.message}", {}, r.fix,
                                   f"checked with {self.checked}; {r.finding}" if r.finding else ""))
        return out


def available() -> list[str]:
    return sorted(p.stem for p in (specs_dir() / "runtimes").glob("*.toml"))


@cache
def load_runtime(name: str) -> Runtime:
    """The shipped rules of runtime ``name`` (``onnxruntime``, ``openvino``)."""
    path = specs_dir() / "runtimes" / f"{name}.toml"
    if not path.is_file():
        raise UsageError(f"no portability rules for runtime {name!r}; known runtimes are {', '.join(available())}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError(f"not a valid runtime file: {exc}", str(path)) from None
    rules = []
    for raw in data.get("rules", []):
        rid, text = raw.get("id"), raw.get("rule")
        if not isinstance(rid, str) or not isinstance(text, str) or not raw.get("ops"):
            raise SpecError(f"every rule needs an id, ops and a rule (got {raw!r:.200})", str(path))
        try:
            tree = parse(text)
        except NotationError as exc:
            raise SpecError(f"rule {rid}: {exc} at column {exc.column + 1}", str(path)) from None
        rules.append(RuntimeRule(rid, frozenset(raw["ops"]), text, raw.get("message", ""), tree, compile_expr(tree),
                                 raw.get("fix", ""), raw.get("finding", ""), dict(raw.get("example", {})),
                                 dict(raw.get("passes", {}))))
    return Runtime(str(data.get("runtime", name)), str(data.get("checked", "")), str(path), rules)


__all__ = ["Runtime", "RuntimeRule", "available", "load_runtime"]
