"""The numbers in the README and the guides that a validity record holds, written from the record.

README.md is written from ``README.template.md``, where a figure is a name in double braces,
``{{ simulated-users-auc }}``, that ``docs/figures.toml`` defines once: its record, the row and the text
(``record``, ``row``, ``text`` as below; a ``block`` is one line per row the ``row`` names, a table's body).
The template is what is edited; ``--write`` writes README.md from it, plain Markdown without a comment
but the line that says so, and the tests fail while README.md is not the template's rendering.

In the guides
A figure in a document is a span ``<!--fig CHECK KEY=VALUE[;KEY=VALUE] "TEMPLATE"-->text<!--/fig-->``.
CHECK names a validity record (``crseval/validated/CHECK.json``) or, as ``bench/NAME``, a benchmark's record
(``bench/results/NAME.json``: the rows of all its tables, each with its table's index as ``table`` and the
record's ``date``; a column name's spaces and signs are written ``_``: "now s" is ``now_s``). TEMPLATE is
formatted (``str.format``) with the one row whose key columns hold those values (a value may hold spaces),
e.g. ``{label_auc:.2z} [{label_auc_lo:.2z}, {label_auc_hi:.2z}]``, and the text between the markers must
be exactly that. Numbers are written as the documents write them: ``.2z`` is ``.2f`` without the leading
zero of a statistic in [−1, 1] (".78"), ``.0P`` a share as a percent number (0.412 → "41"), ``.0M``
seconds as minutes and seconds (134 → "2 min 14 s"), a minus "−" and a percent "72 %"; text cells stay as
the program printed them. A ``¦`` is a table's ``|`` (a comment inside a table row cannot hold one). The
comments do not show on GitHub or in the documentation site.

A table is one block, ``<!--rows CHECK KEY=VALUE[;KEY=VALUE] "ROW TEMPLATE"-->`` followed by its lines and
``<!--/rows-->``: one line per row of the record whose key columns hold those values, in the record's order
(a Markdown table's header stays outside the block).

Every other number in a document says what it is: history in a passage
``<!--dated YYYY-MM-DD COMMIT-->…<!--/dated-->`` (measured once, by COMMIT or before it, and not
re-measured since: a design that lost, an earlier release, a one-off LLM run), a source's own figure in
``<!--published SOURCE-->…<!--/published-->``, or a value the method is given, not one it measured (a
version, a threshold, a timeout) in ``<!--given-->…<!--/given-->``. A typed figure — a decimal, a
percentage other than a CI's level, a time — outside a span, code or such a passage is a defect: a
number nothing keeps true.

    python -m tools.doc_figures           # list the spans whose text is not their record's (exit 1)
    python -m tools.doc_figures --write   # rewrite them from the records (after make validate --update)
    python -m tools.doc_figures --typed   # list the typed figures no record or date accounts for (exit 1)

``tests/docs/test_doc_figures.py`` fails when a document's number and its record disagree, or a figure
is typed outside a span and a dated or published passage.
"""

from __future__ import annotations

import argparse
import json
import re
import string
import tomllib
from pathlib import Path

from crseval import validated
from crseval.core.errors import CrsevalError

ROOT = Path(__file__).resolve().parents[1]

