"""The SerenEva reproduction: the paper's prompt styles, and the job's tables on the shared studies."""

import json

import numpy as np
import pandas as pd
import pytest

from crseval.llm import LLMClient, LLMConfig
from crseval.llm.scripted import ScriptedBackend
from crseval.runs import RunStore
from crseval.serendipity.prompts import STYLES, shared_prefix, style_request
from crseval.api import execute
from crseval.serendipity.reproduce import JOB, ReproduceConfig, ensemble_curve
from tests.serendipity.test_no_peeking import taobao_like, toy


def test_the_zero_shot_prompt_as_the_paper_describes_it():
    s = toy()
    text = style_request(s, s.answers.iloc[0], STYLES["sereneva"]).messages[-1].content
    # u1 rated Toy Story (t1), then Alien and Amelie (t2) before Heat (t3): comma-separated, oldest first
    assert (
        "Your history, oldest to newest: Toy Story (1995) (Animation, Comedy), Alien (1979) (Horror, Sci-Fi), "
        "Amelie (2001) (Comedy, Romance)." in text
    )
    assert "Recommended to you: Heat (1995) (Crime, Thriller)." in text
    assert (
        "1 = strongly disagree" in text and "5 = strongly agree" in text and "integer only" in text
    )
    assert "rated it" not in text  # no ratings of the past in the paper's prompt, only the items
    k1 = style_request(s, s.answers.iloc[0], STYLES["sereneva"], k=1).messages[-1].content
    assert "oldest to newest: Amelie (2001) (Comedy, Romance)." in k1


def test_every_style_shares_the_prefix_and_maps_its_scale_onto_1_to_5():
    s = toy()
    row = s.answers.iloc[0]
    prefix = shared_prefix(s, row, 10)
    texts = {n: style_request(s, row, st).messages[-1].content for n, st in STYLES.items()}
    assert all(t.startswith(prefix + "\n\n") for t in texts.values())
    assert len(set(texts.values())) == 4
    assert STYLES["llm4seren"].to_likert(1) == 1 and STYLES["llm4seren"].to_likert(2) == 5
    assert STYLES["serenprompt-1"].to_likert(2) == 3 and STYLES["sereneva"].to_likert(
        4.2
    ) == pytest.approx(4.2)


def test_taobao_prefix_has_traits_but_no_history():
    s = taobao_like()
    text = shared_prefix(s, s.answers.iloc[0], 10, aux="curiosity")
    assert "history" not in text.lower() and "a product of category 7" in text
    assert "Your curiosity self-assessment (C1–C10, 1–5): 3." in text


def test_ensemble_curve_averages_every_subset():
    truth = np.arange(10.0)
    preds = {"a": truth + np.array([0, 3] * 5), "b": truth[::-1].copy(), "c": truth}
    curve = ensemble_curve(preds, truth).set_index("ensemble_size")
    singles = [100 * np.corrcoef(p, truth)[0, 1] for p in preds.values()]
    assert curve.loc[1, "pearson_%"] == pytest.approx(np.mean(singles))
    assert curve.loc[1, "pearson_%_min"] == pytest.approx(-100) and curve.loc[3, "subsets"] == 1
    assert curve.loc[3, "pearson_%"] == pytest.approx(
        100 * np.corrcoef(np.mean(list(preds.values()), 0), truth)[0, 1]
    )


def test_a_config_names_some_data():
    with pytest.raises(ValueError, match="--serendipity2018"):
        ReproduceConfig()
    with pytest.raises(ValueError, match="unknown part"):
        ReproduceConfig(taobao="x", parts=["table3"])


