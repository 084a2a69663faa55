"""The turn model: its features line up with the assistant turns, it learns a per-turn signal, cross-fitted
features never come from a model that saw their own dialogue's labels, and a judge carrying one predicts
the same after a JSON round trip."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.linear_model import RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from crseval.core.errors import CrsevalError
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.judged_types import JudgedItem
from crseval.judge.calibrated import CalibratedJudge, feature_names, fit_aspect
from crseval.judge.job import _usable
from crseval.judge.turn_model import (
    ALPHAS,
    cross_fitted,
    embedder,
    fit_turn_model,
    turn_features,
    turn_labels,
)
from crseval.text.embed import Hashing

GOOD = ["Try the sci-fi movie Alien, a classic.", "Blade Runner is a great sci-fi movie for you."]
BAD = ["I like turtles.", "The weather is nice today.", "Banana."]


def _dialogue(i: int, rng) -> tuple[Dialogue, list[float]]:
    """A user asking for sci-fi and 2–4 replies, each relevant (label 2) or not (0)."""
    utts, rel = [Utterance(Role.USER, "Any sci-fi movie?")], []
    for k in range(int(rng.integers(2, 5))):
        good = bool(rng.random() < 0.5)
        rel.append(2.0 if good else 0.0)
        text = (GOOD if good else BAD)[int(rng.integers(0, 2))]
        utts += [
            Utterance(Role.SYSTEM, text, metadata={"labels": {"relevance": rel[-1]}}),
            Utterance(Role.USER, "ok" if good else "what?"),
        ]
    return Dialogue.from_utterances(f"d{i}", utts), rel


def _set(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return [_dialogue(i, rng) for i in range(n)]


def test_features_and_labels_line_up_with_the_assistant_turns():
    utts = [
        Utterance(Role.SYSTEM, "Hi! What do you like?"),  # no user turn before it: '-'
        Utterance(Role.USER, "Any sci-fi movie?"),
        Utterance(
            Role.SYSTEM, GOOD[0], metadata={"labels": {"relevance": 2, "interestingness": 1}}
        ),
        Utterance(Role.USER, "ok"),
    ]
    d = Dialogue.from_utterances("d", utts)
    embed = Hashing()
    (X,) = turn_features([d], embed)
    assert X.shape == (2, 2 * embed.dim + 3)
    assert turn_labels(d) == {2: {"relevance": 2.0, "interestingness": 1.0}}
    a, u = embed.encode([GOOD[0]])[0], embed.encode(["Any sci-fi movie?"])[0]
    assert np.allclose(X[1, : embed.dim], a) and np.allclose(X[1, embed.dim : 2 * embed.dim], a * u)
    cos = float(a @ u / (np.linalg.norm(a) * np.linalg.norm(u)))
    assert X[1, 2 * embed.dim] == pytest.approx(cos, abs=1e-6)
    assert X[1, -2:] == pytest.approx([np.log1p(len(GOOD[0])), 2 / 4])
    assert np.allclose(
        X[0, embed.dim : 2 * embed.dim],
        embed.encode(["Hi! What do you like?"])[0] * embed.encode(["-"])[0],
    )


def test_the_turn_model_is_scikit_learn_ridge_and_learns_the_turn_signal():
    embed = Hashing()
    train, test = _set(60, 0), _set(30, 1)
    rows = turn_features([d for d, _ in train], embed)
    model = fit_turn_model(
        rows, [turn_labels(d) for d, _ in train], [d for d, _ in train], "hashing"
    )
    X, y = np.vstack(rows), np.concatenate([r for _, r in train])
    ref = make_pipeline(StandardScaler(), RidgeCV(alphas=ALPHAS)).fit(X, y)
    assert np.allclose(model.models["relevance"].predict(X), ref.predict(X), atol=1e-8)
    new = turn_features([d for d, _ in test], embed)
    pred = model.models["relevance"].predict(np.vstack(new))
    assert np.corrcoef(pred, np.concatenate([r for _, r in test]))[0, 1] > 0.9
    agg = model.aggregate(new)  # mean, min, last per dialogue
    assert agg.shape == (30, 3) and np.all(agg[:, 1] <= agg[:, 0])


def test_cross_fitted_features_never_come_from_a_model_that_saw_their_labels():
    data = _set(50, 2)
    dialogues = [d for d, _ in data]
    rows = turn_features(dialogues, Hashing())
    labels = [turn_labels(d) for d in dialogues]
    groups = np.array([f"user{i // 2}" for i in range(50)])  # two dialogues per user
    train = np.arange(40)
    inside, outside, model = cross_fitted(
        rows, labels, dialogues, groups, "hashing", train, np.arange(40, 50)
    )
    assert inside.shape == (40, 3) and outside.shape == (10, 3) and model.n_turns > 0
    # scramble one user's labels: their own cross-fitted features stay, everyone else's move
    flipped = [
        {t: {"relevance": 2.0 - v["relevance"]} for t, v in lab.items()}
        if groups[i] == "user3"
        else lab
        for i, lab in enumerate(labels)
    ]
    again, _, _ = cross_fitted(
        rows, flipped, dialogues, groups, "hashing", train, np.arange(40, 50)
    )
    mine = groups[train] == "user3"
    assert np.allclose(again[mine], inside[mine])
    assert not np.allclose(again[~mine], inside[~mine])


def test_a_judge_with_a_turn_model_round_trips_as_json(tmp_path):
    data = _set(40, 3)
    dialogues = [d for d, _ in data]
    rows = turn_features(dialogues, Hashing())
    tm = fit_turn_model(rows, [turn_labels(d) for d in dialogues], dialogues, "hashing")
    items = [JudgedItem(d.id, d, {"overall": float(np.mean(r))}) for d, r in data]
    from crseval.judge.features import transcript_features

    X = np.hstack([np.array([transcript_features(d) for d in dialogues]), tm.aggregate(rows)])
    y = np.array([it.labels["overall"] for it in items])
    groups = np.array([it.id for it in items])
    judge = CalibratedJudge(
        "t",
        "dialogue",
        [],
        None,
        feature_names([], tm),
        {"overall": fit_aspect(X, y, groups, "overall", (0.0, 2.0))},
        [],
        tm,
    )
    before = judge.predict(items, "overall")
    loaded = CalibratedJudge.load(judge.save(tmp_path / "judge.json"))
    assert loaded.features[-3:] == [
        "turn:relevance:mean",
        "turn:relevance:min",
        "turn:relevance:last",
    ]
    assert np.allclose(loaded.predict(items, "overall"), before)
    assert np.corrcoef(before, y)[0, 1] > 0.8
    raw = json.loads((tmp_path / "judge.json").read_text())
    raw["turn_model"]["features"] = "turn-v0"  # fitted by another version's features: refused
    (tmp_path / "old.json").write_text(json.dumps(raw))
    with pytest.raises(CrsevalError, match="not a calibrated judge"):
        CalibratedJudge.load(tmp_path / "old.json")


def test_a_turn_model_refuses_a_stand_in_encoder(monkeypatch):
    import crseval.judge.turn_model as tm

    embedder.cache_clear()
    monkeypatch.setattr(tm, "get_embedder", lambda key: Hashing())
    with pytest.raises(CrsevalError, match="needs the all-MiniLM-L6-v2 encoder"):
        tm.embedder("minilm")
    embedder.cache_clear()


def test_the_shipped_judges_load_by_name():
    """`--judge default` reads the LLM's question and a turn model with the LLM's states, no rules, each
    by its mean (compact); `--judge redial` the rules and the question; `--judge crsarena` the rules and
    a turn model, no question."""
    default, redial, arena = (CalibratedJudge.load(n) for n in ("default", "redial", "crsarena"))
    assert (
        default.questions == ["dialogue-overall"] and default.llm["model"] == "qwen2.5-coder-1.5b"
    )
    assert not default.rules and default.turn_model.encoder == "mpnet" and default.reads_states
    assert default.compact and default.features == feature_names(
        ["dialogue-overall"], default.turn_model, rules=False, compact=True
    )
    assert default.trained_on[0]["n"] == 362 and len(default.aspects) == 7
    assert redial.questions == ["dialogue-overall"] and redial.turn_model is None and redial.rules
    assert arena.questions == [] and arena.llm is None
    assert arena.turn_model.encoder == "mpnet" and arena.turn_model.aspects == [
        "interestingness",
        "relevance",
    ]
    assert arena.trained_on[0]["n"] == 362 and len(arena.aspects) == 7
    assert arena.features == feature_names([], arena.turn_model)


@pytest.mark.slow  # loads all-mpnet-base-v2 (420 MB) and, for the LLM's states, the embedded model
def test_the_default_judge_prefers_replies_that_answer_the_request(tmp_path):
    """The shipped default reads its turn model: with the same digit probabilities from its question, a
    dialogue whose replies answer the user's request scores higher than one whose replies do not, on every
    aspect the answers concern."""
    ask = "I'd like a scary horror movie for tonight, something like The Conjuring."
    answered = ["Insidious (2010) is a scary horror film from the director of The Conjuring.",
                "Then Sinister (2012): a true-crime writer finds terrifying home movies."]  # fmt: skip
    ignored = ["I like turtles.", "The weather is nice today, isn't it?"]
    items = []
    for name, replies in (("answered", answered), ("ignored", ignored)):
        utts = [Utterance(Role.USER, ask)]
        for r in replies:
            utts += [Utterance(Role.SYSTEM, r), Utterance(Role.USER, "Anything else?")]
        items.append(JudgedItem(name, Dialogue.from_utterances(name, utts), {}))
    judge = CalibratedJudge.load("default")
    # digit probabilities whose expected score is the training dialogues' mean: the turn model decides
    score = judge.models["dialogue-overall"].mean[judge.features.index("dialogue-overall:mean")]
    low = int(score)
    typical = {str(low): low + 1 - score, str(low + 1): score - low}
    probs = {it.id: {"dialogue-overall": typical} for it in items}
    if judge.reads_states:  # the embedded model's states of each reply, as the question reads them
        from crseval.judge.decomposed import HIDDEN
        from crseval.judge.rubric import judge_request, rubric_for
        from crseval.llm import LLMConfig, make_client
        from crseval.llm.base import decode_states

        client = make_client(LLMConfig(), tmp_path / "cache.sqlite")
        rubric = rubric_for("dialogue-overall", False)
        for it in items:
            rated = client.rate(judge_request(it.dialogue, rubric, hidden=True)[0])
            probs[it.id][HIDDEN] = decode_states(rated.hidden)
        client.close()
    for aspect in judge.aspects:
        good, bad = judge.predict(items, aspect, probs)
        lo, hi = judge.models[aspect].human_scale
        assert lo <= min(good, bad) and max(good, bad) <= hi
        if aspect != "preference-elicitation":  # neither dialogue asks the user anything
            assert good > bad, aspect


def test_hidden_states_join_each_turns_row_with_the_users_reaction_and_a_missing_one_adds_nothing():
    """States are one row per utterance: each assistant turn's row gets its reply's states and then those
    of the user's next message (NaN where the dialogue ends on the reply); a missing row (cut from a long
    prompt) is read as the training mean, as if it had none of its own."""
    data = _set(40, 4)
    dialogues = [d for d, _ in data]
    rng = np.random.default_rng(0)
    states = []
    for d in dialogues:
        labels = turn_labels(d)
        states.append(
            np.column_stack(
                [
                    [
                        labels.get(i, {}).get("relevance", 0.0)
                        for i in range(len(list(d.utterances)))
                    ],
                    rng.normal(size=(len(list(d.utterances)), 2)),
                ]
            )
        )
    rows = turn_features(dialogues, Hashing(), states)
    base = turn_features(dialogues, Hashing())
    for d, R, B, S in zip(dialogues, rows, base, states):
        utts = list(d.utterances)
        for k, i in enumerate(i for i, u in enumerate(utts) if u.role.is_recommender):
            after = [j for j in range(i + 1, len(utts)) if not utts[j].role.is_recommender]
            reaction = S[after[0]] if after else np.full(S.shape[1], np.nan)
            assert np.array_equal(R[k], np.concatenate([B[k], S[i], reaction]), equal_nan=True)
    tm = fit_turn_model(rows, [turn_labels(d) for d in dialogues], dialogues, "hashing", True)
    assert tm.states and tm.features.endswith(
        "the user's next message in the question's prompt (token mean, last token)"
    )
    model = tm.models["relevance"]
    missing = rows[0].copy()
    missing[:, -6:] = np.nan
    filled = rows[0].copy()
    filled[:, -6:] = np.asarray(model.mean)[-6:]
    assert np.allclose(model.predict(missing), model.predict(filled))
    with pytest.raises(CrsevalError, match="another number of utterances"):
        turn_features(dialogues[:1], Hashing(), [states[0][:1]])
    with pytest.raises(CrsevalError, match="reads the LLM's hidden states"):
        tm.dialogue_features(dialogues[:1])


def test_a_judge_that_reads_states_is_dropped_or_refused_where_the_llm_gives_none(tmp_path):
    """The shipped judge reads the embedded model's hidden states: with an LLM that gives none (a server)
    the run warns and asks the LLM questions only; a judge the user named is refused."""
    from crseval.llm import LLMConfig, make_client

    judge = CalibratedJudge.load("default")
    assert judge.reads_states
    client = make_client(LLMConfig(backend="openai", base_url="http://127.0.0.1:9/v1"), None)
    logged: list[str] = []
    assert _usable(judge, SimpleNamespace(judge="default"), *_run(client, logged)) is None
    assert logged and "hidden states" in logged[0] and "LLM questions only" in logged[0]
    with pytest.raises(CrsevalError, match="reads the LLM's hidden states") as e:
        _usable(judge, SimpleNamespace(judge=str(tmp_path / "mine")), *_run(client, logged))
    assert "--backend llamacpp" in e.value.fix
    client.close()


def _run(client, logged: list[str]):
    """(judges, store) as the meta-eval job hands them to ``_usable``."""
    return [SimpleNamespace(client=client)], SimpleNamespace(log=logged.append)


def test_the_default_install_serves_the_shipped_judge():
    """No fallback on the default path: the engine a default install runs reads hidden states (the wheel's
    llama.cpp C API is laid out as crseval reads it) and the shipped judge learned that engine's states of
    the default model, so `judge meta-eval` keeps it without a warning. Another engine's states are
    refused, with the fix — never a silent fallback."""
    pytest.importorskip("xllamacpp", reason="the default engine comes with crseval[local]")
    from crseval.llm import LLMConfig, make_client
    from crseval.llm.llama_capi import load_library
    from crseval.llm.llamacpp import resolve_engine

    assert resolve_engine(None) == "xllamacpp"
    load_library()  # checks the C API's layout without loading a model
    judge = CalibratedJudge.load("default")
    client = make_client(LLMConfig(), None)  # no worker starts before the first request
    try:
        logged: list[str] = []
        assert judge.mismatch(client) is None and judge.states_engine == "xllamacpp"
        assert _usable(judge, SimpleNamespace(judge="default"), *_run(client, logged)) is judge
        assert not logged
        other = SimpleNamespace(
            identity=lambda: {**client.identity(), "engine": "llama-cpp-python"},
            backend=client.backend,
        )
        with pytest.raises(CrsevalError, match="learned xllamacpp's hidden states") as e:
            _usable(judge, SimpleNamespace(judge="default"), *_run(other, logged))
        assert "engine = 'xllamacpp'" in e.value.fix and not logged
    finally:
        client.close()


def test_the_turns_are_embedded_once_each_with_a_progress_bar():
    """`judge meta-eval --judge crsarena` showed nothing for a minute or more on a first run while the turn
    model embedded every turn; now a bar counts each distinct text once, and the features read them back."""
    from crseval.judge.turn_model import embed_turns, embedder, turn_features

    rng = np.random.default_rng(0)
    dialogues = [_dialogue(i, rng)[0] for i in range(6)]
    bars: dict[str, list[int]] = {}

    def progress(label, total):
        bars[label] = [total]
        return bars[label].append

    embed_turns(dialogues, "hashing", progress, chunk=3)
    (total, *ticks) = bars["turn model: embedding the turns"]
    read = set()  # each reply and the user turn before it
    for d in dialogues:
        before = "-"
        for u in d.utterances:
            read |= {u.text, before} if u.role is Role.SYSTEM else set()
            before = u.text if u.role is Role.USER else before
    assert total == sum(ticks) == len(read) and max(ticks) <= 3
    assert len(turn_features(dialogues, embedder("hashing"))) == 6
