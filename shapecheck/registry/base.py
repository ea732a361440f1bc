"""The registry: loaded specs by ``(domain, op)`` and by name, resolved by opset.

>>> from shapecheck.registry import default_registry
>>> reg = default_registry()
>>> reg.resolve("ScatterND", 17).name, reg.get("openvino:ScatterNDUpdate-15").op
('ScatterND-16', 'ScatterNDUpdate')
"""
from __future__ import annotations

from typing import Any, Iterable

from ..errors import UsageError, did_you_mean
from .schema import ONNX_DOMAIN, SPEC_NAME, Spec, normalize_domain, spec_name, split_op


class Registry:
    """All loaded specs, by ``(domain, op)`` and by name."""

    def __init__(self, specs: Iterable[Spec] = ()):
        self.by_name: dict[str, Spec] = {}
        self.by_op: dict[tuple[str, str], list[Spec]] = {}
        # domain -> facts about the whole domain (specs/<dir>/_domain.toml): highest_opset, ...
        self.domains: dict[str, dict] = dict(getattr(specs, "domains", {}))
        # spec name -> the merged file data it was built from: what a spec in another directory
        # that extends it merges onto (a Registry passed as ``specs`` gives its own)
        self.raw: dict[str, dict] = dict(getattr(specs, "raw", {}))
        # results computed from specs (spec diffs), keyed by the specs' identities: specs are never
        # mutated, and a registry built from this one shares its specs, so it shares this too
        self.memo: dict[tuple, Any] = getattr(specs, "memo", {})
        # the solver's cache of results against these specs (``solver.cache.SolveCache.of``): a
        # registry owns it, as results are pure functions of (spec, query); made on first use
        self.solve_cache: Any = None
        for s in specs:
            self.add(s)

    def add(self, spec: Spec, raw: dict | None = None) -> None:
        """Add (or replace) a spec; ``raw`` is the merged file data it was built from."""
        self.by_name[spec.name] = spec
        if raw is not None:
            self.raw[spec.name] = raw
        versions = self.by_op.setdefault((spec.domain, spec.op), [])
        versions[:] = sorted([v for v in versions if v.version != spec.version] + [spec], key=lambda s: s.version)

    def __iter__(self):
        return iter(sorted(self.by_name.values(), key=lambda s: (s.domain != ONNX_DOMAIN, s.domain, s.op, s.version)))

    def versions(self, op: str, domain: str | None = None) -> list[Spec]:
        dom, name = split_op(op, domain)
        return list(self.by_op.get((dom, name), []))

    def has_op(self, op: str, domain: str | None = None) -> bool:
        return bool(self.versions(op, domain))

    def resolve(self, op: str, opset: int, domain: str | None = None) -> Spec:
        """The newest version of ``op`` whose version is at most ``opset``."""
        dom, name = split_op(op, domain)
        versions = self.by_op.get((dom, name))
        if not versions:
            msg = did_you_mean(op, self.known_ops(), "operator")
            raise UsageError(msg + ("" if "did you mean" in msg or ":" in op else
                                    " (OpenVINO operators are written openvino:NAME)"))
        if not isinstance(opset, int) or isinstance(opset, bool):
            raise UsageError(f"opset must be an integer, got {opset!r}")
        best = None
        for s in versions:
            if s.version <= opset:
                best = s
        if best is None:
            raise UsageError(f"{op} does not exist at opset {opset}: its first version is {versions[0].name} "
                             f"(opset {versions[0].version}); raise the model's opset_import for domain "
                             f"{dom!r} to at least {versions[0].version}")
        return best

    def get(self, name: str) -> Spec:
        """A spec by its name: ``ScatterND-16``, ``openvino:ScatterElementsUpdate-3``."""
        if name in self.by_name:
            return self.by_name[name]
        m = SPEC_NAME.fullmatch(name.strip())
        if m:
            dom = normalize_domain(m.group(1) or "")
            key = spec_name(dom, m.group(2), int(m.group(3)))
            if key in self.by_name:
                return self.by_name[key]
        if m:
            dom = normalize_domain(m.group(1) or "")
            vs = self.known_versions(dom, m.group(2))
            if vs:
                raise UsageError(f"unknown spec {name!r}; {m.group(2)} has versions {', '.join(map(str, vs))}")
            raise UsageError(did_you_mean(m.group(2), self.known_ops(), "operator") + f" (in spec {name!r})")
        raise UsageError(f"unknown spec {name!r}: a spec is named OP-VERSION (ScatterND-18); `shapecheck specs` lists them")

    def known_ops(self) -> list[str]:
        """Every operator's name as a query writes it (``ScatterND``, ``openvino:ScatterNDUpdate``)."""
        return sorted({s.qualified_op for s in self.by_name.values()})

    def known_versions(self, domain: str, op: str) -> list[int]:
        return sorted(s.version for s in self.by_op.get((domain, op), []))
