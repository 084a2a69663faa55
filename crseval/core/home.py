"""crseval's home folder for caches that outlive a run: joined models, embeddings, trained models,
topic models, worker logs. ``$CRSEVAL_HOME``, default ``~/.cache/crseval``."""

from __future__ import annotations

import os
from pathlib import Path


def crseval_home() -> Path:
    return Path(os.environ.get("CRSEVAL_HOME") or Path.home() / ".cache" / "crseval")


def home_dir(*parts: str) -> Path:
    """A folder under the home folder, created when missing."""
    p = crseval_home().joinpath(*parts)
    p.mkdir(parents=True, exist_ok=True)
    return p
