"""The schema of a loaded spec: frozen dataclasses for a spec, its rules, inputs, outputs, attributes.

What the loader analyses once (a rule's top-level equalities, the inputs whose values it
reads, its leaves) is stored on the ``Rule``; nothing computed later is cached on these objects.

>>> spec_name("openvino", "ScatterNDUpdate", 15), split_op("openvino:ScatterNDUpdate")
('openvino:ScatterNDUpdate-15', ('openvino', 'ScatterNDUpdate'))
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..notation import Fn, Node

ONNX_DOMAIN = "ai.onnx"
DOMAIN_ALIASES = {"": ONNX_DOMAIN, "ai.onnx": ONNX_DOMAIN, "onnx": ONNX_DOMAIN, "openvino": "openvino"}
SPEC_NAME = re.compile(r"(?:([A-Za-z.]+):)?([A-Za-z_][A-Za-z0-9_]*)-(\d+)")   # [domain:]Op-VERSION


@dataclass(frozen=True)
class Rule:
    """A numbered constraint (or warning) of a spec: its id, notation text and message."""

    id: str
    rule: str
    message: str
    tree: Node = field(repr=False, compare=False)
    fn: Fn = field(repr=False, compare=False)
    line: int = 0
    note: str = ""
    fix: str = ""
    expanded: str = ""   # the rule with let names replaced by their definitions
    cases: tuple["Case", ...] = ()   # queries that prove, refute or leave it conditional
    # found once at load time (notation/analysis.py), read by the solver
    equalities: tuple = field(default=(), repr=False, compare=False)
    value_inputs: frozenset = field(default=frozenset(), repr=False, compare=False)
    leaves: tuple = field(default=(), repr=False, compare=False)
    no_refute: str = ""              # why no query can refute it (instead of a refuted case)
    no_conditional: str = ""         # why no query can leave it conditional

    @property
    def plain(self) -> str:
        return self.expanded or self.rule


@dataclass(frozen=True)
class Case:
    """One query of a constraint's own test: the status it must end in (and a condition it must state)."""

    expect: str                  # proved | refuted | conditional | unchecked
    inputs: dict
    attrs: dict
    condition: str = ""
    line: int = 0
    file: str = ""               # the spec file it is written in (a parent's, when inherited)


CASE_STATUSES = ("proved", "refuted", "conditional", "unchecked")


@dataclass(frozen=True)
class InputDecl:
    """An input; a ``variadic`` one (the last) takes one or more tensors, seen by rules as a tuple."""

    name: str
    type: str
    doc: str = ""
    optional: bool = False
    variadic: bool = False


@dataclass(frozen=True)
class OutputDecl:
    """An output's type and shape rules, and for shape tensors its ``value`` rule.

    A ``variadic`` output (the last) stands for every remaining output of the node: its
    rules see ``i``, the output's position among them, and ``output_count``.
    """

    name: str
    type: str
    shape: str
    type_fn: Fn = field(repr=False, compare=False)
    shape_fn: Fn = field(repr=False, compare=False)
    value: str = ""
    value_fn: Fn | None = field(default=None, repr=False, compare=False)
    variadic: bool = False
    optional: bool = False
    # inputs whose contents the type and shape rules read, and those the value rule reads
    value_inputs: frozenset = field(default=frozenset(), repr=False, compare=False)
    value_rule_inputs: frozenset = field(default=frozenset(), repr=False, compare=False)
    bounds: str = ""          # the bounds of the elements when they are not known (``range_bounds(...)``)
    bounds_fn: Fn | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class AttrDecl:
    name: str
    type: str  # "int" | "string" | "float" | "ints" | "floats" | "strings" | "tensor" | "sparse_tensor"
    default: Any = None
    doc: str = ""


@dataclass(frozen=True)
class Example:
    name: str
    inputs: dict
    attrs: dict
    expect: dict
    line: int = 0



@dataclass(frozen=True)
class Spec:
    """Everything one operator version says, compiled; built once by ``build.build_spec``.

    The merged file data a spec was built from is kept by its ``Registry`` (``Registry.raw``),
    for specs in other directories that extend it.
    """

    op: str
    domain: str
    version: int
    file: str
    summary: str = ""
    source: str = ""
    extends: str | None = None
    deprecated: str = ""
    types: dict[str, frozenset] = field(default_factory=dict)
    lets: dict[str, tuple[str, Fn]] = field(default_factory=dict)
    let_trees: dict[str, Node] = field(default_factory=dict, repr=False, compare=False)   # parsed once
    inputs: list[InputDecl] = field(default_factory=list)
    outputs: list[OutputDecl] = field(default_factory=list)
    attributes: dict[str, AttrDecl] = field(default_factory=dict)
    constraints: list[Rule] = field(default_factory=list)
    warnings: list[Rule] = field(default_factory=list)
    semantics: dict[str, Any] = field(default_factory=dict)
    semantics_fns: dict[str, Fn] = field(default_factory=dict, repr=False)
    kernel_inputs: dict[str, str] = field(default_factory=dict)   # kernel argument -> input it passes
    examples: list[Example] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    family: tuple[str, ...] = ()   # the members of the [family] this spec was built from, in file order
    see_also: list[str] = field(default_factory=list)   # specs of other operators to diff against
    # the inputs whose contents (not only type and shape) a constraint, warning or output type or
    # shape rule reads; and those only output value rules read (what a value passes on)
    value_reads: frozenset = field(default=frozenset(), repr=False, compare=False)
    value_passes: frozenset = field(default=frozenset(), repr=False, compare=False)

    @cached_property
    def name(self) -> str:
        # asked at every node of every model: formatted once (a spec is never changed once built)
        return spec_name(self.domain, self.op, self.version)

    @property
    def qualified_op(self) -> str:
        return self.op if self.domain == ONNX_DOMAIN else f"{self.domain}:{self.op}"

    def rule(self, rid: str) -> Rule:
        for r in self.constraints + self.warnings:
            if r.id == rid:
                return r
        raise KeyError(rid)


def spec_name(domain: str, op: str, version: int) -> str:
    return f"{op}-{version}" if domain == ONNX_DOMAIN else f"{domain}:{op}-{version}"


def split_op(op: str, domain: str | None = None) -> tuple[str, str]:
    """``"openvino:ScatterElementsUpdate"`` -> ``("openvino", "ScatterElementsUpdate")``."""
    if ":" in op:
        domain, op = op.split(":", 1)
    return normalize_domain(domain or ""), op


def normalize_domain(domain: str) -> str:
    return DOMAIN_ALIASES.get(domain, domain)
