"""String kernels: StringConcat, StringNormalizer, StringSplit, RegexFullMatch (Python's ``re`` for RE2's
full match, on the patterns both read alike).

>>> import numpy as np
>>> string_split(np.array(["a b", "c"], object), None, None)[0].tolist()
[['a', 'b'], ['c', '']]
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from . import register

if TYPE_CHECKING:
    import numpy as np
else:
    from ..deferred import numpy as np


@register("string_concat")
def string_concat(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    a, b = np.broadcast_arrays(np.asarray(X, dtype=object), np.asarray(Y, dtype=object))
    out = np.empty(a.shape, dtype=object)
    out.reshape(-1)[:] = [str(x) + str(y) for x, y in zip(a.reshape(-1), b.reshape(-1))]
    return out


@register("string_normalizer")
def string_normalizer(X: np.ndarray, case_change_action: str, is_case_sensitive: int, stopwords: Any) -> np.ndarray:
    """Stop words dropped (compared lowercased unless case sensitive), then the case changed; nothing left
    is one empty string, as [1] or [1, 1]."""
    x = np.asarray(X, dtype=object)
    words = set(stopwords or ())
    fold = (lambda s: s) if is_case_sensitive else (lambda s: s.lower())
    stops = {fold(w) for w in words}
    kept = [s for s in x.reshape(-1).tolist() if fold(s) not in stops]
    change = {"LOWER": str.lower, "UPPER": str.upper}.get(case_change_action, lambda s: s)
    kept = [change(s) for s in kept] or [""]
    out = np.empty(len(kept), dtype=object)
    out[:] = kept
    return out.reshape(1, -1) if x.ndim == 2 else out


@register("string_split")
def string_split(X: np.ndarray, delimiter: Any, maxsplit: Any) -> tuple:
    """Each string split (on consecutive whitespace, stripped, without a delimiter), at most maxsplit times
    when it is not negative; the parts padded with empty strings to the longest."""
    x = np.asarray(X, dtype=object)
    limit = -1 if maxsplit is None or maxsplit < 0 else int(maxsplit)
    parts = [(s.split(delimiter, limit) if delimiter else s.split(None, limit)) for s in x.reshape(-1).tolist()]
    width = max((len(p) for p in parts), default=0)
    y = np.full((len(parts), width), "", dtype=object)
    for i, p in enumerate(parts):
        y[i, :len(p)] = p
    return y.reshape(x.shape + (width,)), np.array([len(p) for p in parts], dtype=np.int64).reshape(x.shape)


@register("regex_full_match")
def regex_full_match(X: np.ndarray, pattern: str) -> np.ndarray:
    compiled = re.compile(pattern)
    x = np.asarray(X, dtype=object)
    return np.array([compiled.fullmatch(s) is not None for s in x.reshape(-1).tolist()], dtype=bool).reshape(x.shape)
