"""The string ops (StringConcat, StringNormalizer, StringSplit, RegexFullMatch): seeded random cases
against onnxruntime and onnx.reference, RE2's verdict on patterns against ``regex_ok``, and ONNX's own
node tests (``tests/harness/node_cases.py``)."""
from __future__ import annotations

import numpy as np
import pytest

import shapecheck
from tests.harness.node_cases import check_node_case, family_cases
from tests.harness.runtime import check_containers, rng_for, run_containers

WORDS = np.array(["a b", "c", "", "d  e f", "g,h", "A"], dtype=object)


def _strings(rng, shape):
    return rng.choice(WORDS, size=shape)


@pytest.mark.parametrize("seed", range(4))
def test_string_ops_match_the_runtimes(seed):
    rng = rng_for("strings", seed)
    shape = tuple(int(d) for d in rng.integers(0 if seed == 3 else 1, 4, size=int(rng.integers(1, 3))))
    x = _strings(rng, shape)
    y = _strings(rng, shape[-1:] if seed % 2 else (1,))
    check_containers("StringConcat", 20, [("X", x), ("Y", y)], {})
    split = {"delimiter": ","} if seed == 1 else ({"maxsplit": seed - 1} if seed >= 2 else {})
    check_containers("StringSplit", 20, [("X", x)], split, n_out=2)
    check_containers("RegexFullMatch", 20, [("X", x)], {"pattern": ["[a-z ]+", "a.*", "\\w", "(c|A)"][seed]})
    if np.prod(shape) and len(shape) == 1:
        # no stop words, no case change: onnxruntime needs no locale (en_US.UTF-8 is missing on this machine)
        check_containers("StringNormalizer", 10, [("X", x)], {})


def test_string_normalizer_with_stop_words_matches_onnx_reference():
    x = np.array(["monday", "Tuesday", "monday"], dtype=object)
    attrs = {"stopwords": ["Monday"], "case_change_action": "LOWER"}
    out = shapecheck.execute("StringNormalizer", 10, {"X": x}, attrs)["Y"]
    ref = run_containers("StringNormalizer", 10, [("X", x)], attrs, reference=True)[0]
    assert out.tolist() == ref.tolist() == ["tuesday"]
    r = shapecheck.infer("StringNormalizer", 10, {"X": "string[C]"}, attrs)
    assert r.outputs["Y"].shape[0].name == "kept" and r.outputs["Y"].shape[0].upper == shapecheck.dims.symbol("C")


PATTERNS = ["a.*", "(", "a(?=b)", "\\1", "[[:alpha:]]+", "(?P<x>a)", "a**", "a{2,1}", "(?i)A", "\\d+", "[a-",
            "a++", "(?x)a b", "(?:ab)+|c{2}"]


def test_regex_ok_agrees_with_onnxruntimes_re2():
    x = np.array(["ab"], dtype=object)
    for p in PATTERNS:
        try:
            run_containers("RegexFullMatch", 20, [("X", x)], {"pattern": p})
            accepted = True
        except Exception:
            accepted = False
        r = shapecheck.infer("RegexFullMatch", 20, {"X": "string[N]"}, {"pattern": p})
        assert (r.status == "valid") == accepted, (p, r.status, accepted)


# ---------------------------------------------------------------- ONNX's node tests

NODE_CASES = family_cases("string")


def test_node_cases_are_collected():
    assert len(NODE_CASES) >= 15


@pytest.mark.parametrize("case", NODE_CASES, ids=[c.name for c in NODE_CASES])
def test_official_node_case(case):
    check_node_case(case, "string")
