"""Asking a judge's questions: a run where not one item got its readings ends in one line naming why."""

import pytest

from crseval.core.errors import BackendError, CrsevalError
from crseval.data import load_dataset
from crseval.judge.decomposed import HIDDEN, ask, require_readings
from crseval.judge.judging import Judge
from crseval.llm.base import ChatResponse
from crseval.llm.client import LLMClient
from crseval.llm.scripted import ScriptedBackend
from crseval.runs.store import RunStore


def _ask(tmp_path, responder):
    dialogues = list(load_dataset("sample").dialogues)[:3]
    items = [(d.id, d, None) for d in dialogues]
    judge = Judge("llm", LLMClient(ScriptedBackend(responder), scheduler=None))
    judge.client.config.max_retries = 0
    records, probs = ask(
        items,
        ["dialogue-overall"],
        judge,
        RunStore(tmp_path / "run").stream("judgments"),
        hidden=True,
    )
    return [i for i, _, _ in items], records, probs


def test_every_rating_failing_is_one_line_naming_the_failure(tmp_path):
    """The compiled engine's run of #76 ended after 21 minutes in a reshape error: every rating had failed
    and nothing said why. Now the cause is named, with how many ratings it took."""
    ids, records, probs = _ask(
        tmp_path, lambda req: BackendError("llama.cpp failed: no such thing")
    )
    with pytest.raises(CrsevalError, match=r"llama.cpp failed: no such thing \(3 of 3 ratings\)"):
        require_readings(ids, ["dialogue-overall"], probs, records)


def test_answers_without_the_states_asked_for_are_named(tmp_path):
    digits = {d: 0.2 for d in "12345"}
    ids, records, probs = _ask(tmp_path, lambda req: ChatResponse("3", choice_probs=digits))
    assert not any(HIDDEN in p for p in probs.values())
    with pytest.raises(CrsevalError, match="no hidden states|no probabilities"):
        require_readings(ids, ["dialogue-overall"], probs, records)


def test_one_item_with_its_readings_is_enough(tmp_path):
    ids, records, probs = _ask(tmp_path, None)
    assert all(HIDDEN in probs[i] for i in ids)
    require_readings(ids, ["dialogue-overall"], probs, records)  # no error
    require_readings(ids[:1], ["dialogue-overall"], {ids[0]: probs[ids[0]]}, records[:1])
