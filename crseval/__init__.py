"""crseval — evaluate conversational and LLM-based recommender systems beyond accuracy.

The public API is a few verbs plus the core types::

    import crseval
    ds = crseval.load_dataset("inspired", "../shared/data/inspired")
    crseval.report("runs/demo")
"""
__version__ = "0.1.0"

from crseval.core.errors import CrsevalError  # noqa: E402
from crseval.core.types import Dialogue, Item, Ratings, Role, Turn, Utterance  # noqa: E402
from crseval.data import load_dataset  # noqa: E402
from crseval.report.html import write_report as report  # noqa: E402

__all__ = ["CrsevalError", "Dialogue", "Item", "Ratings", "Role", "Turn", "Utterance", "load_dataset", "report",
           "__version__"]
