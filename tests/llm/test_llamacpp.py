"""The embedded model, for real (slow: loads Qwen2.5-Coder-1.5B in a worker process)."""

import importlib.util
import socket
import subprocess
import sys
import time

import pytest

from crseval.data import load_dataset
from crseval.judge.rubric import RUBRICS, judge_request
from crseval.llm import ChatRequest, LLMConfig, make_client

pytestmark = pytest.mark.slow

if importlib.util.find_spec("xllamacpp") is None and importlib.util.find_spec("llama_cpp") is None:
    pytest.skip(
        "no llama.cpp engine is installed (install crseval[local])", allow_module_level=True
    )


@pytest.fixture(scope="module")
def client(embedded_llm_cache):
    c = make_client(LLMConfig(), embedded_llm_cache)
    yield c
    c.close()


def test_probability_weighted_judge_separates_good_from_bad_dialogues(client):
    sample = load_dataset("sample").dialogues
    scores = {d.id: client.rate(judge_request(d, RUBRICS["overall"])[0]) for d in sample}
    assert all(r.method == "expected" and 1 <= r.value <= 5 for r in scores.values())
    liked = [scores[d.id].value for d in sample if d.metadata["outcome"] == "accept_rating_good"]
    assert (
        min(liked) > scores["s05"].value
    )  # the recommender that ignores "comedy" and gets rejected
    assert sum(liked) / len(liked) > scores["s03"].value  # the terse, strategy-free recommender


def test_schema_constrained_json(client):
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 60},
            "year": {"type": "integer", "minimum": 1900, "maximum": 2030},
        },
        "required": ["title", "year"],
    }
    res = client.structured(
        ChatRequest.chat("Name one famous science-fiction movie and its year.", max_tokens=60),
        schema,
    )
    assert res.ok, res.error
    assert isinstance(res.value["title"], str)
    assert 1900 <= res.value["year"] <= 2030


def test_repeated_request_is_a_cache_hit(client):
    req = ChatRequest.chat("Say hello in three words.", max_tokens=12)
    first = client.complete(req)
    t0 = time.perf_counter()
    second = client.complete(req)
    assert second.cached
    assert second.text == first.text
    assert time.perf_counter() - t0 < 0.1


def test_an_answer_depends_on_its_request_only_not_on_the_one_before():
    """A rating, a hidden-state reading and a greedy answer are the same whether their request comes first
    or after another that shares its system prompt: the embedded engine reuses no cached prefix by
    default (llama.cpp computes a reused prefix in other batches, and a rating read after another moved
    P("1") from .090 to .099 on this machine) — what makes a run with concurrent requests reproducible."""
    from dataclasses import replace

    from crseval.llm.llamacpp import LlamaCppBackend

    backend = LlamaCppBackend()
    system = "You rate recommendation dialogues on a scale from 1 to 5. " * 20
    digits = ("1", "2", "3", "4", "5")
    rating = ChatRequest.chat(
        "User: a heist movie? Assistant: Heat (1995). User: seen it. Rate:", system, choices=digits
    )
    d = next(iter(load_dataset("sample").dialogues))
    states = replace(judge_request(d, RUBRICS["overall"], hidden=True)[0], choices=digits)
    answer = ChatRequest.chat("Recommend three heist movies, briefly.", system, max_tokens=40)
    other = ChatRequest.chat("User: comedies and dramas. Rate:", system, choices=digits)
    try:
        first = [backend.complete(r, 300) for r in (rating, states, answer)]
        after = []
        for r in (rating, states, answer):
            backend.complete(other, 300)
            after.append(backend.complete(r, 300))
    finally:
        backend.close()
    assert first[0].choice_probs == after[0].choice_probs
    assert (first[1].choice_probs, first[1].hidden) == (after[1].choice_probs, after[1].hidden)
    assert first[2].text == after[2].text


