"""Dataset containers returned by :func:`crseval.load_dataset`; each carries a :class:`DatasetInfo`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator

import pandas as pd

from crseval.core.types import Dialogue, Item
from crseval.data.io import DatasetInfo


@dataclass
class DialogueDataset:
    info: DatasetInfo
    dialogues: list[Dialogue]

    def __len__(self) -> int:
        return len(self.dialogues)

    def __iter__(self) -> Iterator[Dialogue]:
        return iter(self.dialogues)

    def summary(self) -> dict[str, Any]:
        utts = [u for d in self.dialogues for u in d.utterances]
        labelled = [u.strategy for u in utts if u.strategy]
        out: dict[str, Any] = {
            "dataset": self.info.signature(),
            "dialogues": len(self.dialogues),
            "turns": sum(len(d.turns) for d in self.dialogues),
            "utterances": len(utts),
            "item mentions": sum(len(u.items) for u in utts),
        }
        if labelled:
            out["labelled utterances"] = len(labelled)
            out["strategies"] = dict(Counter(labelled).most_common())
        return out

    def preview(self, n: int = 1) -> str:
        lines = []
        for d in self.dialogues[:n]:
            lines.append(f"[{d.id}]")
            for u in list(d.utterances)[:8]:
                tag = f" <{u.strategy}>" if u.strategy else ""
                lines.append(f"  {u.role.value:>11}{tag}: {u.text[:100]}")
        return "\n".join(lines)


@dataclass
class ItemCatalog:
    info: DatasetInfo
    items: list[Item]
    by_id: dict[str, Item] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.by_id = {it.id: it for it in self.items}

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)

    def summary(self) -> dict[str, Any]:
        genres = Counter(g for it in self.items for g in it.get("genres", []))
        return {
            "dataset": self.info.signature(),
            "items": len(self.items),
            "with year": sum(it.get("year") is not None for it in self.items),
            "with plot": sum(bool(it.get("plot")) for it in self.items),
            "genres": dict(genres.most_common(12)),
        }

    def preview(self, n: int = 3) -> str:
        return "\n".join(
            f"  {it.id}: {it.title} {dict((k, v) for k, v in it.attributes.items() if k != 'plot')}"
            for it in self.items[:n]
        )


@dataclass
class SerendipityStudy:
    """User-study answers: one row per (user, recommended item) with a ``ground_truth`` column
    on the 1–5 scale, plus item metadata and the columns the study offers (ratings, curiosity …)."""

    info: DatasetInfo
    answers: pd.DataFrame
    items: dict[str, Item]
    ground_truth: str
    unavailable: dict[str, str] = field(default_factory=dict)
    # the user's reactions to the recommended item (survey answers, its rating, clicks): what evaluators
    # predict, so no evaluator input may be built from them
    outcomes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.answers)

    def summary(self) -> dict[str, Any]:
        return {
            "dataset": self.info.signature(),
            "answers": len(self.answers),
            "users": self.answers["user"].nunique(),
            "items": self.answers["item"].nunique(),
            "items with metadata": sum(i in self.items for i in self.answers["item"].unique()),
            "ground truth": self.ground_truth,
            "ground truth mean": round(float(self.answers["ground_truth"].mean()), 3),
            **({"cannot compute": self.unavailable} if self.unavailable else {}),
        }

    def preview(self, n: int = 3) -> str:
        return self.answers.head(n).to_string()
