"""Verifiable preference following: every title a CRS names, checked against what the simulated user
wants at that turn — facts from the catalogue, not a model's opinion.

Per system turn, the titles it names are grounded in the catalogue (:class:`~crseval.text.titles.
TitleMatcher`); a title no catalogue item matches is *hallucinated* (reported apart, never counted as
following). The user's **active constraints** at turn t are the simulator's logged ``truth.topics``
(``genre:g`` — all genres of a blend — ``year:1990s``, ``actor:…``, ``director:…``, ``writer:…``,
``language:…``, ``plot:keyword``), each a predicate over a catalogue entry. At a logged shift the
**new** constraints are those active now and not before, the **dropped** ones those active before and
not now (an old value replaced or explicitly taken back; a genre change drops the old genres and their
attributes).

Per session (``follow.*``):

- ``satisfaction`` — share of grounded recommendations that satisfy every active constraint;
- ``follow_rate`` — share of shifts whose *next recommendation* (the first later reply naming a grounded
  title, before the next shift) names a title satisfying every new constraint;
- ``wish_rate`` — the same over every *wish*: the opening one (the constraints active at the first turn
  that has any: after a greeting or a vague request, a later one) and every shift — real users mostly state one wish and never shift;
- ``turns_to_follow`` — mean system turns until a reply names such a title (1 = the reply to the shift),
  over the shifts followed before the next shift;
- ``stale_rate`` — among grounded recommendations after shifts that dropped something (up to the next
  shift), the share that still satisfy a dropped constraint but not the new ones;
- ``hallucination_rate`` — share of named titles that are in no catalogue;
- ``success`` — 1 when every shift of the session was followed before the next one.

Imported logs have no simulator truth. There the user's wishes are **read from the user's own words**
(:meth:`Following.read_wishes`: the rule-based reading crseval's CRS uses — genre cues, decades and
years, people and languages from the catalogue's indexes, plot keywords; later wishes replace earlier
ones, negated ones are dropped; titles are no wish, and a negation ends where a new request starts:
:meth:`Following.plain`), the first wish said is the opening one, a shift is a later turn whose reading
adds a constraint, and every measure
above is computed against that reading (``source`` in the signature: ``words``); how far the reading
agrees with logged truth is measured on simulated sessions (``bench/following_from_words.py``). With
``scoring.reader = "llm"`` an LLM reads the wishes instead (:mod:`crseval.adaptation.wish_reader`).
``crs_constraint_satisfaction`` (recommendations that satisfy the constraints the *CRS* logged it parsed
— a consistency check, not following) is reported beside them.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from crseval.adaptation.extra_wishes import extra_wishes
from crseval.core.forked import fork_map, split, worker_count
from crseval.data.kb import ATTRIBUTES, MovieKB
from crseval.text.titles import TitleMatcher
from crseval.core.types import truth_of

PREFIX = "follow."
# where a new request starts inside a turn (the rules' negation then ends before it)
NEW_REQUEST = re.compile(
    r"(?<=\w )(?:what about|how about|recommend|suggest|give me|can you|could you|i want|i'd like|"
    r"i'm (?:more )?in the mood|looking for|show me|do you (?:have|know)|i (?:like|love|prefer))\b",
    re.IGNORECASE,
)


class Following:
    """Grounds recommendations in ``kb`` and checks them against constraints."""

    def __init__(self, kb: MovieKB, reader: Any = None) -> None:
        self.kb = kb
        self.reader = reader  # an LLMWishReader, or None: the rule-based reading
        self.matcher = TitleMatcher(kb.movies)
        self.row = {m.id: i for i, m in enumerate(kb.movies)}
        self._memo: dict[str, tuple[list[int], int]] = {}

    def recommendations(self, text: str) -> tuple[list[int], int]:
        """(catalogue rows of the grounded titles, number of titles in no catalogue); memoised per text."""
        if text not in self._memo:
            found = self.matcher.find(text)
            self._memo[text] = (
                [self.row[m.item] for m in found if m.item is not None],
                sum(m.item is None for m in found),
            )
        return self._memo[text]

    def holds(self, row: int, constraint: str) -> bool:
        return self.kb.holds(row, constraint)

    def fits(self, row: int, constraints) -> bool:
        return all(self.holds(row, c) for c in constraints)

    def sessions(self, records: Sequence[dict[str, Any]]) -> list[dict[str, float]]:
        """:meth:`session` for each record, whole sessions split over forked worker processes by turns."""
        if self.reader is not None:  # the LLM client does its own concurrency (no forked workers)
            return [self.session(r["turns"]) for r in records]
        chunks = split(records, worker_count(), weight=lambda r: len(r["turns"]) + 1)
        return [
            m
            for part in fork_map(lambda chunk: [self.session(r["turns"]) for r in chunk], chunks)
            for m in part
        ]

    def session(self, turns: Sequence[dict[str, Any]]) -> dict[str, float]:
        """The ``follow.*`` measures of one session (simulator truth when the turns carry it)."""
        recs, invented = (
            zip(*(self.recommendations(t["system"]) for t in turns)) if turns else ((), ())
        )
        named = sum(len(r) for r in recs) + sum(invented)
        out = {
            PREFIX + "recommendations": float(sum(len(r) for r in recs)),
            PREFIX + "hallucination_rate": sum(invented) / named if named else np.nan,
        }
        if turns and truth_of(turns[0]) is not None:
            truth = [truth_of(t) for t in turns]
            # a film the user named as one it liked is no recommendation the CRS earns credit for
            named = [set(t.get("named", ())) for t in truth]
            recs = [[r for r in rs if self.kb.movies[r].id not in n] for rs, n in zip(recs, named)]
            out.update(self._against_truth(truth, recs))
        elif turns:
            out.update(self._against_truth(self.read_wishes(turns), recs))
            rows = [(r, t.get("constraints") or {}) for t, rs in zip(turns, recs) for r in rs]
            out[PREFIX + "crs_constraint_satisfaction"] = (
                float(np.mean([self.fits(r, crs_constraints(c)) for r, c in rows]))
                if rows
                else np.nan
            )
        return out

    def read_wishes(self, turns: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """What the user's own words say they want at each turn, in the simulator truth's shape
        (``topics``; ``shift`` where the reading gains a constraint): read by the rules — with a film named
        as a reference and a wish for something new (:mod:`crseval.adaptation.wish_gaps`) — or by the LLM
        reader where one is given."""

        said = [t.get("user") or "" for t in turns]
        if self.reader is not None:
            steps = [set(wish_topics(v)) for v in self.reader.steps(said)]
        else:
            steps = self.read_by_rules(said)
        out, before, wished = [], set(), False
        for now in steps:  # the first wish said is the opening one, whenever it is said
            new = {t for t in now - before if not t.startswith("like:")}  # beside a film: same wish
            out.append({"topics": sorted(now), "shift": bool(wished and new)})
            before, wished = now, wished or bool(now)
        return out

    def plain(self, text: str) -> str:
        """``text`` as the rules read a wish in it: the titles it names blanked (a film's name is no wish:
        "The Egyptian", "Chocolate War") and each new request its own clause, so a negation ends where the
        request after it starts ("forget thriller what about comedies"); a name's possessive is the name."""
        for m in sorted(self.matcher.find(text), key=lambda m: -m.start):
            at = text.find(m.surface, m.start) if m.surface else -1
            if at >= 0:
                text = text[:at] + "that film" + text[at + len(m.surface) :]
        text = re.sub(r"\b([A-Z][a-z]+)'s\b", r"\1", text)  # "Tim Burton's movies": the name itself
        return NEW_REQUEST.sub(lambda m: ". " + m[0], text)

    def read_by_rules(self, said: Sequence[str]) -> list[set[str]]:
        """The rules' topics after each turn (of :meth:`plain` text), plus the reference film (kept until
        another is named) and the wish for something new (kept until a year is read). A new genre leaves
        behind what was said for the old one — people, years, the reference film — unless said again."""
        from crseval.simulation.nlu import extract_steps

        plain = [self.plain(t) for t in said]
        steps = [c.values for c in extract_steps(self.kb, plain)]
        out, like, recent, genres = [], [], None, set()
        for text, clean, v in zip(said, plain, steps):
            extra = extra_wishes(self, text)
            topics = set(wish_topics(v))
            now = {t for t in topics if t.startswith("genre:")}
            if genres and now and now != genres:
                topics = now | set(wish_topics(extract_steps(self.kb, [clean])[0].values))
                like, recent = [], None
            genres = now
            like = [w for w in extra if w.startswith("like:")] or like
            recent = next((w for w in extra if w.startswith("year:")), recent)
            recent = None if v.get("year") else recent
            out.append(topics | set(like) | ({recent} if recent else set()))
        return out

    def _against_truth(
        self, truth: Sequence[dict[str, Any]], recs: Sequence[list[int]]
    ) -> dict[str, float]:
        active = [set(t.get("topics") or []) for t in truth]
        grounded = [(r, active[k]) for k, rs in enumerate(recs) for r in rs]
        # the opening wish (the first said: after a greeting or a vague request, a later turn), then every
        # shift from it
        opening = next((k for k, a in enumerate(active) if a), len(active))
        shifts = [
            k
            for k in range(opening + 1, len(truth))
            if truth[k].get("shift") and active[k] - active[k - 1]
        ]
        delays, stale, after = [], 0, 0
        wishes = ([opening] if opening < len(active) else []) + shifts
        heard = [
            self._followed(recs, active[k] - (active[k - 1] if k else set()), k, wishes[n + 1 :])
            for n, k in enumerate(wishes)
        ]
        followed = heard[len(heard) - len(shifts) :]
        for n, k in enumerate(shifts):
            new, dropped = active[k] - active[k - 1], active[k - 1] - active[k]
            window = range(k, shifts[n + 1] if n + 1 < len(shifts) else len(truth))
            delay = next(
                (j - k + 1 for j in window if any(self.fits(r, new) for r in recs[j])), None
            )
            if delay is not None:
                delays.append(delay)
            if dropped:
                for j in window:
                    after += len(recs[j])
                    stale += sum(
                        any(self.holds(r, c) for c in dropped) and not self.fits(r, new)
                        for r in recs[j]
                    )
        return {
            PREFIX + "satisfaction": float(np.mean([self.fits(r, c) for r, c in grounded]))
            if grounded
            else np.nan,
            PREFIX + "follow_rate": float(np.mean(followed)) if followed else np.nan,
            PREFIX + "wish_rate": float(np.mean(heard)) if heard else np.nan,
            PREFIX + "turns_to_follow": float(np.mean(delays)) if delays else np.nan,
            PREFIX + "stale_rate": stale / after if after else np.nan,
            PREFIX + "success": float(len(delays) == len(shifts)) if shifts else np.nan,
        }

    def _followed(self, recs, new: set, k: int, later: Sequence[int]) -> bool:
        """Whether the first reply from turn ``k`` on (before the next wish) that names a grounded title
        names one satisfying ``new``."""
        end = later[0] if later else len(recs)
        first = next((j for j in range(k, end) if recs[j]), None)
        return first is not None and any(self.fits(r, new) for r in recs[first])


