"""The package's layout holds (docs/design.md, "Module map"): read from the source with ``ast``, never
imported.

* No import circle: every ``import`` of every module counts, at its top, under ``TYPE_CHECKING`` or
  inside a function.  Between modules, importing ``a.b.c`` from outside ``a.b`` imports ``a.b`` (its
  face) and ``a`` first, so those count too; between the packages and top-level modules of
  ``shapecheck``, any import of one by another counts.
* The floors: ``notation/`` (the language) imports neither its function library (``functions/``),
  nor the kernels, nor the spec registry; ``functions/`` never imports ``kernels/``; neither imports
  ``registry/``, which stands above both.
* Faces: a name is re-exported only by a package's ``__init__.py``; any other module's ``__all__``
  lists what it defines.
* Sizes: no module over 350 lines, no function over 60.
* Names: no module or test file is named after a batch of work; ``notation/`` has at most 12
  modules; an op family's one name finds its Python in ``kernels/``, ``functions/`` (where it has
  notation functions) and ``tests/ops/``.
* No branch on an operator's name outside ``model/control_flow.py``, which owns If, Loop and Scan.
"""
from __future__ import annotations

import ast
import fnmatch
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "shapecheck"
# kept one release for outside code (bench/ used it): a face of shapecheck.registry, imported by nothing inside
SHIMS = {"shapecheck.notation.load"}
BATCH_NAMES = ("more_ops*", "moreops*", "msops*", "misc", "contrib", "b_*", "tensor_ops", "tensorops", "cutting",
               "*_kit", "*issue*")
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 350, 60


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, tuple[Path, ast.Module]]:
    return {_name(p): (p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))}


def _targets(name: str, path: Path, node: ast.AST) -> list[str]:
    """The modules an import statement imports (a name imported from a package that is a module of it
    counts as that module)."""
    mods = modules()
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "shapecheck"]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        base = base[:len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "shapecheck":
        return []
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target for a in node.names]


@cache
def imports() -> dict[str, set[str]]:
    """module -> the modules it imports, wherever in it the import is written."""
    out: dict[str, set[str]] = {}
    for name, (path, tree) in modules().items():
        out[name] = {t for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                     for t in _targets(name, path, node)}
    return out


def _unit(name: str) -> str:
    """The package or top-level module of ``shapecheck`` a module belongs to."""
    return ".".join(name.split(".")[:2])


def _cycles(nodes, succ) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ(w))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _module_edges(name: str) -> list[str]:
    """What importing ``name``'s imports runs: each module, and for one outside ``name``'s own package,
    the packages above it (their faces)."""
    out: set[str] = set()
    for t in imports()[name]:
        out.add(t)
        parts = t.split(".")
        for k in range(2, len(parts)):
            parent = ".".join(parts[:k])
            if not (name + ".").startswith(parent + "."):
                out.add(parent)
    return sorted(t for t in out if t in modules() and t != name and t != "shapecheck")


def test_no_import_circle_between_modules():
    names = [n for n in modules() if n not in SHIMS]
    assert _cycles(names, lambda n: [t for t in _module_edges(n) if t not in SHIMS]) == []


def test_no_import_circle_between_packages():
    edges: dict[str, set[str]] = {}
    for name in modules():
        if name in SHIMS or name == "shapecheck":
            continue
        edges.setdefault(_unit(name), set()).update(
            _unit(t) for t in imports()[name] if _unit(t) != _unit(name) and t != "shapecheck" and t not in SHIMS)
    assert _cycles(sorted(edges), lambda u: sorted(edges.get(u, ()))) == []


def _imports_of(package: str) -> set[str]:
    return {t for n, ts in imports().items() if _unit(n) == package and n not in SHIMS for t in ts}


def test_the_floors():
    assert not any(_unit(t) in ("shapecheck.functions", "shapecheck.kernels", "shapecheck.registry")
                   for t in _imports_of("shapecheck.notation"))
    assert not any(_unit(t) in ("shapecheck.kernels", "shapecheck.registry") for t in _imports_of("shapecheck.functions"))
    assert not any(_unit(t) == "shapecheck.registry" for t in _imports_of("shapecheck.kernels"))


def test_the_shim_is_used_by_nothing_inside():
    assert not any(s in ts for n, ts in imports().items() for s in SHIMS)


def _defined(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def test_only_a_package_face_re_exports():
    wrong = {}
    for name, (path, tree) in modules().items():
        if path.name == "__init__.py":
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                listed = {e.value for e in node.value.elts}
                if listed - _defined(tree):
                    wrong[name] = sorted(listed - _defined(tree))
    assert wrong == {}


def test_no_module_or_function_is_too_long():
    long_modules, long_functions = [], []
    for name, (path, tree) in modules().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            long_modules.append((name, lines))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions.append((f"{name}.{node.name}", length))
    assert long_modules == [] and long_functions == []


def test_no_module_or_test_file_is_named_after_a_batch():
    stems = [p.stem for p in PACKAGE.rglob("*.py")] + [p.stem.removeprefix("test_") for p in (ROOT / "tests").rglob("*.py")]
    assert [s for s in stems if any(fnmatch.fnmatch(s, pat) for pat in BATCH_NAMES)] == []


def test_the_notation_is_the_language_only():
    rooms = [p for p in (PACKAGE / "notation").glob("*.py") if p.name != "__init__.py" and _name(p) not in SHIMS]
    assert len(rooms) <= 12


def _stems(directory: Path, prefix: str = "") -> set[str]:
    return {p.stem.removeprefix(prefix) for p in directory.glob(f"{prefix}*.py") if not p.stem.startswith("_")}


def test_one_family_name_finds_its_python():
    kernels = _stems(PACKAGE / "kernels")
    # shared by families, not one: float_sizes is the arithmetic of sizes the constant family's Cast keeps in
    # float and the elementwise family computes on
    functions = _stems(PACKAGE / "functions") - {"core", "bounds", "float_sizes", "reference"}
    tests = _stems(ROOT / "tests" / "ops", "test_")
    assert functions <= kernels, sorted(functions - kernels)
    assert kernels == tests, (sorted(kernels - tests), sorted(tests - kernels))


def _is_op(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("op", "op_type")) or \
        (isinstance(node, ast.Attribute) and node.attr in ("op", "op_type"))


def _names_an_op(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value[:1].isupper()
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(_names_an_op(e) for e in node.elts)


def test_no_branch_on_an_operators_name():
    found = []
    for name, (path, tree) in modules().items():
        if name == "shapecheck.model.control_flow":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(_is_op(s) for s in sides) and any(_names_an_op(s) for s in sides):
                    found.append(f"{name}:{node.lineno}")
    assert found == []


def test_the_module_map_is_current():
    from tests.harness.module_map import current, module_map
    assert current() == module_map(), \
        "docs/design.md's module map is out of date; regenerate it with: python -m tests.harness.module_map"
