"""Every operator version of onnx's registry (ai.onnx and ai.onnx.ml) has a spec of its own.

onnx's registry (``onnx.defs.get_all_schemas_with_history()``) lists each version of each operator
under the opset that introduced it, deprecated ones included.  A version is covered by a spec file
that defines that very version (``Op-N``), not by an older spec that serves its opset.
``bench/registry_coverage.py`` prints what is missing.
"""
from __future__ import annotations

import onnx.defs

from shapecheck.registry import default_registry

DOMAINS = ("ai.onnx", "ai.onnx.ml")

# If, Loop and Scan are the forward pass's own (shapecheck/model/control_flow.py walks their bodies as
# regions of the pass): they need no spec.
CONTROL_FLOW = {"If", "Loop", "Scan"}

# Being specified in parallel (issue 27, the other half): sequences, optionals, the string ops and the
# ai.onnx.ml domain. Each name leaves this set when its specs land; the set is then empty.
PENDING = {
    # sequences and optionals
    "ConcatFromSequence", "Optional", "OptionalGetElement", "OptionalHasElement", "SequenceAt",
    "SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength", "SequenceMap",
    "SplitToSequence",
    # the string ops
    "RegexFullMatch", "StringConcat", "StringNormalizer", "StringSplit",
    # ai.onnx.ml
    "ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer", "FeatureVectorizer",
    "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor", "Normalizer", "OneHotEncoder",
    "SVMClassifier", "SVMRegressor", "Scaler", "TreeEnsemble", "TreeEnsembleClassifier",
    "TreeEnsembleRegressor", "ZipMap",
}


# specs of ai.onnx that onnx's registry does not define, with why
OUTSIDE_REGISTRY = {
    ("ai.onnx", "SimplifiedLayerNormalization", 1): "onnxruntime's contrib op, which it registers in the ONNX domain",
}


def _registry_versions() -> set[tuple[str, str, int]]:
    return {(s.domain or "ai.onnx", s.name, s.since_version) for s in onnx.defs.get_all_schemas_with_history()
            if (s.domain or "ai.onnx") in DOMAINS}


def _spec_versions() -> set[tuple[str, str, int]]:
    reg = default_registry()
    return {(dom, op, v) for dom, op in reg._files for v in reg.known_versions(dom, op)}


def test_every_registry_version_has_a_spec_of_its_own():
    missing = sorted(t for t in _registry_versions() - _spec_versions()
                     if t[1] not in CONTROL_FLOW and t[1] not in PENDING)
    assert not missing, "operator versions without a spec: " + ", ".join(f"{d}:{o}-{v}" for d, o, v in missing)


def test_pending_names_are_operators_still_without_every_spec():
    """PENDING names only operators of the registry that still lack a version's spec: a name whose specs
    have all landed leaves the set."""
    names = {op for _, op, _ in _registry_versions()}
    assert PENDING <= names, sorted(PENDING - names)
    gaps = {op for _, op, _ in _registry_versions() - _spec_versions()}
    done = sorted(PENDING - gaps)
    assert not done, "every version of these has a spec now; drop them from PENDING: " + ", ".join(done)


def test_no_spec_claims_a_version_the_registry_lacks():
    """A spec of ai.onnx or ai.onnx.ml names a version onnx defines (a typo'd version would cover nothing)."""
    extra = sorted(t for t in _spec_versions() - _registry_versions() - set(OUTSIDE_REGISTRY) if t[0] in DOMAINS)
    assert not extra, extra