def crs_constraints(parsed: dict[str, Any]) -> list[str]:
    """The constraints a CRS logged (crseval's ``genres``/``year``/attributes, or the thesis layout's
    ``genre``/``year``/attributes), as the predicates above."""
    out = []
    genres = parsed.get("genres", parsed.get("genre"))
    for g in [genres] if isinstance(genres, str) else genres or []:
        out.append(f"genre:{str(g).lower()}")
    for kind in ATTRIBUTES:
        value = parsed.get(kind)
        if isinstance(value, str) and value:
            out.append(f"{kind}:{value}")
    return out


def wish_topics(values: dict[str, Any]) -> list[str]:
    """Constraints read from words (:class:`crseval.simulation.nlu.Constraints` values) as the simulator
    truth's topics: ``genre:g``, ``year:1990s`` (a decade) or ``year:LO-HI`` (either end may be open),
    ``actor:Name`` …, ``plot:keyword``."""
    out = [f"genre:{g}" for g in values.get("genres", [])]
    if values.get("year"):
        lo, hi = values["year"]
        decade = lo is not None and hi == lo + 9 and lo % 10 == 0
        out.append(f"year:{lo}s" if decade else f"year:{lo or ''}-{hi or ''}")
    out += [f"{k}:{values[k]}" for k in ATTRIBUTES if values.get(k)]
    return out + [f"plot:{w}" for w in values.get("keywords", [])]
