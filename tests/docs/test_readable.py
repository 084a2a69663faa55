"""The two documents a newcomer reads first read as prose where they are edited: README.md is not a
shell of comments around its numbers, and docs/ARCHITECTURE.md has short paragraphs and sentences."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"```.*?```", re.S)


def _prose_lines(text: str) -> list[str]:
    """The lines outside code blocks and tables."""
    return [line for line in FENCE.sub("", text).splitlines() if not line.lstrip().startswith("|")]


def paragraphs(text: str) -> list[str]:
    """Prose paragraphs: blocks between blank lines, a list item or heading starting a new one."""
    out, current = [], []
    for line in _prose_lines(text) + [""]:
        starts = re.match(r"\s*(?:\d+\.|-|#)\s", line)
        if not line.strip() or starts:
            if current:
                out.append(" ".join(current))
            current = [] if line.startswith("#") or not line.strip() else [line.strip()]
        else:
            current.append(line.strip())
    return out


def sentences(text: str) -> list[str]:
    return [
        s for p in paragraphs(text) for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`(*])", p) if s.strip()
    ]


def test_the_readme_is_prose_with_few_comments_and_short_lines():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    comments = sum(len(m) for m in re.findall(r"<!--.*?-->", text, re.S))
    assert comments <= 0.05 * len(text), f"{comments / len(text):.1%} of README.md is comments"
    for template in ("README.md", "README.template.md"):
        long = [
            line[:60] for line in _prose_lines((ROOT / template).read_text()) if len(line) > 200
        ]
        assert not long, f"{template}: lines over 200 characters: {long}"


def test_the_architecture_reads_in_short_paragraphs_and_sentences():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    long = [p[:60] for p in paragraphs(text) if len(p.split()) > 150]
    assert not long, f"paragraphs over 150 words: {long}"
    said = sentences(text)
    mean = sum(len(s.split()) for s in said) / len(said)
    assert mean <= 25, f"{mean:.1f} words a sentence on average"


def test_the_measures_count_what_they_say():
    text = "# T\n\nOne two. Three four five.\n\n- an item. Two.\n\n| a | b |\n\n```\ncode. Here.\n```\n"
    assert paragraphs(text) == ["One two. Three four five.", "- an item. Two."]
    assert [len(s.split()) for s in sentences(text)] == [2, 3, 3, 1]
