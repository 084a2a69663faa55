"""The KB CRS: the LLM gets the candidates and only writes the reply; failures are errors."""

import pytest

from crseval.data.kb import load_kb
from crseval.llm.client import LLMClient
from crseval.llm.scripted import ScriptedBackend
from crseval.simulation.crs import KBCRS


@pytest.fixture(scope="module")
def kb():
    return load_kb()  # the bundled sample catalogue


def test_llm_crs_gets_the_candidates_and_only_writes_the_reply(kb):
    backend = ScriptedBackend(lambda req: "How about The Matrix? It fits.")
    crs = KBCRS("m", kb, LLMClient(backend), prompt="proactive")
    reply = crs.respond([{"speaker": "user", "text": "a sci-fi movie with Keanu Reeves"}])
    assert reply.text == "How about The Matrix? It fits."
    assert reply.candidates == ["The Matrix"]
    prompt = backend.calls[0].messages[-1].content
    assert "The Matrix (1999)" in prompt
    assert "ask one" in backend.calls[0].messages[0].content


def test_failed_llm_reply_is_an_error_not_a_default(kb):
    crs = KBCRS("m", kb, LLMClient(ScriptedBackend(lambda req: "   ")))
    reply = crs.respond([{"speaker": "user", "text": "a comedy"}])
    assert reply.text == ""
    assert reply.error
