"""The architecture, checked: the layer contract in pyproject.toml (import-linter), no import cycle between
crseval's subpackages (imports inside functions included), small functions and modules."""

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "crseval"


def test_layer_contract_is_kept():
    pytest.importorskip("importlinter")
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


def test_every_capability_sits_in_the_layer_it_declares():
    """The import contract agrees with the capabilities' declarations (crseval/core/capability.py)."""
    import tomllib

    from crseval.core.capability import LAYERS, all_capabilities

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    assert len(contract["layers"]) == len(LAYERS)
    placed = {
        package.strip(): name
        for name, line in zip(LAYERS, contract["layers"])
        for package in line.split("|")
    }
    wrong = {
        c.package: (c.layer, placed.get(c.package))
        for c in all_capabilities().values()
        if placed.get(c.package) != c.layer
    }
    assert not wrong, (
        f"pyproject.toml layers disagree with the declarations (declared, found): {wrong}"
    )


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
