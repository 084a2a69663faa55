"""crseval — evaluate conversational and LLM-based recommender systems beyond accuracy.

The public API is a few verbs plus the core types::

    import crseval
    ds = crseval.load_dataset("inspired", "../shared/data/inspired")
    result = crseval.evaluate("reliability", ratings="annotations.csv", preset="crs-que")
    run = crseval.load_run(result.run_dir)
    crseval.compare(["runs/a", "runs/b"])
    crseval.write_report("runs/demo")
"""

import os

# Arrow's default allocator (jemalloc/mimalloc) keeps freed pages: with the system allocator the 6,000-session
# `shift score` peaks at ~490 MB instead of ~580 MB. A value the user set is kept.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

from crseval.api import compare, evaluate, load_run, rerun  # noqa: E402
from crseval.core.errors import CrsevalError  # noqa: E402
from crseval.core.types import Dialogue, Item, Ratings, Role, Turn, Utterance  # noqa: E402
from crseval.core.version import __version__  # noqa: E402
from crseval.data import load_dataset  # noqa: E402
from crseval.report.html import write_report  # noqa: E402

__all__ = [
    "CrsevalError",
    "Dialogue",
    "Item",
    "Ratings",
    "Role",
    "Turn",
    "Utterance",
    "__version__",
    "compare",
    "evaluate",
    "load_dataset",
    "load_run",
    "rerun",
    "write_report",
]