def test_hidden_states_come_from_the_ratings_own_prefill(embedded_llm_cache):
    """The states a rating returns are llama.cpp's own last-layer states of each utterance's tokens (checked
    against a second model that outputs every position in one batch), the span's tokens spell it,
    the digit probabilities barely move (another batch split), and the answer is cached with its states
    (the compiled engine; the default one's states: the next test)."""
    import json

    llama_cpp = pytest.importorskip("llama_cpp", reason="hidden states need crseval[compiled]")
    import numpy as np
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    from crseval.llm.base import decode_states
    from crseval.llm.models import resolve_model
    from crseval.llm.spans import span_tokens

    client = make_client(LLMConfig(engine="llama-cpp-python"), embedded_llm_cache)

    d = next(iter(load_dataset("sample").dialogues))
    req, _ = judge_request(d, RUBRICS["overall"], hidden=True)
    rated = client.rate(req)
    plain = client.rate(judge_request(d, RUBRICS["overall"])[0])
    states = decode_states(rated.hidden)
    texts = [u.text for u in d.utterances]  # one span per utterance, the user's included
    assert states.shape == (len(texts), 3072) and np.isfinite(states).all()
    assert max(abs(rated.probs[k] - plain.probs[k]) for k in plain.probs) < 0.03
    again = client.rate(req)
    assert again.hidden == rated.hidden and client.stats.cache_hits >= 1

    ref = llama_cpp.Llama(
        model_path=str(resolve_model(None)[0]), n_ctx=1024, n_batch=1024, n_ubatch=1024,
        embedding=True, logits_all=True, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_NONE,
        verbose=False, n_threads=2,
    )  # fmt: skip
    messages = [{"role": m.role, "content": m.content} for m in req.messages]
    prompt = Jinja2ChatFormatter(
        template=ref.metadata["tokenizer.chat_template"], eos_token="<|im_end|>", bos_token=""
    )(messages=messages).prompt
    tokens = ref.tokenize(prompt.encode(), add_bos=False, special=True)
    ranges = span_tokens(
        prompt,
        req.messages[-1].content,
        list(req.hidden_spans),
        lambda t: len(ref.tokenize(t.encode(), add_bos=False, special=True)),
    )
    for (a, b), text in zip(ranges, texts):
        spelled = ref.detokenize(tokens[a:b]).decode()
        assert json.dumps(text, ensure_ascii=False)[2:-2] in spelled
    ref.eval(tokens)
    E = np.ctypeslib.as_array(
        llama_cpp.llama_get_embeddings(ref._ctx.ctx), shape=(len(tokens), 1536)
    )
    expected = np.array([np.concatenate([E[a:b].mean(0), E[b - 1]]) for a, b in ranges])
    assert np.corrcoef(expected.ravel(), states.ravel())[0, 1] > 0.999
    assert np.abs(expected - states).max() < 0.05 * np.abs(expected).max()
    ref.close()
    client.close()


def test_the_default_engine_reads_the_states_the_model_computes(embedded_llm_cache):
    """The prebuilt engine's states (llama.cpp's C API in the xllamacpp wheel) are the model's own: checked
    against llama.cpp's server in the same wheel, which pools the last-layer states of a token prefix —
    a span's last token is the LAST pooling of the prompt cut where the span ends, its mean comes from the
    MEAN pooling of the prompt cut at both ends — and the digit probabilities are the server's."""
    pytest.importorskip("xllamacpp", reason="the default engine comes with crseval[local]")
    import numpy as np
    import xllamacpp

    from crseval.llm.base import decode_states
    from crseval.llm.llama_capi import StateReader
    from crseval.llm.models import resolve_model
    from crseval.llm.spans import span_tokens

    client = make_client(LLMConfig(), embedded_llm_cache)
    d = next(iter(load_dataset("sample").dialogues))
    req, _ = judge_request(d, RUBRICS["overall"], hidden=True)
    rated = client.rate(req)
    plain = client.rate(judge_request(d, RUBRICS["overall"])[0])  # the server's own probabilities
    client.close()
    states = decode_states(rated.hidden)
    assert states.shape == (sum(1 for _ in d.utterances), 3072)  # one row per utterance
    assert max(abs(rated.probs[k] - plain.probs[k]) for k in plain.probs) < 0.03

    path = str(resolve_model(None)[0])
    reader = StateReader(path, 1024, 2)  # the tokens and spans the engine reads
    messages = [{"role": m.role, "content": m.content} for m in req.messages]
    prompt = reader.prompt(messages)
    tokens = reader.tokenize(prompt)
    ranges = span_tokens(
        prompt, messages[-1]["content"], req.hidden_spans, lambda t: len(reader.tokenize(t))
    )
    ranges = ranges[:3]  # each reference prefix is a prefill of its own

    def pooled(pooling, prefixes):
        params = xllamacpp.CommonParams()
        params.model.path, params.n_ctx, params.n_batch, params.n_ubatch = path, 1024, 1024, 1024
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 2
        params.warmup, params.verbosity, params.embedding = False, -1, True
        params.pooling_type, params.embd_normalize = pooling, -1  # raw states, no normalising
        out = xllamacpp.Server(params).handle_embeddings({"input": prefixes})
        return np.array([o["embedding"] for o in sorted(out["data"], key=lambda o: o["index"])])

    kinds = xllamacpp.llama_pooling_type
    last = pooled(kinds.LLAMA_POOLING_TYPE_LAST, [tokens[:b] for _, b in ranges])
    M = pooled(kinds.LLAMA_POOLING_TYPE_MEAN, [tokens[:k] for a, b in ranges for k in (a, b)])
    mean = np.array(
        [(b * M[2 * i + 1] - a * M[2 * i]) / (b - a) for i, (a, b) in enumerate(ranges)]
    )
    for ours, ref in ((states[:3, 1536:], last), (states[:3, :1536], mean)):
        assert np.corrcoef(ref.ravel(), ours.ravel())[0, 1] > 0.999
        assert np.abs(ref - ours).max() < 0.05 * np.abs(ref).max()


