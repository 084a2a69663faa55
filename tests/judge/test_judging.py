"""Judge records resume and keep failures."""

import numpy as np
import pytest

from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.io import DatasetInfo
from crseval.data.judged_types import JudgedItem, JudgedSet
from crseval.judge.judging import Judge, judge_items
from crseval.llm import ChatResponse, LLMClient
from crseval.llm.scripted import ScriptedBackend
from crseval.runs import RunStore


def _dialogue(i, quality):
    reply = "Great pick: " + "a thoughtful recommendation " * quality
    return Dialogue.from_utterances(
        f"d{i}", [Utterance(Role.USER, f"I want movie {i}"), Utterance(Role.SYSTEM, reply)]
    )


@pytest.fixture
def judged():
    rng = np.random.default_rng(0)
    quality = rng.integers(0, 5, 40)
    items = [
        JudgedItem(f"d{i}", _dialogue(i, int(q)), {"overall": float(1 + q)})
        for i, q in enumerate(quality)
    ]
    return JudgedSet(DatasetInfo("toy", "-", "0"), "dialogue", items)


def test_judge_records_resume_and_keep_failures(tmp_path, judged):
    calls = []

    def flaky(req):
        calls.append(req)
        return (
            ChatResponse("", choice_probs=None)
            if any('movie 3"' in m.content for m in req.messages)
            else ChatResponse("3", choice_probs={"3": 1.0})
        )

    store = RunStore(tmp_path / "r")
    client = LLMClient(ScriptedBackend(flaky, choice_probs=True), None)
    items = [(it.id, it.dialogue, None) for it in judged.items[:5]]
    recs = judge_items(items, ["overall"], [Judge("j", client)], store.stream("judgments"))
    assert len(recs) == 5
    failed = [r for r in recs if r["score"] is None]
    assert len(failed) == 1
    assert failed[0]["item"] == "d3"
    assert failed[0]["error"]
    n = len(calls)
    judge_items(items, ["overall"], [Judge("j", client)], store.stream("judgments"))
    assert len(calls) == n  # resumed: nothing asked again
