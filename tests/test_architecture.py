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
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in edges[start])
    cycles = sorted(a for a in list(edges) if reaches(a, a, {a}))
    assert not cycles, f"subpackages on an import cycle: {cycles}"


def _sizes():
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        yield path, source.count("\n"), [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(ast.parse(source))
                                         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_no_module_over_400_lines():
    long = [f"{p.relative_to(ROOT)} ({n})" for p, n, _ in _sizes() if n > 400]
    assert not long, long


def test_no_function_over_60_lines():
    long = [f"{p.relative_to(ROOT)}:{name} ({n})" for p, _, fns in _sizes() for name, n in fns if n > 60]
    assert not long, long


def test_ruff_check_passes():
    """pyflakes and pycodestyle (the rules in pyproject.toml's [tool.ruff.lint]) over the whole tree."""
    import shutil
    import subprocess
    import sys
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (pip install 'crseval[dev]')")
    res = subprocess.run([ruff, "check", "crseval", "tests", "bench", "tools"], cwd=ROOT, capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stdout[-3000:]
