"""Odd queries a spec must survive: unknown ranks and types, scalars where vectors belong, absent
optional inputs and attributes, values with unknown elements.  They end in a result or a
``UsageError``, never another exception."""
from __future__ import annotations

from shapecheck.errors import UsageError
from shapecheck.solver import solve

TYPES = ("float[N,C]", "float", "?", "int64[2] = [N, -1]", "int64[] = 3", "int64[0]", "float[]",
         "int32[3] = [1, ?, N]")
ATTRS = ({}, {"axes": [5]}, {"starts": [0], "ends": [1]}, {"k": 2}, {"num_outputs": 2}, {"axis": 3})


def check_odd_queries(spec) -> None:
    for t in TYPES:
        for with_optional in (True, False):
            for attrs in ATTRS:
                attrs = {k: v for k, v in attrs.items() if k in spec.attributes}
                try:
                    r = solve(spec, {i.name: t for i in spec.inputs if with_optional or not i.optional}, attrs,
                              output_count=3 if spec.outputs[-1].variadic else None)
                except UsageError:
                    continue
                assert r.status in ("valid", "conditional", "invalid")
