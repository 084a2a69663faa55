"""The architecture, checked: the layer contract (import-linter; derived from the declarations), no import cycle between
crseval's subpackages or modules (imports inside functions included), small functions and modules."""

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "crseval"


def test_layer_contract_is_kept(monkeypatch):
    pytest.importorskip("importlinter")
    from importlinter.cli import lint_imports

    monkeypatch.chdir(
        ROOT
    )  # lint-imports finds the derived contract (tools/) from the working directory
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


def test_the_contract_is_derived_from_the_declarations():
    """pyproject.toml names the derived contract only; its layers hold every capability in the layer it
    declares and every part of crseval exactly once (a part in no layer would go unchecked)."""
    import tomllib

    from crseval.core.capability import LAYERS, all_capabilities
    from tools.import_contract import declared_layers

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = config["tool"]["importlinter"]["contracts"]
    assert contract["type"] == "declared_layers" and "layers" not in contract
    layers = declared_layers()
    placed = {p.strip(): name for name, line in zip(LAYERS, layers) for p in line.split("|")}
    assert all(placed[c.package] == c.layer for c in all_capabilities().values())
    parts = {
        f"crseval.{p.stem}"
        for p in PACKAGE.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        or (p.suffix == ".py" and p.stem != "__init__")
    }
    assert sorted(p.strip() for line in layers for p in line.split("|")) == sorted(parts)


def test_no_import_cycle_between_subpackages():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("crseval")
    edges = defaultdict(set)
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = (m.split(".")[1] if m.count(".") else None for m in (module, imported))
            if a and b and a != b:
                edges[a].add(b)

    def reaches(start: str, goal: str, seen: set) -> bool:
        return any(
            n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in edges[start]
        )

    cycles = sorted(a for a in list(edges) if reaches(a, a, {a}))
    assert not cycles, f"subpackages on an import cycle: {cycles}"


def test_no_import_cycle_between_modules():
    """No module imports, directly or through others, a module that imports it — imports inside
    functions and those under ``TYPE_CHECKING`` included: a type-only circle is still two modules that
    cannot be read apart (a Protocol, or a module of its own for the shared type, breaks it)."""
    from graphlib import CycleError, TopologicalSorter

    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("crseval", exclude_type_checking_imports=False)
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    try:
        TopologicalSorter(imports).prepare()
    except CycleError as e:
        pytest.fail(f"modules on an import cycle: {' → '.join(e.args[1])}")


def test_only_the_runner_opens_a_run_store():
    """The run directory's writer (``RunStore``) is the runner's: imported under ``crseval/runs/`` and by
    ``crseval/api.py`` alone. A job is handed a ``RunContext`` (no table, figure, section or signature
    writer); the report and every reader of a finished run use the read-only ``Run``."""
    importers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("runs/") or rel == "api.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(a.name == "RunStore" for a in node.names):
                importers.append(rel)
    assert not importers, f"RunStore imported outside the runner: {importers}"


def _logical_lines(node: ast.AST) -> int:
    """Lines on which a statement starts: a size the formatter cannot change (a call split over five
    physical lines is one logical line)."""
    return len({n.lineno for n in ast.walk(node) if isinstance(n, ast.stmt)})


def _sizes():
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        yield (
            path,
            _logical_lines(tree),
            [
                (n.name, _logical_lines(n))
                for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            ],
        )


# Limits in logical lines (statements), set when the tree was formatted (#27): the largest function then
# had 50, the largest module 260 — what 60 and 400 physical lines allowed before the formatter split calls.
MAX_FUNCTION, MAX_MODULE = 50, 275


def test_no_module_over_the_size_limit():
    long = [f"{p.relative_to(ROOT)} ({n})" for p, n, _ in _sizes() if n > MAX_MODULE]
    assert not long, f"modules over {MAX_MODULE} logical lines: {long}"


def test_no_function_over_the_size_limit():
    long = [
        f"{p.relative_to(ROOT)}:{name} ({n})"
        for p, _, fns in _sizes()
        for name, n in fns
        if n > MAX_FUNCTION
    ]
    assert not long, f"functions over {MAX_FUNCTION} logical lines: {long}"


# #75's limits in physical lines and parameters (self and cls aside; a command whose options are declared
# as data takes them as one **values)
MAX_LINES, MAX_PARAMETERS = 60, 8


def _functions():
    """(``path:name``, physical lines, parameters) of every function of the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = n.args
                named = [*a.posonlyargs, *a.args, *a.kwonlyargs]
                own = [x for x in named if x.arg not in ("self", "cls")]
                yield (
                    f"{rel}:{n.name}",
                    n.end_lineno - n.lineno + 1,
                    len(own) + bool(a.vararg) + bool(a.kwarg),
                )


def test_no_function_takes_more_than_eight_parameters():
    wide = sorted(f"{f} ({n})" for f, _, n in _functions() if n > MAX_PARAMETERS)
    assert not wide, f"over {MAX_PARAMETERS} parameters: {wide}"


def test_no_function_over_sixty_lines():
    long = sorted(f"{f} ({lines})" for f, lines, _ in _functions() if lines > MAX_LINES)
    assert not long, f"over {MAX_LINES} lines: {long}"


def _ruff(*args: str):
    import shutil
    import subprocess
    import sys

    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (pip install 'crseval[dev]')")
    return subprocess.run(
        [ruff, *args, "crseval", "tests", "bench", "tools"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def test_ruff_check_passes():
    """pyflakes and pycodestyle (the rules in pyproject.toml's [tool.ruff.lint]) over the whole tree."""
    res = _ruff("check")
    assert res.returncode == 0, res.stdout[-3000:]


def test_the_tree_is_formatted():
    """`ruff format` (line length 100) leaves every file as it is."""
    res = _ruff("format", "--check")
    assert res.returncode == 0, res.stdout[-3000:]


def _imports(folder: Path) -> dict[str, set[str]]:
    """file → the modules it imports (inside functions too)."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        names = set()
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Import):
                names |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
                names.add(n.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def test_tests_benchmarks_and_the_package_stay_apart():
    """No test imports a benchmark, no benchmark a test, and the package imports neither: what both
    share (the fault-injecting server, CRS plug-ins of known behaviour) ships in ``crseval.testing``, which
    nothing a user runs imports."""
    crossing = [
        f"{f} imports {m}"
        for folder, bad in [("tests", "bench"), ("bench", "tests"), ("crseval", "tests")]
        for f, names in _imports(ROOT / folder).items()
        for m in names
        if m.split(".")[0] == bad
    ]
    crossing += [
        f"{f} imports {m}"
        for f, names in _imports(PACKAGE).items()
        for m in names
        if m.startswith("crseval.testing") and not f.startswith("crseval/testing/")
    ]
    assert not crossing, crossing


def test_the_tools_import_nothing_through_sys_path():
    """`tools/` runs as modules from the project root (`python -m tools.validate`): a tool that edited
    ``sys.path`` to import the package or a benchmark would import whatever sits first on it."""
    touched = [
        p.name
        for p in sorted((ROOT / "tools").glob("*.py"))
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "path"
        and isinstance(node.value, ast.Name) and node.value.id == "sys"
    ]  # fmt: skip
    assert not touched, f"tools that edit sys.path: {touched}"
