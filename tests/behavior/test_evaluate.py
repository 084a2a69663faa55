"""What behavior evaluation computes runs with its metrics' declared parameters."""

import dataclasses

import pandas as pd
import pytest

from crseval.behavior.evaluate import contexts, evaluate_responses
from crseval.behavior.generation import bleu, dist
from crseval.core import registry
from crseval.data import load_dataset


class _Pair:
    """A stand-in pair classifier: every response the same strategy, P(same) one half."""

    def predict_strategy(self, texts):
        return ["credibility"] * len(texts)

    def proba(self, a, b):
        return [0.5] * len(a)


@pytest.fixture
def answered():
    dialogues = load_dataset("sample").dialogues.dialogues
    ctxs = contexts(dialogues)
    responses = pd.DataFrame(
        {
            "dialogue": [c.dialogue for c in ctxs],
            "turn": [c.turn for c in ctxs],
            "response": [f"you might like this film, {c.human.lower()}" for c in ctxs],
        }
    )
    return dialogues, responses


def test_bleu_and_dist_run_with_their_declared_k_and_n(answered, monkeypatch):
    dialogues, responses = answered
    metrics, table = evaluate_responses(dialogues, responses, _Pair())
    assert metrics["bleu4"] == pytest.approx(bleu(table["system"], table["human"], 4))
    assert metrics["dist2"] == pytest.approx(dist(table["system"], 2))
    for name, params in (("bleu4", {"k": 1}), ("dist2", {"k": 3})):
        declared = registry.get_metric(name, "behavior")
        monkeypatch.setitem(
            registry.METRICS, declared.qualified, dataclasses.replace(declared, params=params)
        )
    changed, _ = evaluate_responses(dialogues, responses, _Pair())
    assert changed["bleu4"] == pytest.approx(bleu(table["system"], table["human"], 1))
    assert changed["bleu4"] != pytest.approx(metrics["bleu4"])
    assert changed["dist2"] == pytest.approx(dist(table["system"], 3))
    assert registry.param_signatures(["bleu4", "dist2"], "behavior") == {
        "bleu4": "bleu4(k=1)",
        "dist2": "dist2(k=3)",
    }
