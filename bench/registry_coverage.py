"""Which operator versions of onnx's registry have no spec of their own (run on demand, not a test).

    python bench/registry_coverage.py [--domain ai.onnx] [--all] [--summary]

onnx's registry (``onnx.defs.get_all_schemas_with_history()``) lists every version of every
operator, deprecated ones included, each under the opset that introduced it (``since_version``).
A version is covered when a spec file defines that very version (``Op-N``), not when an older
spec serves its opset.  The script prints the missing ``(domain, op, version)`` triples, one a
line, then a count per domain; ``--domain`` keeps one domain (repeatable), ``--summary`` prints
the counts only.  If, Loop and Scan are the forward pass's own (``model/control_flow.py``) and
never need a spec: they are listed only with ``--all``.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CONTROL_FLOW = {"If", "Loop", "Scan"}


def registry_versions() -> set[tuple[str, str, int]]:
    """Every (domain, op, since_version) onnx's registry has."""
    from onnx import defs
    return {(s.domain or "ai.onnx", s.name, s.since_version) for s in defs.get_all_schemas_with_history()}


def spec_versions() -> set[tuple[str, str, int]]:
    """Every (domain, op, version) a shipped spec file defines (read from the registry's index)."""
    from shapecheck.registry import default_registry
    reg = default_registry()
    keys = getattr(reg, "_files", None)
    if keys is None:   # an eager registry: every spec is built already
        return {(s.domain, s.op, s.version) for s in reg}
    return {(dom, op, v) for dom, op in keys for v in reg.known_versions(dom, op)}


def missing(domains: set[str] | None = None, control_flow: bool = False) -> list[tuple[str, str, int]]:
    """The registry's versions without a spec of their own, sorted."""
    have = spec_versions()
    out = [t for t in registry_versions() - have
           if (domains is None or t[0] in domains) and (control_flow or t[1] not in CONTROL_FLOW)]
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--domain", action="append", help="only this domain (repeatable)")
    p.add_argument("--all", action="store_true", help="list If, Loop and Scan too")
    p.add_argument("--summary", action="store_true", help="print the counts only")
    args = p.parse_args(argv)
    gaps = missing(set(args.domain) if args.domain else None, args.all)
    if not args.summary:
        for dom, op, v in gaps:
            print(f"{dom}\t{op}\t{v}")
    total = Counter(d for d, _, _ in registry_versions() if not args.domain or d in args.domain)
    for dom, n in sorted(Counter(d for d, _, _ in gaps).items()):
        print(f"# {dom}: {n} of {total[dom]} versions without a spec", file=sys.stderr)
    print(f"# missing: {len(gaps)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
