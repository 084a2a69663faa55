"""crseval's own sample data, bundled in the package so the demo needs no external files."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Item, Ratings, Role, Utterance
import pandas as pd

from crseval.data.io import dataset_info, read_json, read_rows, to_float
from crseval.data.base import DialogueDataset, ItemCatalog, SerendipityStudy
from crseval.data.ratings import load_ratings

from crseval.data.strategies import LABELS


@dataclass
class SampleData:
    movies: ItemCatalog
    dialogues: DialogueDataset
    ratings: Ratings
    serendipity: SerendipityStudy

    def summary(self) -> dict[str, Any]:
        return {
            "movies": self.movies.summary(),
            "dialogues": self.dialogues.summary(),
            "ratings": self.ratings.summary(),
            "serendipity": self.serendipity.summary(),
        }

    def preview(self, n: int = 1) -> str:
        return self.dialogues.preview(n)


def sample_dir() -> Path:
    return Path(str(resources.files("crseval.data") / "sample"))


def load_dialogues_json(path: Path, name: str) -> DialogueDataset:
    """Dialogues as JSON: ``[{id, outcome?, utterances: [{role, text, strategy?, items?}]}]``."""
    raw = read_json(path)
    if not isinstance(raw, list):
        raise CrsevalError("top level is not a list", file=path, expected="a list of dialogues")
    dialogues = []
    for i, d in enumerate(raw):
        if not isinstance(d, dict) or "id" not in d or not isinstance(d.get("utterances"), list):
            raise CrsevalError(
                f"dialogue #{i} lacks id or utterances", file=path, field="utterances"
            )
        utts = []
        for j, u in enumerate(d["utterances"]):
            try:
                role = Role.parse(u["role"])
                text = u["text"]
            except (KeyError, TypeError):
                raise CrsevalError(
                    f"dialogue {d['id']} utterance #{j} needs role and text",
                    file=path,
                    field="role",
                ) from None
            except CrsevalError as e:
                raise CrsevalError(
                    e.message,
                    file=path,
                    field=f"{d['id']}.utterances[{j}].role",
                    expected=e.expected,
                ) from None
            strategy = u.get("strategy")
            if strategy is not None and strategy not in LABELS:
                raise CrsevalError(
                    f"label {strategy!r} is outside the taxonomy",
                    file=path,
                    field=f"{d['id']}.utterances[{j}].strategy",
                    expected="one of " + ", ".join(LABELS),
                )
            utts.append(Utterance(role, str(text), strategy, list(u.get("items", []))))
        outcome = d.get("outcome")
        dialogues.append(
            Dialogue.from_utterances(
                str(d["id"]),
                utts,
                {"outcome": outcome, "accepted": outcome.startswith("accept") if outcome else None},
            )
        )
    return DialogueDataset(dataset_info(name, path), dialogues)


def load_movies_json(path: Path, name: str) -> ItemCatalog:
    raw = read_json(path)
    items = [
        Item(m["id"], m["title"], {k: v for k, v in m.items() if k not in ("id", "title")})
        for m in raw
    ]
    return ItemCatalog(dataset_info(name, path), items)


def load(path: str | Path | None = None) -> SampleData:
    root = Path(path) if path else sample_dir()
    movies = load_movies_json(root / "movies.json", "sample-movies")
    return SampleData(
        movies,
        load_dialogues_json(root / "dialogues.json", "sample-dialogues"),
        load_ratings(
            root / "ratings.csv", item_col="item", rater_col="rater", name="sample-ratings"
        ),
        load_serendipity_csv(root / "serendipity.csv", movies),
    )


def load_serendipity_csv(path: Path, movies: ItemCatalog) -> SerendipityStudy:
    """Our simulated user study: user,item,rating,predicted_rating,timestamp,s4,s5,s6 (ground truth =
    mean of s4–s6, as for Serendipity-2018)."""
    cols = ("user", "item", "rating", "predicted_rating", "timestamp", "s4", "s5", "s6")
    _, rows = read_rows(path, required=cols)
    recs = [
        {
            c: (r[c] if c in ("user", "item") else to_float(r[c], file=path, line=line, field=c))
            for c in cols
        }
        for line, r in rows
    ]
    answers = pd.DataFrame(recs)
    answers["ground_truth"] = answers[["s4", "s5", "s6"]].mean(axis=1)
    return SerendipityStudy(
        dataset_info("sample-serendipity", path), answers, dict(movies.by_id), "mean(s4,s5,s6)"
    )


def judged(level: str):
    """The bundled dialogues labelled with each dimension's mean over the bundled raters (1–5)."""
    from crseval.data.judged_types import JudgedItem, JudgedSet

    if level != "dialogue":
        raise CrsevalError(
            "the bundled ratings are per dialogue", field="level", fix="use --level dialogue"
        )
    sample = load()
    means = sample.ratings.data.pivot_table(index="item", columns="dimension", values="value")
    out = JudgedSet(sample.ratings.info, level)
    for d in sample.dialogues:
        if d.id in means.index:
            out.items.append(JudgedItem(d.id, d, means.loc[d.id].dropna().to_dict()))
    out.scales = {a: sample.ratings.scale_of(a) for a in out.aspects}
    return out
