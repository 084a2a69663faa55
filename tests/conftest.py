"""Shared fixtures. Real datasets live in ../shared/data next to the project root; tests that need
them skip with a message when they are absent (they are never committed: licences)."""

from __future__ import annotations

import os
from pathlib import Path

# Under pytest-xdist each worker process gets one core: BLAS, OpenMP and torch threads beyond that only
# contend with the other worker (the INSPIRED classifier test took 55 s with two threads a worker, 19 s
# with one). Set before numpy or torch is imported; a single-process run keeps the library defaults.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")

# Figures are laid out but not written (CRSEVAL_FIGURES=none): rendering and saving them took a quarter of
# the fast set's time, and most tests read tables. The tests that read figures ask for them (the `figures`
# fixture, or `env=FIGURES` of tests/support/cli.py); tests/test_plotting.py, the report's and the paper's
# tests check the formats, and the slow demo test writes every capability's figures. Subprocesses inherit it.
os.environ.setdefault("CRSEVAL_FIGURES", "none")

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CRSEVAL_SHARED_DATA", ROOT.parent / "shared" / "data")).resolve()


def shared_path(relative: str) -> Path:
    p = SHARED / relative
    if not p.exists():
        pytest.skip(
            f"shared dataset {relative} not found under {SHARED} (set CRSEVAL_SHARED_DATA); skipping"
        )
    return p


@pytest.fixture
def shared():
    return shared_path


def pytest_collection_modifyitems(config, items):
    """Each pytest-xdist worker starts with its share of the slow tests (a minute or two each) and ends on
    short ones, so neither runs a long test alone at the end: worksteal hands each worker a contiguous half
    of this order and later steals from the ends of the halves. File order is kept within each part."""
    slow = [item for item in items if item.get_closest_marker("slow")]
    fast = [item for item in items if not item.get_closest_marker("slow")]
    half = max(0, len(items) // 2 - len(slow[0::2]))
    items[:] = slow[0::2] + fast[:half] + slow[1::2] + fast[half:]


@pytest.fixture(scope="session")
def embedded_llm_cache(tmp_path_factory) -> Path:
    """One response cache for the tests that rate the sample dialogues with the embedded model, shared by
    the xdist workers of this run (SQLite in WAL mode, as a run's processes share theirs): a rating two
    tests ask for is computed by the model once (~5 s each here)."""
    root = tmp_path_factory.getbasetemp()
    return (root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root) / "embedded-llm.sqlite"


@pytest.fixture
def figures(monkeypatch):
    """Figures written as PNG, for a test that reads them."""
    monkeypatch.setenv("CRSEVAL_FIGURES", "png")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """Nothing may be fetched from a model hub during tests."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _strict_tables(request, monkeypatch):
    """A job that writes a table or column its declaration lacks fails the test that ran it (tests
    of the store and the renderers marked ``any_table`` write made-up tables)."""
    if request.node.get_closest_marker("any_table") is None:
        monkeypatch.setenv("CRSEVAL_STRICT_TABLES", "1")
