"""Where the light check stops on each small shipped model (run on demand, not a test).

    python bench/light_stops.py [MODEL.onnx ...]

The CLI first checks a model without sympy (``check.light_check``: named dims are ``dims.Name``s,
their sums and products ``dims.Poly``s, ``dims/light.py``); the first dim that needs more stops it with ``NeedsAlgebra``, and the model is checked again
with sympy, whose import alone costs more than the 0.5 s issue 28 asks of a small model.  This
prints, for every model of at most 2,000 nodes of the export corpus and the zoo (or the models
given), whether the light check finished, and if not the place in shapecheck's code that needed
algebra (its innermost frame of ``shapecheck/``, two callers with it) and what it needed: a sympy
name the deferred module was asked for, a dim operation the light algebra refused, or a dim_param
that is an expression.  Then a count per place: what the light algebra would have to do next.
"""
from __future__ import annotations

import argparse
import sys
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def stop_of(path: Path, registry) -> tuple[str, str] | None:
    """(where in shapecheck the light check stopped, what it needed), or None when it finished."""
    from shapecheck.dims.light import NeedsAlgebra
    from shapecheck.frontends import load_model
    from shapecheck.model.check import light_check
    try:
        light_check(load_model(str(path), False, bare=True), registry)
        return None
    except NeedsAlgebra as e:
        # the innermost frames of shapecheck's own code, past the two that only raise (the deferred sympy
        # module asked for a name, a Name asked for arithmetic)
        frames = [f for f in traceback.extract_tb(e.__traceback__) if "/shapecheck/" in f.filename
                  and not f.filename.endswith(("/deferred.py", "/dims/light.py", "/dims/light_order.py"))][-3:]
        where = " <- ".join(f"{f.filename.split('shapecheck/')[-1]}:{f.name}" for f in reversed(frames))
        return where, str(e).split(":")[0][:60]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", type=Path)
    args = ap.parse_args(argv)
    from shapecheck.registry import default_registry
    registry = default_registry()
    if args.models:
        models = args.models
    else:
        from bench_decoders import small_models
        models = [p for p, _n in small_models()]
    places: Counter = Counter()
    light = 0
    for path in models:
        got = stop_of(path, registry)
        if got is None:
            light += 1
            print(f"{path.name:32} finished light")
            continue
        where, what = got
        places[where.split(" <- ")[0]] += 1
        print(f"{path.name:32} {what:28} {where}")
    print(f"\n{light} of {len(models)} finished light; where the others stopped first:")
    for where, n in places.most_common():
        print(f"{n:4}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
