"""crseval — evaluate conversational and LLM-based recommender systems beyond accuracy.

The public API is a few verbs plus the core types::

    import crseval
    ds = crseval.load_dataset("inspired", "../shared/data/inspired")
    result = crseval.evaluate("reliability", ratings="annotations.csv", preset="crs-que")
    run = crseval.load_run(result.run_dir)
    crseval.compare(["runs/a", "runs/b"])
    crseval.write_report("runs/demo")
"""
from crseval.api import compare, evaluate, load_run
from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Item, Ratings, Role, Turn, Utterance
from crseval.core.version import __version__
from crseval.data import load_dataset
from crseval.report.html import write_report

__all__ = ["CrsevalError", "Dialogue", "Item", "Ratings", "Role", "Turn", "Utterance", "__version__", "compare",
           "evaluate", "load_dataset", "load_run", "write_report"]
