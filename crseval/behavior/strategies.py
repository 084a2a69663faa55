"""The INSPIRED recommendation-strategy taxonomy (13 sociable strategies + ``no_strategy``)."""
from __future__ import annotations

STRATEGIES: tuple[str, ...] = (
    "acknowledgment", "credibility", "encouragement", "experience_inquiry", "offer_help",
    "opinion_inquiry", "personal_experience", "personal_opinion", "preference_confirmation",
    "rephrase_preference", "self_modeling", "similarity", "transparency",
)
NO_STRATEGY = "no_strategy"
LABELS: tuple[str, ...] = STRATEGIES + (NO_STRATEGY,)
