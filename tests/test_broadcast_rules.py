"""The symbolic broadcast rules against numpy's broadcasting, at every small value of their symbols."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

from shapecheck.functions.shape import broadcast
from shapecheck.dims import is_unknown, symbol

N, S = symbol("N"), symbol("S")
PAIRS = [(sympy.Min(1, S), 16), (N, sympy.Min(1, S)), (N, N * sympy.Min(1, S)), (sympy.Min(64, S), S),
         (N, N), (N, 1), (sympy.Min(1, N * S), N)]


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}|{b}" for a, b in PAIRS])
def test_broadcast_result_is_numpys_wherever_numpy_broadcasts(a, b):
    (got,) = broadcast((a,), (b,))
    assert not is_unknown(got)
    for n, s in itertools.product(range(5), range(5)):
        env = {N: n, S: s}
        x, y = (int(sympy.sympify(d).subs(env)) for d in (a, b))
        try:
            want = np.broadcast_shapes((x,), (y,))[0]
        except ValueError:
            continue   # not broadcastable at these values: the spec's condition refuses them
        assert int(sympy.sympify(got).subs(env)) == want, (a, b, env)
