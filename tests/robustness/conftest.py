"""The robustness suite: `pytest -m robustness` runs it on its own (it is also part of every full run)."""

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/robustness/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.robustness)