SPAN = re.compile(r'<!--(fig|rows) (\S+) ([^"]+?) "([^"]*)"-->(.*?)<!--/\1-->', re.S)
DOCUMENTS = ["README.template.md", "docs/**/*.md"]
TEMPLATE, README, NAMES = "README.template.md", "README.md", "docs/figures.toml"
NAMED = re.compile(r"\{\{ ?([\w-]+) ?\}\}")
WRITTEN = (
    "<!-- written from README.template.md by `python -m tools.doc_figures --write`: edit that -->\n"
)
VERSION = re.compile(r"[A-Z][\w-]* $")  # "Python 3.11", "NLTK 3.10": a name's version, not a figure
PASSAGE = re.compile(r"<!--(dated|published|given)\b([^>]*)-->(.*?)<!--/\1-->", re.S)
DATED = re.compile(r" \d{4}-\d{2}-\d{2} [0-9a-f]{7,40}")  # what a dated passage's marker holds
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
# a measured figure: a decimal (not a version, not a bar "≤ .80"), a percentage or a time
FIGURE = re.compile(
    r"(?<![\w.≤≥<>/~±-])(?<![≤≥<>~±] )[−+-]?"
    r"(?:\d*\.\d+|\d+(?:\.\d+)?(?= ?(?:%|s\b|ms\b|min\b|MB\b)))(?![\w.]\d|\.\d|\w)"
)
UNTYPED = ("docs/reference/_", "docs/changelog.md")  # generated from the records; a log of releases


class _Formatter(string.Formatter):
    def format_field(self, value, spec: str) -> str:
        """A number as the documents write it (a typographic minus, "72 %"); text as the program wrote it."""
        if isinstance(value, str):
            return super().format_field(value, spec)
        text = self._number(value, spec)
        return re.sub(r"-(?=[\d.])", "−", re.sub(r"(\d)%", r"\1 %", text))

    def _number(self, value, spec: str) -> str:
        if spec.endswith("M"):  # seconds as minutes and seconds: 134 → 2 min 14 s
            minutes, seconds = divmod(round(value), 60)
            return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
        if spec.endswith("P"):  # a share as a percent number: 0.412 → 41
            return format(value * 100, spec[:-1] + "f")
        if spec.endswith("z"):  # a statistic in [−1, 1] without its leading zero: 0.776 → .776
            return re.sub(r"^([+-]?)0\.", r"\1.", format(value, spec[:-1] + "f"))
        return super().format_field(value, spec)


def documents() -> list[Path]:
    return sorted(p for pattern in DOCUMENTS for p in ROOT.glob(pattern) if "_build" not in p.parts)


def record_rows(check: str) -> list[dict]:
    """The rows of a validity record, or of a benchmark's (``bench/NAME``) with their table's index."""
    if not check.startswith("bench/"):
        return validated.load(check).rows
    path = ROOT / "bench" / "results" / f"{check.removeprefix('bench/')}.json"
    if not path.is_file():
        raise KeyError(f"{check}: no benchmark record {path.name}")
    record = json.loads(path.read_text(encoding="utf-8"))
    return [
        {re.sub(r"\W", "_", k): v for k, v in row.items()} | {"table": i, "date": record["date"]}
        for i, table in enumerate(record["tables"])
        for row in table["rows"]
    ]


def _rows(check: str, key: str) -> list[dict]:
    wanted = dict(part.split("=", 1) for part in key.split(";") if part)  # "": every row
    return [r for r in record_rows(check) if all(str(r.get(k)) == v for k, v in wanted.items())]


def render(check: str, key: str, template: str) -> str:
    """The text of a span: TEMPLATE formatted with the row of CHECK's record named by KEY."""
    rows = _rows(check, key)
    if len(rows) != 1:
        raise KeyError(f"{check}: {len(rows)} rows where {key}")
    return _Formatter().format(template, **rows[0]).replace("¦", "|")


def render_rows(check: str, key: str, template: str) -> str:
    """The text of a block: one line per row of CHECK's record that KEY names, each TEMPLATE formatted."""
    rows = _rows(check, key)
    if not rows:
        raise KeyError(f"{check}: no rows where {key}")
    return "".join("\n" + _Formatter().format(template, **r) for r in rows) + "\n"


def named(name: str, names: dict) -> str:
    """The text of ``{{ name }}``: its definition in docs/figures.toml (``names``) rendered from its record."""
    spec = names.get(name)
    if spec is None:
        raise KeyError(f"{{{{ {name} }}}}: not defined in {NAMES}")
    if spec.get("block"):
        return render_rows(spec["record"], spec["row"], spec["text"]).strip("\n")
    return render(spec["record"], spec["row"], spec["text"])


