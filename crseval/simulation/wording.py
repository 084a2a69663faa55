"""How a simulated user's sentence is put together: articles that agree with the next word, two phrases
joined into one turn, a first word read, a first letter lowered."""

from __future__ import annotations

import re


def articles(text: str) -> str:
    """'a' or 'an' as the next word sounds (a filled slot may have changed the word)."""
    return re.sub(
        r"\b([Aa])n? (?=(\w))",
        lambda m: m.group(1) + ("n " if m.group(2).lower() in "aeiou" else " "),
        text,
    )


def join(first: str, then: str, comma: str = ". ") -> str:
    """Two phrases as one turn: "ok cool. What about drama", "hi, I want…", "how are you? I want…"."""
    if first.endswith(("?", "!")):
        return first + " " + then
    return first.rstrip(".") + comma + (lower_first(then) if comma == ", " else then)


def first_word(text: str) -> str:
    return re.sub(r"[^a-z']", "", (text.split() or [""])[0].lower())


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) < 2 else text
