"""Every operator version onnx's registry has in the ai.onnx.ml, ai.onnx.preview and
ai.onnx.preview.training domains, and every version of the sequence, optional and string ops of
ai.onnx, has a spec of its own (a file whose version is that version, not an older one serving it).

The registry is ``onnx.defs.get_all_schemas_with_history()``: a version onnx adds fails here until its
spec is written.
"""
from __future__ import annotations

import onnx.defs
import pytest

from shapecheck.registry import default_registry

REG = default_registry()
DOMAINS = ("ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")
ONNX_OPS = {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength",
            "SequenceMap", "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalGetElement",
            "OptionalHasElement", "StringConcat", "StringNormalizer", "StringSplit", "RegexFullMatch"}


def _versions() -> list[tuple[str, str, int]]:
    out = set()
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in DOMAINS or (s.domain == "" and s.name in ONNX_OPS):
            out.add((s.domain or "ai.onnx", s.name, s.since_version))
    return sorted(out)


VERSIONS = _versions()


def test_the_registry_is_read():
    assert len(VERSIONS) >= 52
    assert {d for d, _o, _v in VERSIONS} == {"ai.onnx", *DOMAINS}


@pytest.mark.parametrize("domain,op,version", VERSIONS, ids=[f"{d}:{o}-{v}" for d, o, v in VERSIONS])
def test_every_version_has_a_spec_of_its_own(domain, op, version):
    specs = {s.version: s for s in REG.versions(op, domain)} if REG.has_op(op, domain) else {}
    assert version in specs, f"{domain}:{op}-{version} has no spec (specs: {sorted(specs)})"
    schema = onnx.defs.get_schema(op, version, "" if domain == "ai.onnx" else domain)
    assert bool(specs[version].deprecated) == bool(schema.deprecated), (op, version)


def test_no_spec_claims_a_version_the_registry_lacks():
    have = {(d, o, v) for d, o, v in VERSIONS}
    for spec in REG:
        if spec.domain in DOMAINS or (spec.domain == "ai.onnx" and spec.op in ONNX_OPS):
            assert (spec.domain, spec.op, spec.version) in have, spec.name
