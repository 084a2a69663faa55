"""Core types, the metric registry, reproducibility signatures and errors."""

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Item, Ratings, Role, Turn, Utterance

__all__ = ["CrsevalError", "Dialogue", "Item", "Ratings", "Role", "Turn", "Utterance"]