def test_reproduce_on_both_studies_resumes_without_new_requests(
    shared, tmp_path, monkeypatch, figures
):
    cfg = ReproduceConfig(
        serendipity2018=shared("serendipity/serendipity2018"),
        taobao=shared("serendipity/taobao"),
        sample=12,
        n_boot=50,
        llm=LLMConfig(backend="scripted"),
    )
    res = execute(JOB, cfg, tmp_path / "r")
    t2 = pd.read_csv(tmp_path / "r" / "tables" / "serendipity_table2.csv")
    s2018 = t2[t2["dataset"] == "serendipity2018"].set_index("evaluator")
    assert list(s2018.index) == [
        "random",
        "sog",
        "snpr",
        "purs",
        "desr",
        "sereneva",
        "llm4seren",
        "serenprompt-1",
        "serenprompt-2",
        "sereneva-fewshot",
        "llm",
    ]
    assert (s2018["n"] == 12).all()  # every evaluator on the same answers
    assert set(t2[t2["dataset"] == "taobao-serendipity"]["evaluator"]) == {
        "random",
        *STYLES,
        "sereneva-fewshot",
        "llm",
    }
    assert s2018["abs_error_t_p"].notna().sum() == 10 and (s2018["rank"] == "best").sum() == 1
    k = pd.read_csv(tmp_path / "r" / "tables" / "serendipity_history_k.csv")
    assert list(k["history_k"]) == [
        1,
        3,
        5,
        10,
        20,
    ]  # Serendipity-2018 only: Taobao publishes no history
    aux = pd.read_csv(tmp_path / "r" / "tables" / "serendipity_aux.csv")
    assert set(aux["setting"]) == {
        "none (zero-shot)",
        "popularity",
        "similarity",
        "interaction",
        "curiosity",
        "personality",
    }
    for fig in (
        "serendipity_history_k",
        "serendipity_aux",
        "serendipity_by_item",
        "serendipity_ensemble_size",
    ):
        assert (tmp_path / "r" / "figures" / f"{fig}.png").exists()
    assert "runs: 5 requested" in res.notes[0]
    keys = [r["key"] for r in RunStore(tmp_path / "r").records("serendipity_reproduce_ratings")]
    assert len(keys) == len(
        set(keys)
    )  # identical requests (k ≥ 5 shows the same short history) rated once
    # a re-run into the same directory asks the model nothing
    backend = ScriptedBackend()
    monkeypatch.setattr("crseval.llm.make_client", lambda config, cache, **kw: LLMClient(backend))
    execute(JOB, cfg, tmp_path / "r")
    assert backend.calls == []
    assert json.loads((tmp_path / "r" / "signature.json").read_text())


def test_reproduce_cli_rejects_a_missing_dataset_in_one_line(tmp_path):
    from tests.support.cli import crseval

    out = crseval(
        "serendipity",
        "reproduce",
        "--backend",
        "scripted",
        "--out",
        str(tmp_path / "x"),
        check=False,
    )
    assert (
        out.returncode == 2 and "--serendipity2018" in out.stderr and "Traceback" not in out.stderr
    )
    bad = crseval(
        "serendipity",
        "reproduce",
        "--taobao",
        str(tmp_path / "nope"),
        "--backend",
        "scripted",
        "--out",
        str(tmp_path / "y"),
        check=False,
    )
    assert bad.returncode == 2 and "not found" in bad.stderr and "Traceback" not in bad.stderr


def test_runs_are_averaged_when_ratings_are_not_deterministic(tmp_path):
    from crseval.serendipity.reproduce import Rater

    s = toy()
    reqs = [
        (
            (i, "sereneva"),
            style_request(s, s.answers.iloc[i], STYLES["sereneva"], temperature=0.7),
            STYLES["sereneva"],
        )
        for i in range(3)
    ]
    store = RunStore(tmp_path / "r")
    rater = Rater(LLMClient(ScriptedBackend()), store, 3, 0.7, lambda d, n: lambda k=1: None)
    assert rater.runs == 3  # sampled ratings: three seeds each
    rated = rater.rate("toy", reqs)
    recs = store.records(Rater.STREAM)
    assert len(recs) == 9 and sorted(rated) == [(0, "sereneva"), (1, "sereneva"), (2, "sereneva")]
    first = [r["score"] for r in recs if r["key"].startswith(recs[0]["key"].rsplit("|", 1)[0])]
    assert rated[(0, "sereneva")] == pytest.approx(np.mean(first))
    assert (
        Rater(LLMClient(ScriptedBackend()), store, 3, 0.0, lambda d, n: lambda k=1: None).runs == 1
    )


def test_parts_choose_what_is_computed_and_profiles_summarise_the_past(shared, tmp_path):
    cfg = ReproduceConfig(
        serendipity2018=shared("serendipity/serendipity2018"),
        sample=6,
        n_boot=0,
        parts=["table2", "profiles"],
        llm=LLMConfig(backend="scripted"),
    )
    execute(JOB, cfg, tmp_path / "p")
    tables = {p.stem for p in (tmp_path / "p" / "tables").glob("*.csv")}
    assert tables == {"serendipity_table2", "serendipity_aux", "llm_usage"}
    aux = pd.read_csv(tmp_path / "p" / "tables" / "serendipity_aux.csv")
    assert list(aux["setting"]) == ["none (zero-shot)", "profiles"]


def test_the_protocol_reaches_table_2s_proxies(shared, tmp_path, monkeypatch):
    """`reproduce --protocol sereneva` computes Table 2's proxies and random baseline as the paper does."""
    import crseval.serendipity.reproduce as R

    seen = []

    class Seen(Exception):
        pass

    def spy(study, names, **kw):
        seen.append(kw["protocol"])
        raise Seen  # enough: what the proxies were asked for is known

    monkeypatch.setattr(R, "predictions", spy)
    cfg = ReproduceConfig(
        serendipity2018=shared("serendipity/serendipity2018"), sample=5, parts=["table2"],
        protocol="sereneva", llm=LLMConfig(backend="scripted"),
    )  # fmt: skip
    with pytest.raises(Seen):
        execute(JOB, cfg, tmp_path / "r")
    assert seen == ["sereneva"]
