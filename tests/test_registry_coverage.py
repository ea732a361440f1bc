"""Every operator version of onnx's registry has a spec of its own: ai.onnx, ai.onnx.ml and the preview
domains (ai.onnx.preview, ai.onnx.preview.training).

onnx's registry (``onnx.defs.get_all_schemas_with_history()``) lists each version of each operator
under the opset that introduced it, deprecated ones included.  A version is covered by a spec file
that defines that very version (``Op-N``), not by an older spec that serves its opset; a version onnx
adds fails here until its spec is written.  ``bench/registry_coverage.py`` prints what is missing.
"""
from __future__ import annotations

import onnx.defs
import pytest

from shapecheck.registry import default_registry

REG = default_registry()
DOMAINS = ("ai.onnx", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")

# If, Loop and Scan are the forward pass's own (shapecheck/model/control_flow.py walks their bodies as
# regions of the pass): they need no spec.
CONTROL_FLOW = {"If", "Loop", "Scan"}

# specs of ai.onnx that onnx's registry does not define, with why
OUTSIDE_REGISTRY = {
    ("ai.onnx", "SimplifiedLayerNormalization", 1): "onnxruntime's contrib op, which it registers in the ONNX domain",
}


# versions onnx's schema marks deprecated that the runtimes still run, so the spec checks them as any other
RUN_THOUGH_DEPRECATED = {
    ("ai.onnx", "GroupNormalization", 18): "onnxruntime 1.32 runs it through its function body (GroupNormalization-18's note)",
}


def _registry_versions() -> set[tuple[str, str, int]]:
    return {(s.domain or "ai.onnx", s.name, s.since_version) for s in onnx.defs.get_all_schemas_with_history()
            if (s.domain or "ai.onnx") in DOMAINS}


VERSIONS = sorted(_registry_versions())


def _spec_versions() -> set[tuple[str, str, int]]:
    return {(dom, op, v) for dom, op in REG._files for v in REG.known_versions(dom, op)}


def test_the_registry_is_read():
    """onnx 1.23's registry: 629 ai.onnx versions up to opset 28, 25 of ai.onnx.ml, and the preview ones."""
    by_domain = {d: sum(1 for v in VERSIONS if v[0] == d) for d in DOMAINS}
    assert by_domain["ai.onnx"] >= 629 and by_domain["ai.onnx.ml"] >= 25, by_domain
    assert all(by_domain.values()), by_domain


@pytest.mark.parametrize("domain,op,version", VERSIONS, ids=[f"{d}:{o}-{v}" for d, o, v in VERSIONS])
def test_every_version_has_a_spec_of_its_own(domain, op, version):
    """A spec file of that very version, deprecated where onnx's schema is."""
    if op in CONTROL_FLOW and domain == "ai.onnx":
        return
    specs = {s.version: s for s in REG.versions(op, domain)} if REG.has_op(op, domain) else {}
    assert version in specs, f"{domain}:{op}-{version} has no spec (specs: {sorted(specs)})"
    schema = onnx.defs.get_schema(op, version, "" if domain == "ai.onnx" else domain)
    deprecated = bool(schema.deprecated) and (domain, op, version) not in RUN_THOUGH_DEPRECATED
    assert bool(specs[version].deprecated) == deprecated, (op, version)


def test_no_spec_claims_a_version_the_registry_lacks():
    """A spec of these domains names a version onnx defines (a typo'd version would cover nothing)."""
    extra = sorted(t for t in _spec_versions() - _registry_versions() - set(OUTSIDE_REGISTRY) if t[0] in DOMAINS)
    assert not extra, extra
