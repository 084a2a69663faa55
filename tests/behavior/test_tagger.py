import json

import pandas as pd

from crseval.behavior.tagger import SCHEMA, few_shot_examples, tag, tag_request
from crseval.data.strategies import LABELS
from crseval.llm import LLMClient
from crseval.llm.scripted import ScriptedBackend


def test_prompt_has_definitions_zero_shot_and_examples_few_shot():
    zero = tag_request("Have you seen Heat?").messages[-1].content
    assert all(f"- {lab}:" in zero for lab in LABELS)
    assert 'Message: "Have you seen Heat?"' in zero
    few = (
        tag_request("Have you seen Heat?", [("I loved it.", "personal_opinion")])
        .messages[-1]
        .content
    )
    assert 'Message: "I loved it."\nAnswer: {"strategy": "personal_opinion"}' in few
    assert SCHEMA["properties"]["strategy"]["enum"] == list(LABELS)


def test_few_shot_examples_come_only_from_the_given_training_sentences():
    train = pd.DataFrame({"text": [f"t{i}" for i in range(20)], "label": ["a", "b"] * 10})
    ex = few_shot_examples(train, per_label=2, seed=1)
    assert len(ex) == 4
    assert {lab for _, lab in ex} == {"a", "b"}
    assert all(t in set(train["text"]) for t, _ in ex)


def test_tagger_parses_structured_answers_and_records_failures():
    def respond(req):
        msg = req.messages[
            1
        ].content  # the original prompt: a re-ask does not fix a garbled sentence
        if "garbled" in msg.split("Message:")[-1]:
            return "no json here"
        return json.dumps({"strategy": "credibility"})

    client = LLMClient(ScriptedBackend(respond), None)
    assert tag(client, ["It won an Oscar.", "garbled"]) == ["credibility", None]
    assert client.stats.parse_failures == 1
