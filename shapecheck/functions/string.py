"""String functions: ``regex_ok``, whether RegexFullMatch's pattern is one onnxruntime's RE2 accepts;
``split_width`` and ``kept_count``, StringSplit's and StringNormalizer's data-dependent dims, counted
where the strings are constants and a run-time size otherwise.

RE2 is not Python's ``re``: a pattern is refused (False) where it uses what RE2 lacks (lookaround,
backreferences, possessive or atomic groups, conditionals, the flags x, a, L, u, ``\\Z``, ``\\u``
escapes, a repetition count above 1000) or where both engines fail to parse it (an unclosed group); a
pattern Python parses and that uses none of those is taken as RE2's (True); one only RE2 knows
(``\\pL``, ``\\z``, ``\\C``, ``\\Q``, ``(?<name>``) is not decided here.

>>> regex_ok("a.*"), regex_ok("a(?=b)"), regex_ok("("), regex_ok("\\\\pL+")
(True, False, False, Unknown(static))
"""
from __future__ import annotations

import re
import warnings
from typing import Any

from ..notation import UNKNOWN, Unknown

_RE2_LACKS = re.compile(r"\(\?(?:=|!|<=|<!|>|P=|\(|[imsx]*[xaLu])|\\[1-9ZuUN]|[*+?}]\+|\{\s*\d{4,}")
_RE2_ONLY = re.compile(r"\\[pPzCQE]|\(\?<[A-Za-z]")


def regex_ok(pattern: Any) -> Any:
    """True when RE2 (onnxruntime's) accepts ``pattern``, False when it refuses it, unknown where only
    RE2 could tell (see the module doc)."""
    if isinstance(pattern, Unknown):
        return pattern
    if not isinstance(pattern, str):
        return False
    if _RE2_LACKS.search(pattern):
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            re.compile(pattern)
            return True
        except (re.error, RecursionError, OverflowError):
            return UNKNOWN if _RE2_ONLY.search(pattern) else False


def _strings(x: Any) -> list | None:
    value = getattr(x, "value", None)
    return None if value is None else [str(v) for v in value.reshape(-1).tolist()]


def split_width(x: Any, delimiter: Any, maxsplit: Any) -> Any:
    """The most substrings an element of ``x`` splits into (StringSplit's last dim), where ``x`` is a
    constant; else a run-time size, at most maxsplit + 1 where maxsplit >= 0.

    >>> from shapecheck.notation import TensorVal
    >>> from shapecheck.types import parse_type
    >>> split_width(TensorVal("x", parse_type("string[2] = ['a b c', 'd']")), None, 1)
    2
    """
    from .core import fresh
    words = _strings(x)
    limit = -1 if maxsplit is None or maxsplit < 0 else int(maxsplit)
    if words is None:
        return fresh("parts", limit + 1 if limit >= 0 else None)
    return max((len(w.split(delimiter or None, limit)) for w in words), default=0)


def kept_count(x: Any, stopwords: Any, is_case_sensitive: Any) -> Any:
    """How many elements of ``x`` StringNormalizer keeps (at least 1: an empty string when none is),
    where ``x`` is a constant; else a run-time size at most x's last dim."""
    from .core import fresh
    words = _strings(x)
    if words is None:
        shape = getattr(x, "shape", None)
        return fresh("kept", shape[-1] if shape else None)
    fold = (lambda w: w) if is_case_sensitive else (lambda w: w.lower())
    stops = {fold(w) for w in stopwords or ()}
    return max(1, sum(fold(w) not in stops for w in words))


NOTATION = (regex_ok, split_width, kept_count)
