"""Throughput of ``shapecheck.infer`` (run on demand, not a test).

    /tmp/venv/bin/python bench/bench_infer.py [--seconds 1.0] [--profile]

Prints infer calls per second for a static query (every dim concrete) and a symbolic one,
for ScatterND and ScatterElements, the static/symbolic ratio, and how many sympy calls a
static run makes (it should be 0: plain ints never touch sympy).  If static throughput is
below 5,000 calls/s (or with --profile) it prints the cProfile hot spots.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import sympy

import shapecheck

QUERIES = {
    "ScatterND": {
        "static": ({"data": "float[4,4,4]", "indices": "int64[2,1]", "updates": "float[2,4,4]"}, {"reduction": "add"}),
        "symbolic": ({"data": "float[N,C]", "indices": "int64[M,1]", "updates": "float[M,C]"}, {"reduction": "add"}),
    },
    "ScatterElements": {
        "static": ({"data": "float[3,5]", "indices": "int64[2,5]", "updates": "float[2,5]"}, {"axis": 0}),
        "symbolic": ({"data": "float[N,C]", "indices": "int64[M,K]", "updates": "float[M,K]"}, {"axis": 1}),
    },
}
SPEED_FLOOR = 5000
SYMPY_ENTRY_POINTS = ("expand", "sympify", "simplify", "solve", "Symbol", "Dummy", "Eq", "Integer")


def rate(op, inputs, attrs, seconds):
    shapecheck.infer(op, 18, inputs, attrs)  # warm up: load specs, compile rules
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(50):
            shapecheck.infer(op, 18, inputs, attrs)
        n += 50
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def count_sympy_calls(fn):
    """Run fn with the main sympy entry points (and sympy.Basic.__new__) counting calls."""
    counts = {"n": 0}
    saved = {}
    for name in SYMPY_ENTRY_POINTS:
        orig = getattr(sympy, name)
        saved[name] = orig
        if isinstance(orig, type):
            continue  # classes are counted through Basic.__new__ below

        def wrap(*a, _o=orig, **k):
            counts["n"] += 1
            return _o(*a, **k)
        setattr(sympy, name, wrap)
    basic_new = sympy.Basic.__new__

    def counting_new(cls, *a, **k):
        counts["n"] += 1
        return basic_new(cls, *a, **k)
    sympy.Basic.__new__ = counting_new
    try:
        fn()
    finally:
        for name, orig in saved.items():
            setattr(sympy, name, orig)
        sympy.Basic.__new__ = basic_new
    return counts["n"]


def profile(op, inputs, attrs, n=3000):
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        shapecheck.infer(op, 18, inputs, attrs)
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15)
    print(s.getvalue())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement (default 1 s)")
    ap.add_argument("--profile", action="store_true", help="always print the cProfile hot spots")
    args = ap.parse_args()
    print(f"{'op':<16} {'static/s':>10} {'symbolic/s':>11} {'ratio':>7} {'sympy calls (static x100)':>27} "
          f"{'sympy calls (symbolic x100)':>29}")
    slow = []
    for op, qs in QUERIES.items():
        st = rate(op, *qs["static"], args.seconds)
        sy = rate(op, *qs["symbolic"], args.seconds)
        n_static = count_sympy_calls(lambda: [shapecheck.infer(op, 18, *qs["static"]) for _ in range(100)])
        n_symb = count_sympy_calls(lambda: [shapecheck.infer(op, 18, *qs["symbolic"]) for _ in range(100)])
        print(f"{op:<16} {st:>10.0f} {sy:>11.0f} {st / sy:>7.1f} {n_static:>27} {n_symb:>29}")
        if n_static:
            print(f"  !! the static {op} path called sympy {n_static} times")
        if st < SPEED_FLOOR or args.profile:
            slow.append(op)
    for op in slow:
        print(f"\ncProfile of the static {op} query (top 15 by own time):")
        profile(op, *QUERIES[op]["static"])


if __name__ == "__main__":
    main()