def test_timeout_kills_the_worker_and_the_next_call_works(tmp_path):
    c = make_client(LLMConfig(timeout_s=0.05, max_retries=0))
    try:
        res = c.try_complete(ChatRequest.chat("Write a long story about a dragon.", max_tokens=400))
        assert not res.ok
        assert "did not answer" in res.error
        c.config.timeout_s = 300
        assert c.complete(ChatRequest.chat("Say yes.", max_tokens=4)).text
    finally:
        c.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None,
    reason="llama-cpp-python[server] not installed (uvicorn alone is the study server's)",
)
def test_openai_backend_against_a_real_llama_cpp_server(tmp_path):
    from crseval.llm.models import resolve_model

    path, _ = resolve_model()
    port = _free_port()
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(path),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--logits_all",
            "true",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
                time.sleep(1)
        cfg = LLMConfig(
            backend="openai",
            model="local",
            base_url=f"http://127.0.0.1:{port}/v1",
            api_key_env=None,
            json_mode="json_object",
            timeout_s=300,
        )
        c = make_client(cfg, tmp_path / "cache.sqlite")
        reply = c.complete(
            ChatRequest.chat(
                "Recommend one comedy movie. Answer with the title only.", max_tokens=20
            )
        )
        assert reply.text.strip()
        assert reply.prompt_tokens > 0
        rating = c.rate(
            ChatRequest.chat("How good is the movie Toy Story from 1 to 5? Answer with a digit.")
        )
        assert rating.value is not None and 1 <= rating.value <= 5, rating.error
        c.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _answers(cache) -> int:
    import sqlite3

    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True) as con:
            return con.execute("select count(*) from responses").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("moment", ["loading", "answering"])
def test_ctrl_c_stops_a_run_within_three_seconds_while_the_model_loads_or_answers(tmp_path, moment):
    """Ctrl-C kills the model's worker mid-load too (it was only reachable once loaded: a run went on
    loading, and retried, for 13–19 s)."""
    import signal

    import psutil

    cfg = tmp_path / "shift.toml"
    cfg.write_text(
        'sessions = 2\nturns = 3\nworkers = 1\n[[models]]\nname = "llm"\n[judge]\nenabled = false\n'
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crseval.cli.main",
            "shift",
            "run",
            str(cfg),
            "--out",
            str(tmp_path / "run"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = tmp_path / "run" / "llm_cache.sqlite"
    deadline = time.monotonic() + 120
    while (
        time.monotonic() < deadline
    ):  # wait for the worker to start (and, for "answering", to answer)
        workers = [
            p
            for p in psutil.Process(proc.pid).children(recursive=True)
            if "llamacpp_worker" in " ".join(p.cmdline())
        ]
        if workers and (moment == "loading" or _answers(log)):
            break
        time.sleep(0.2)
    assert workers, "the model worker never started"
    time.sleep(1.0 if moment == "loading" else 0.0)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    seen = []
    for line in proc.stderr:  # the run has stopped when it says so (the interpreter's exit follows)
        seen.append(line)
        if "interrupted" in line:
            break
    stopped = time.monotonic() - sent
    _, err = proc.communicate(timeout=30)
    err = "".join(seen) + err
    assert proc.returncode == 130 and stopped < 3, f"{stopped:.1f} s: {err[-500:]}"
    assert not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers)
