"""The INSPIRED recommendation-strategy taxonomy: 13 sociable strategies + ``no_strategy``.

Definitions and examples are our own wording (Hayati et al. 2020 introduced the taxonomy).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Strategy:
    name: str
    definition: str
    examples: tuple[str, ...]


_DEFS = [
    Strategy(
        "acknowledgment",
        "The recommender shows it heard and appreciates what the seeker said, with a short "
        "positive reaction that does not add new content.",
        ("Oh, nice choice!", "That makes sense, thanks for telling me."),
    ),
    Strategy(
        "credibility",
        "The recommender gives factual information about a movie — plot, cast, director, awards, "
        "reviews — to show it knows what it recommends.",
        (
            "It won the Oscar for best picture and stars Tom Hanks.",
            "The film follows a detective in 1940s LA.",
        ),
    ),
    Strategy(
        "encouragement",
        "The recommender praises the seeker's taste or urges them to watch a movie, to raise "
        "their interest.",
        ("You should definitely give it a try!", "You have great taste in movies."),
    ),
    Strategy(
        "experience_inquiry",
        "The recommender asks about the seeker's past experience with movies: what they "
        "watched, whether they have seen a title.",
        ("Have you seen Inception?", "What was the last movie you watched?"),
    ),
    Strategy(
        "offer_help",
        "The recommender states that it is there to help find a movie, without asking about "
        "preferences yet.",
        ("I'm here to help you find a movie tonight.", "How can I help you today?"),
    ),
    Strategy(
        "opinion_inquiry",
        "The recommender asks for the seeker's opinions or preferences: genres, actors, what "
        "they liked about a movie.",
        ("What kind of movies do you like?", "What did you think of the ending?"),
    ),
    Strategy(
        "personal_experience",
        "The recommender shares its own experience of watching a movie.",
        (
            "I watched it with my family last week and we all laughed.",
            "I saw it twice in the cinema.",
        ),
    ),
    Strategy(
        "personal_opinion",
        "The recommender shares its own opinion or feelings about a movie, genre or actor.",
        ("I think it's one of the best thrillers ever made.", "I really love Emma Stone."),
    ),
    Strategy(
        "preference_confirmation",
        "The recommender checks or restates its understanding of the seeker's "
        "preferences and asks for confirmation.",
        ("So you want something scary but not gory, right?", "You mentioned you like comedies?"),
    ),
    Strategy(
        "rephrase_preference",
        "The recommender repeats the seeker's stated preference in its own words, without asking.",
        ("So a light romantic comedy for tonight.", "A movie with a strong female lead."),
    ),
    Strategy(
        "self_modeling",
        "The recommender behaves as a role model, for example stating what it would do itself, "
        "to make the seeker follow.",
        (
            "I'm going to watch it again this weekend.",
            "I'd pick that one if I were choosing tonight.",
        ),
    ),
    Strategy(
        "similarity",
        "The recommender expresses that it shares the seeker's tastes, opinions or experiences.",
        ("I love horror movies too!", "Same here, I also grew up with Disney films."),
    ),
    Strategy(
        "transparency",
        "The recommender discloses its own thinking or recommendation process, or its limitations.",
        ("Let me look up a few titles first.", "I'm not sure it's on Netflix, to be honest."),
    ),
    Strategy(
        "no_strategy",
        "Greetings, farewells, small talk or plain recommendations without any of the sociable "
        "strategies above.",
        ("Hi!", "Bye, enjoy the movie."),
    ),
]
DEFINITIONS: dict[str, Strategy] = {s.name: s for s in _DEFS}
NO_STRATEGY = "no_strategy"
STRATEGIES: tuple[str, ...] = tuple(s.name for s in _DEFS if s.name != NO_STRATEGY)
LABELS: tuple[str, ...] = STRATEGIES + (NO_STRATEGY,)


def describe(labels: tuple[str, ...] = LABELS, examples: bool = True) -> str:
    """The definitions as a prompt-ready list."""
    lines = []
    for name in labels:
        s = DEFINITIONS[name]
        ex = f" Examples: {' / '.join(repr(e) for e in s.examples)}" if examples else ""
        lines.append(f"- {name}: {s.definition}{ex}")
    return "\n".join(lines)
