"""docs/ARCHITECTURE.md stays true: every path it names exists, and every subpackage, job and CLI group
that exists is named in it."""

import re
from pathlib import Path

from crseval.api import JOBS
from crseval.cli.main import GROUPS

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")


def test_every_path_named_exists():
    paths = set(
        re.findall(r"`((?:crseval|tests|bench|examples|docs)/[\w./<>-]*|pyproject\.toml)", DOC)
    )
    concrete = {p.split(":")[0].rstrip("/") for p in paths if "<" not in p}
    assert len(concrete) > 30
    missing = sorted(p for p in concrete if not (ROOT / p).exists())
    assert not missing, f"docs/ARCHITECTURE.md names paths that do not exist: {missing}"


def test_every_subpackage_job_and_cli_group_is_named():
    packages = sorted(p.name for p in (ROOT / "crseval").iterdir() if (p / "__init__.py").exists())
    assert not [p for p in packages if f"`crseval/{p}/`" not in DOC], (
        "a subpackage missing from the layer table"
    )
    assert not [j for j in JOBS if f"`{j}`" not in DOC], "a job missing from the rooms table"
    assert not [g for g in GROUPS if f"`crseval/cli/{g}.py`" not in DOC], (
        "a CLI group missing from the rooms table"
    )
