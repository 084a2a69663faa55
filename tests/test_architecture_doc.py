"""docs/ARCHITECTURE.md stays true: every path it names exists, and every subpackage, job and CLI group
that exists is named in it."""

import re
from pathlib import Path

from crseval.api import JOBS
from crseval.core.capability import all_capabilities

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
    caps = all_capabilities().values()
    assert not [c.name for c in caps if f"`crseval {c.name}`" not in DOC], (
        "a CLI group missing from the rooms table"
    )
    assert not [c.cli for c in caps if c.cli and f"`{c.cli.replace('.', '/')}.py`" not in DOC], (
        "a group's hand-written commands missing from the rooms table"
    )
