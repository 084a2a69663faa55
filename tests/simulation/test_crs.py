"""The CRS's constraint extractor on utterances with known answers, retrieval with relaxation, plug-ins."""
import pytest

from crseval.llm.client import LLMClient
from crseval.llm.scripted import ScriptedBackend
from crseval.simulation.crs import KBCRS
from crseval.simulation.nlu import extract
from crseval.simulation.plugins import CallableCRS, HttpCRS, load_callable
from crseval.simulation.retrieval import candidate_set
from crseval.text.movie_text import mentioned_titles
from crseval.data.kb import load_kb
from crseval.core.errors import CrsevalError


@pytest.fixture(scope="module")
def kb():
    return load_kb()  # the bundled sample catalogue


@pytest.mark.parametrize("utterances, expected", [
    (["I want a comedy"], {"genres": ["comedy"]}),
    (["Something scary please"], {"genres": ["horror"]}),
    (["I like sci fi"], {"genres": ["sci-fi"]}),
    (["a comedy", "no more comedy, something scary from the 90s"], {"genres": ["horror"], "year": [1990, 1999]}),
    (["a thriller", "maybe also some horror"], {"genres": ["thriller", "horror"]}),
    (["a thriller", "Actually a mix of drama and romance"], {"genres": ["drama", "romance"]}),
    (["movies before 1980"], {"year": [None, 1979]}),
    (["anything after 2010"], {"year": [2011, None]}),
    (["a film from 1999"], {"year": [1999, 1999]}),
    (["something from the '90s"], {"year": [1990, 1999]}),
    (["one with Keanu Reeves"], {"actor": "Keanu Reeves"}),
    (["by Christopher Nolan", "no, not Christopher Nolan"], {}),
    (["in French please"], {"language": "French"}),
    (["an action movie", "with Keanu Reeves", "start over: a romance"], {"genres": ["romance"]}),
])
def test_extractor_known_answers(kb, utterances, expected):
    assert extract(kb, utterances).as_dict() == expected


def test_later_values_replace_earlier_ones(kb):
    c = extract(kb, ["one with Keanu Reeves", "actually one with Leonardo DiCaprio"])
    assert c.values["actor"] == "Leonardo DiCaprio" and c.stated["actor"] == 1


def test_retrieval_intersects_and_relaxes_the_least_recent_constraint(kb):
    c = extract(kb, ["a sci-fi movie", "with Keanu Reeves"])
    found, relaxed = candidate_set(kb, c)
    assert {kb.movies[i].title for i in found} == {"The Matrix"} and relaxed == []
    c = extract(kb, ["a horror movie", "with Keanu Reeves"])  # no horror movie with Keanu in the sample
    found, relaxed = candidate_set(kb, c)
    assert relaxed == ["genres"] and {kb.movies[i].title for i in found} == {"The Matrix"}


def test_titles_are_found_longest_first_and_one_word_titles_only_as_written(kb):
    assert mentioned_titles(kb, "You could watch Heat or The Dark Knight.") == ["Heat", "The Dark Knight"]
    assert mentioned_titles(kb, "the heat of the moment") == []


def test_llm_crs_gets_the_candidates_and_only_writes_the_reply(kb):
    backend = ScriptedBackend(lambda req: "How about The Matrix? It fits.")
    crs = KBCRS("m", kb, LLMClient(backend), prompt="proactive")
    reply = crs.respond([{"speaker": "user", "text": "a sci-fi movie with Keanu Reeves"}])
    assert reply.text == "How about The Matrix? It fits." and reply.candidates == ["The Matrix"]
    prompt = backend.calls[0].messages[-1].content
    assert "The Matrix (1999)" in prompt and "ask one" in backend.calls[0].messages[0].content


def test_failed_llm_reply_is_an_error_not_a_default(kb):
    crs = KBCRS("m", kb, LLMClient(ScriptedBackend(lambda req: "   ")))
    reply = crs.respond([{"speaker": "user", "text": "a comedy"}])
    assert reply.text == "" and reply.error


def test_callable_and_http_plugins():
    crs = CallableCRS("mine", lambda h: {"text": f"you said {h[-1]['text']}", "constraints": {"genres": ["war"]}})
    r = crs.respond([{"speaker": "user", "text": "hi"}])
    assert r.text == "you said hi" and r.constraints == {"genres": ["war"]}
    assert CallableCRS("bad", lambda h: 42).respond([]).error
    assert CallableCRS("boom", lambda h: 1 / 0).respond([]).error.startswith("ZeroDivisionError")
    assert HttpCRS("down", "http://127.0.0.1:9/crs", timeout_s=0.5, retries=1).respond([]).error
    assert load_callable("json:dumps")([1]) == "[1]"
    with pytest.raises(CrsevalError, match="module:function"):
        load_callable("nocolon")


def test_http_crs_against_a_local_server():
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class H(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            out = json.dumps({"reply": f"{len(body['history'])} turns"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass

    srv = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        r = HttpCRS("h", f"http://127.0.0.1:{srv.server_port}/").respond([{"speaker": "user", "text": "x"}])
        assert r.text == "1 turns" and r.error is None
    finally:
        srv.shutdown()


def test_real_kb_indexes(shared):
    kb = load_kb(shared("opendialkg/opendialkg_movie_data.json"))
    assert len(kb) == 2164
    assert "tom hanks" in kb.index["actor"] and kb.genres["comedy"]
    assert ("director", "Steven Spielberg") in kb.find_names("anything by Steven Spielberg")
    assert all(2 <= len(s) <= 0.02 * len(kb) for s in kb.keywords.values())
    c = extract(kb, ["a crime movie", "with Tom Hanks", "something about a heist"])
    assert c.as_dict() == {"genres": ["crime"], "actor": "Tom Hanks", "keywords": ["heist"]}


def test_keywords_need_a_plot_cue_and_are_never_genres(shared):
    kb = load_kb(shared("opendialkg/opendialkg_movie_data.json"))
    assert extract(kb, ["Not sure about Birdman or (The Unexpected Virtue of Ignorance). Another idea?"]).as_dict() == {}
    said = extract(kb, ["a comedy", "No, forget what I said about comedy, not comedy anymore. Let's switch to musical"])
    assert said.as_dict() == {"genres": ["musical"]}
    assert extract(kb, ["I'm curious about a story involving heist and mumbai."]).as_dict() == \
        {"keywords": ["heist", "mumbai"]}
    assert extract(kb, ["Let's switch to teen, please."]).as_dict() == {"genres": ["teen"]}  # every canonical genre