def readme() -> str:
    """README.md as the template renders it: every name's text, and dated and published passages as the
    plain text they mark (a reader of the rendered README sees prose; the template keeps the markers)."""
    names = tomllib.loads((ROOT / NAMES).read_text(encoding="utf-8"))
    text = NAMED.sub(lambda m: named(m[1], names), (ROOT / TEMPLATE).read_text(encoding="utf-8"))
    return WRITTEN + re.sub(r"<!--/?(?:dated|published)\b[^>]*-->", "", text)


def mismatches(write: bool = False) -> list[str]:
    """Every span whose text is not its record's, as "file: text ≠ expected", and README.md where it is
    not the template's rendering; with ``write``, fixed."""
    found = []
    try:
        rendered = readme()
        if (ROOT / README).read_text(encoding="utf-8") != rendered:
            found.append(
                f"{README}: not the rendering of {TEMPLATE} (python -m tools.doc_figures --write)"
            )
            if write:
                (ROOT / README).write_text(rendered, encoding="utf-8")
    except (KeyError, CrsevalError) as e:
        found.append(f"{TEMPLATE}: {e}")
    for path in documents():
        source = path.read_text(encoding="utf-8")

        def fix(m: re.Match) -> str:
            kind, check, key, template, text = m.groups()
            try:
                expected = (render if kind == "fig" else render_rows)(check, key, template)
            except (KeyError, CrsevalError) as e:
                found.append(f"{path.relative_to(ROOT)}: {e}")
                return m[0]
            if text != expected:
                found.append(f"{path.relative_to(ROOT)}: {text!r} ≠ {expected!r} ({check} {key})")
            return m[0].replace(f"-->{text}<!--", f"-->{expected}<!--")

        fixed = SPAN.sub(fix, source)
        if write and fixed != source:
            path.write_text(fixed, encoding="utf-8")
    return found


def typed(path: Path) -> list[str]:
    """The figures of one document that no span, code, or dated or published passage accounts for."""
    text = path.read_text(encoding="utf-8")
    undated = [
        f"{path.relative_to(ROOT)}: a dated passage without its date and commit: {m[0][:60]!r}"
        for m in PASSAGE.finditer(text)
        if m[1] == "dated" and not DATED.fullmatch(m[2])
    ]
    for pattern in (SPAN, NAMED, PASSAGE, CODE):  # blanked, keeping the line numbers
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)
    return undated + [
        f"{path.relative_to(ROOT)}:{i}: {m[0]}"
        for i, line in enumerate(text.splitlines(), 1)
        for m in FIGURE.finditer(line)
        if not re.match(r"95 ?%", line[m.start() :].lstrip("−+-"))
        and not (re.fullmatch(r"\d+\.\d+", m[0]) and VERSION.search(line[: m.start()]))
    ]


def untyped_documents() -> list[Path]:
    return [p for p in documents() if not str(p.relative_to(ROOT)).startswith(UNTYPED)]


def spans() -> int:
    """The figures the documents take from records: spans in the guides, names in the README template."""
    return sum(
        len(SPAN.findall(text)) + len(NAMED.findall(text))
        for text in (p.read_text(encoding="utf-8") for p in documents())
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--write", action="store_true", help="rewrite the spans from the records")
    ap.add_argument(
        "--typed", action="store_true", help="list the figures typed outside spans and dates"
    )
    a = ap.parse_args(argv)
    if a.typed:
        found = [line for path in untyped_documents() for line in typed(path)]
        print("\n".join(found + [f"{len(found)} typed figures no record or date accounts for"]))
        return 1 if found else 0
    found = mismatches(a.write)
    left = mismatches() if a.write else found  # what writing could not fix: a span naming no row
    for line in found:
        print(line)
    print(f"{spans()} figures in the documents, {len(found)} differed, {len(left)} differ")
    return 1 if left else 0


if __name__ == "__main__":
    raise SystemExit(main())
