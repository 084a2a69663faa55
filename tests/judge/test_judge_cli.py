"""`crseval judge fit` and `judge meta-eval --judge` end to end (scripted LLM), and their bad input."""

import json

import numpy as np
import pandas as pd
import pytest

from tests.support.cli import crseval


def _labelled(path, n=60, seed=0, title="Movie"):
    """Dialogues of three systems whose human label follows what the rules read (recommendations accepted);
    files of one ``title`` share dialogues, another ``title`` makes them all new."""
    rng = np.random.default_rng(seed)
    convs = []
    for i in range(n):
        q = int(rng.integers(0, 4))
        turns = [{"role": "USER", "utterance": "Any sci-fi movie?"}]
        for k in range(q + 1):
            turns += [
                {"role": "ASST", "utterance": f'Try "{title} {i}{k} (19{80 + k})".'},
                {"role": "USER", "utterance": "Great, thanks!" if k < q else "No, something else."},
            ]
        convs.append(
            {
                "conv_id": f"{['kbrd', 'barcor', 'unicrs'][i % 3]}_redial_{i}",
                "dial_level_aggregated": {
                    "dialogue_overall": float(np.clip(q + rng.normal(0, 0.4), 0, 3))
                },
                "dialogue": turns,
            }
        )
    path.write_text(json.dumps(convs))
    return path


def test_fit_then_meta_eval_with_the_fitted_judge(tmp_path):
    data = _labelled(tmp_path / "train.json")
    test = _labelled(tmp_path / "test.json", n=45, seed=1, title="Film")
    res = crseval(
        "judge",
        "fit",
        str(data),
        "--backend",
        "scripted",
        "--test",
        str(test),
        "--n-boot",
        "50",
        "--out",
        str(tmp_path / "fit"),
        "--format",
        "json",
    )
    rows = json.loads(res.stdout)["result"]
    assert {r["judge"] for r in rows} == {
        "calibrated (rules + LLM)",
        "calibrated (rules only)",
        "calibrated (LLM only)",
        "LLM: dialogue-overall question",
    }
    cv = {r["judge"]: r for r in rows}
    assert cv["calibrated (rules only)"]["pearson"] > 0.7  # the rules read what the labels follow
    judge = json.loads((tmp_path / "fit" / "judge.json").read_text())
    assert judge["format"] == "crseval-calibrated-judge/1" and judge["questions"] == [
        "dialogue-overall"
    ]
    assert judge["trained_on"][0]["data"].startswith("judged-json-dialogue@")
    transfer = pd.read_csv(tmp_path / "fit" / "tables" / "judge_transfer.csv")
    assert transfer[transfer["judge"].str.startswith("calibrated")]["pearson"].iloc[0] > 0.6
    assert (tmp_path / "fit" / "tables" / "judge_fit_paired_tests.csv").exists()

    out = tmp_path / "meta"
    res = crseval(
        "judge",
        "meta-eval",
        str(test),
        "--judge",
        str(tmp_path / "fit"),
        "--backend",
        "scripted",
        "--aspects",
        "dialogue_overall",
        "--n-boot",
        "50",
        "--out",
        str(out),
        "--format",
        "json",
    )
    meta = {r["judge"]: r for r in json.loads(res.stdout)["result"]}
    assert set(meta) == {"calibrated (judged-json-dialogue)", "scripted", "length baseline"}
    assert meta["calibrated (judged-json-dialogue)"]["pearson"] > 0.6
    assert "partial_length" in meta["scripted"] and "kendall" in meta["scripted"]
    tests = pd.read_csv(out / "tables" / "judge_paired_tests.csv")
    assert {"calibrated (judged-json-dialogue)", "scripted"} <= set(tests["judge"])
    within = pd.read_csv(out / "tables" / "judge_within_system.csv")
    assert set(within["system"]) == {"kbrd_redial", "barcor_redial", "unicrs_redial"}
    assert len(pd.read_csv(out / "tables" / "judge_system_level.csv")) == 3  # one row per judge
    scores = pd.read_csv(out / "tables" / "judge_item_scores.csv")
    assert (scores["judge"] == "calibrated (judged-json-dialogue)").sum() == 45


def test_a_transfer_is_never_measured_on_training_dialogues(tmp_path):
    data = _labelled(tmp_path / "d.json", n=30)
    res = crseval(
        "judge", "fit", str(data), "--backend", "scripted", "--test", str(data),
        "--out", str(tmp_path / "fit"), check=False,
    )  # fmt: skip
    assert res.returncode == 2 and "every item of the test set" in res.stderr
    assert len(res.stderr.strip().splitlines()) <= 3  # a short error, no traceback


def test_bad_judges_and_aspects_are_one_line_errors(tmp_path):
    data = _labelled(tmp_path / "d.json", n=30)
    bad = tmp_path / "judge.json"
    bad.write_text('{"format": "something else"}')
    for args, words in [
        (["--judge", str(bad)], "not a calibrated judge"),
        (["--judge", str(tmp_path / "missing")], "calibrated judge not found"),
        (["--aspects", "humour"], "no human labels for humour"),
    ]:
        res = crseval(
            "judge",
            "meta-eval",
            str(data),
            "--backend",
            "scripted",
            *args,
            "--out",
            str(tmp_path / "x"),
            check=False,
        )
        assert res.returncode == 2, res.stderr
        assert words in res.stderr and "Traceback" not in res.stderr


def test_an_aspect_without_a_rubric_needs_a_question(tmp_path):
    convs = json.loads(_labelled(tmp_path / "d.json", n=12).read_text())
    for c in convs:
        c["dial_level_aggregated"] = {"humour": 1.0 + len(c["dialogue"]) % 3}
    (tmp_path / "h.json").write_text(json.dumps(convs))
    res = crseval(
        "judge",
        "meta-eval",
        str(tmp_path / "h.json"),
        "--backend",
        "scripted",
        "--out",
        str(tmp_path / "x"),
        check=False,
    )
    assert res.returncode == 2 and "no rubric for the aspect 'humour'" in res.stderr
    res = crseval(
        "judge",
        "meta-eval",
        str(tmp_path / "h.json"),
        "--backend",
        "scripted",
        "--question",
        "How funny is the assistant?",
        "--n-boot",
        "0",
        "--out",
        str(tmp_path / "y"),
        "--format",
        "json",
    )
    assert {r["aspect"] for r in json.loads(res.stdout)["result"]} == {"humour"}


def test_the_bundled_sample_is_judged_on_every_aspect_it_labels(tmp_path):
    """`judge meta-eval sample` as the help offers it, no --aspects: its raters label engagement,
    which had no rubric (every test named --aspects satisfaction, and the default command failed)."""
    res = crseval(
        "judge", "meta-eval", "sample", "--backend", "scripted", "--n-boot", "0",
        "--out", tmp_path / "m", "--format", "json",
    )  # fmt: skip
    rows = json.loads(res.stdout)["result"]
    assert {r["aspect"] for r in rows} == {"engagement", "relevance", "satisfaction"}


def test_a_panel_of_identical_readings_is_degenerate(tmp_path):
    data = _labelled(tmp_path / "d.json", n=20)
    panel = tmp_path / "panel.toml"
    panel.write_text(
        '[[judges]]\nname = "cold"\n[judges.llm]\nbackend = "scripted"\n\n'
        '[[judges]]\nname = "warm"\n[judges.llm]\nbackend = "scripted"\ntemperature = 0.8\n'
    )
    crseval(
        "judge",
        "meta-eval",
        str(data),
        "--panel",
        str(panel),
        "--judge",
        "none",
        "--n-boot",
        "20",
        "--out",
        str(tmp_path / "p"),
    )
    rel = pd.read_csv(tmp_path / "p" / "tables" / "judge_panel_reliability.csv")
    assert rel["degenerate"].all() and (rel["icc1_band"] == "degenerate (identical readings)").all()
    gain = pd.read_csv(tmp_path / "p" / "tables" / "judge_panel_gain.csv")
    assert gain["panel_gain"].abs().max() < 1e-9


@pytest.mark.slow  # fits three designs with nested CV, twice through the CLI
def test_decomposed_questions_are_asked_per_assistant_turn(tmp_path):
    data = _labelled(tmp_path / "d.json", n=24)
    turns = sum(
        1 for c in json.loads(data.read_text()) for u in c["dialogue"] if u["role"] == "ASST"
    )
    out = tmp_path / "fit"
    res = crseval(
        "judge",
        "fit",
        str(data),
        "--backend",
        "scripted",
        "--questions",
        "turn-satisfied",
        "--n-boot",
        "0",
        "--out",
        str(out),
        "--format",
        "json",
    )
    assert "decomposed: turn-satisfied (mean P(yes))" in {
        r["judge"] for r in json.loads(res.stdout)["result"]
    }
    records = [
        json.loads(line) for line in (out / "records" / "judgments.jsonl").read_text().splitlines()
    ]
    assert len(records) == turns and all("#q" in r["item"] for r in records)
    judge = json.loads((out / "judge.json").read_text())
    assert judge["features"][-3:] == [
        "turn-satisfied:mean",
        "turn-satisfied:min",
        "turn-satisfied:last",
    ]
    res = crseval(
        "judge",
        "fit",
        str(data),
        "--level",
        "turn",
        "--backend",
        "scripted",
        "--questions",
        "turn-satisfied",
        "--out",
        str(tmp_path / "t"),
        check=False,
    )
    assert res.returncode == 2 and "dialogue level only" in res.stderr


def test_a_panel_that_mixes_prompts_is_not_degenerate(tmp_path):
    data = _labelled(tmp_path / "d.json", n=20)
    panel = tmp_path / "panel.toml"
    panel.write_text(
        '[[judges]]\nname = "rubric"\n[judges.llm]\nbackend = "scripted"\n\n'
        '[[judges]]\nname = "plain"\nquestion = "Was the user happy at the end?"\n'
        '[judges.llm]\nbackend = "scripted"\n'
    )
    crseval(
        "judge",
        "meta-eval",
        str(data),
        "--panel",
        str(panel),
        "--n-boot",
        "20",
        "--out",
        str(tmp_path / "p"),
    )
    rel = pd.read_csv(tmp_path / "p" / "tables" / "judge_panel_reliability.csv")
    assert not rel["degenerate"].any()
    records = [
        json.loads(x)
        for x in (tmp_path / "p" / "records" / "judgments.jsonl").read_text().splitlines()
    ]
    assert len({r["prompt"] for r in records}) == 2  # two prompts, recorded per rating


def test_meta_eval_against_published_predictions(tmp_path):
    """A FACE-layout prediction file becomes a row on the same items, a side of the paired tests and of the
    system level; its correlation is the one computed from the file by hand."""
    data = _labelled(tmp_path / "d.json", n=30)
    convs = json.loads(data.read_text())
    rng = np.random.default_rng(5)
    pred = {
        c["conv_id"]: c["dial_level_aggregated"]["dialogue_overall"] + rng.normal(0, 0.5)
        for c in convs[1:]
    }
    face = tmp_path / "face_run.json"
    face.write_text(
        json.dumps(
            [
                {"conv_id": k, "dial_level_pred": {"dialogue_overall": v}, "turns": []}
                for k, v in pred.items()
            ]
        )
    )
    out = tmp_path / "meta"
    res = crseval(
        "judge",
        "meta-eval",
        str(data),
        "--judge",
        "none",
        "--backend",
        "scripted",
        "--reference",
        str(face),
        "--n-boot",
        "50",
        "--out",
        str(out),
        "--format",
        "json",
    )
    rows = {r["judge"]: r for r in json.loads(res.stdout)["result"]}
    human = {c["conv_id"]: c["dial_level_aggregated"]["dialogue_overall"] for c in convs}
    want = np.corrcoef([pred[k] for k in pred], [human[k] for k in pred])[0, 1]
    assert (
        rows["published: face_run"]["n"] == 29 and rows["published: face_run"]["failed"] == 1
    )  # one missing
    assert rows["published: face_run"]["pearson"] == pytest.approx(want, abs=1e-3)
    tests = pd.read_csv(out / "tables" / "judge_paired_tests.csv")
    assert ((tests["judge"] == "scripted") & (tests["versus"] == "published: face_run")).any()
    level = pd.read_csv(out / "tables" / "judge_system_level.csv").set_index("judge")
    assert level.loc["published: face_run", "systems"] == 3
    assert {"kendall", "kendall_lo", "kendall_hi", "spearman_lo"} <= set(level.columns)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"conv_id": "nobody", "dial_level_pred": {"dialogue_overall": 1}}]))
    res = crseval(
        "judge",
        "meta-eval",
        str(data),
        "--backend",
        "scripted",
        "--reference",
        str(bad),
        "--out",
        str(tmp_path / "x"),
        check=False,
    )
    assert res.returncode == 2 and "no dialogue-level prediction matches" in res.stderr


def _turn_labelled(path, n=48, seed=0, closing="And another one?"):
    """CRSArena-Eval's layout: replies that answer the user's request (relevance 2) or not (0), each turn
    labelled; the dialogue's overall label follows its share of relevant replies. (Files of one
    ``closing`` may repeat a dialogue by chance; another ``closing`` makes every dialogue new.)"""
    rng = np.random.default_rng(seed)
    good = ["The sci-fi movie Alien is a classic.", "Blade Runner is a great sci-fi film."]
    bad = ["I like turtles.", "The weather is nice.", "Banana bread."]
    convs = []
    for i in range(n):
        turns, rel = [{"role": "USER", "utterance": "Any sci-fi movie?"}], []
        quality = rng.random()  # the share of this system's replies that answer the request
        for k in range(int(rng.integers(2, 5))):
            ok = bool(rng.random() < quality)
            rel.append(2 * ok)
            turns += [
                {
                    "role": "ASST",
                    "utterance": f"{(good if ok else bad)[int(rng.integers(0, 2))]} ({k})",  # no repeats
                    "turn_level_aggregated": {"relevance": 2 * ok, "interestingness": int(ok)},
                },
                {"role": "USER", "utterance": closing},
            ]
        convs.append(
            {
                "conv_id": f"{['kbrd', 'barcor', 'unicrs'][i % 3]}_redial_user{i // 2}",
                "dial_level_aggregated": {"dialogue_overall": round(float(np.mean(rel)), 1)},
                "dialogue": turns,
            }
        )
    path.write_text(json.dumps(convs))
    return path


@pytest.mark.slow  # cross-fitted turn models inside nested CV, then a second data set: ~1 min
def test_a_judge_with_a_turn_model_is_fitted_and_reused_without_an_llm(tmp_path):
    data = _turn_labelled(tmp_path / "train.json")
    test = _turn_labelled(tmp_path / "test.json", n=24, seed=1, closing="One more?")
    convs = json.loads(data.read_text())
    face = (
        tmp_path / "face.json"
    )  # another judge's predictions in the FACE layout: the length of the talk
    face.write_text(
        json.dumps(
            [
                {
                    "conv_id": c["conv_id"],
                    "dial_level_pred": {"dialogue_overall": len(c["dialogue"])},
                }
                for c in convs
            ]
        )
    )
    res = crseval(
        "judge", "fit", str(data), "--questions", "none", "--turn-model", "--encoder", "minilm",
        "--reference", str(face),
        "--n-boot", "50", "--out", str(tmp_path / "fit"), "--format", "json",
    )  # fmt: skip
    cv = {r["judge"]: r for r in json.loads(res.stdout)["result"]}
    assert set(cv) == {
        "calibrated (rules + turn model)",
        "calibrated (rules only)",
        "published: face",
    }
    assert (
        cv["calibrated (rules + turn model)"]["pearson"] > 0.8
    )  # what the turns say, read per turn
    length = [len(c["dialogue"]) for c in convs]
    human = [c["dial_level_aggregated"]["dialogue_overall"] for c in convs]
    assert cv["published: face"]["pearson"] == pytest.approx(
        np.corrcoef(length, human)[0, 1], abs=1e-3
    )
    level = pd.read_csv(tmp_path / "fit" / "tables" / "judge_fit_system_level.csv")
    assert set(level["judge"]) >= {"calibrated (rules + turn model)", "published: face"}
    assert (level["systems"] == 3).all()
    scores = pd.read_csv(tmp_path / "fit" / "tables" / "judge_fit_item_scores.csv")
    assert (scores["judge"] == "calibrated (rules + turn model)").sum() == len(convs)
    judge = json.loads((tmp_path / "fit" / "judge.json").read_text())
    assert judge["questions"] == [] and judge["turn_model"]["encoder"] == "minilm"
    assert set(judge["turn_model"]["models"]) == {"relevance", "interestingness"}
    coefs = pd.read_csv(tmp_path / "fit" / "tables" / "judge_coefficients.csv")
    assert "turn:relevance:mean" in set(coefs["feature"])

    res = crseval(
        "judge", "meta-eval", str(test), "--judge", str(tmp_path / "fit"), "--backend", "scripted",
        "--n-boot", "50", "--out", str(tmp_path / "meta"), "--format", "json",
    )  # fmt: skip
    meta = {r["judge"]: r for r in json.loads(res.stdout)["result"]}
    assert meta["calibrated (judged-json-dialogue)"]["pearson"] > 0.8
    assert set(meta) == {"calibrated (judged-json-dialogue)", "length baseline"}  # nothing asked
    res = crseval(
        "judge", "meta-eval", str(data), "--judge", str(tmp_path / "fit"), "--backend", "scripted",
        "--n-boot", "0", "--out", str(tmp_path / "own"), "--format", "json",
    )  # fmt: skip
    assert json.loads(res.stdout)["notes"][0].startswith("IN-SAMPLE")  # its own training data
    # an aspect the judge does not rate: only the LLM's question answers, so nothing is in-sample
    for c in convs:
        c["dial_level_aggregated"]["understanding"] = c["dial_level_aggregated"]["dialogue_overall"]
    (tmp_path / "two.json").write_text(json.dumps(convs))
    res = crseval(
        "judge", "meta-eval", str(tmp_path / "two.json"), "--judge", str(tmp_path / "fit"),
        "--aspects", "understanding", "--backend", "scripted", "--n-boot", "0",
        "--out", str(tmp_path / "two"), "--format", "json",
    )  # fmt: skip
    out = json.loads(res.stdout)
    assert "notes" not in out and not any(
        r["judge"].startswith("calibrated") for r in out["result"]
    )
    # five of its training dialogues under opaque ids, merged into a file of new ones: counted item by item
    new = json.loads(test.read_text())
    merged = new + [dict(c, conv_id=f"sys{k}_redial_anon{k}") for k, c in enumerate(convs[:5])]
    (tmp_path / "merged.json").write_text(json.dumps(merged))
    said = {json.dumps([t["utterance"] for t in c["dialogue"]]) for c in convs}
    seen = sum(json.dumps([t["utterance"] for t in c["dialogue"]]) in said for c in merged)
    res = crseval(
        "judge", "meta-eval", str(tmp_path / "merged.json"), "--judge", str(tmp_path / "fit"),
        "--backend", "scripted", "--n-boot", "0", "--out", str(tmp_path / "merged"),
        "--format", "json",
    )  # fmt: skip
    assert seen == 5  # by hand: the same utterances
    out = json.loads(res.stdout)
    assert f"on {seen} of the {len(merged)} items" in out["notes"][0]
    # …and the judge is also scored on the dialogues it never saw, alone
    unseen = {r["judge"]: r for r in out["result"]}[
        "calibrated (judged-json-dialogue), unseen items"
    ]
    assert unseen["n"] == len(merged) - seen
    scores = pd.read_csv(tmp_path / "merged" / "tables" / "judge_item_scores.csv")
    mine = scores[scores["judge"] == "calibrated (judged-json-dialogue), unseen items"]
    fresh = {
        c["conv_id"]
        for c in merged
        if json.dumps([t["utterance"] for t in c["dialogue"]]) not in said
    }
    assert set(mine.dropna(subset=["score"])["item"]) == fresh


def _judged_anew(tmp_path) -> float:
    """Pearson of the judge fitted in ``tmp_path/fit`` on 24 dialogues it never saw (another closing line)."""
    test = _turn_labelled(tmp_path / "test.json", n=24, seed=1, closing="One more?")
    res = crseval(
        "judge", "meta-eval", str(test), "--judge", str(tmp_path / "fit"), "--backend", "scripted",
        "--n-boot", "0", "--out", str(tmp_path / "meta"), "--format", "json",
    )  # fmt: skip
    meta = {r["judge"]: r for r in json.loads(res.stdout)["result"]}
    return meta["calibrated (judged-json-dialogue)"]["pearson"]


def test_a_judge_without_the_rules_reads_only_its_turn_model(tmp_path):
    """`--no-rules`: the rules stay an ablation row of the CV table, but are no evidence of the judge."""
    data = _turn_labelled(tmp_path / "train.json")
    res = crseval(
        "judge", "fit", str(data), "--questions", "none", "--turn-model", "--no-rules",
        "--encoder", "hashing", "--n-boot", "0", "--out", str(tmp_path / "fit"), "--format", "json",
    )  # fmt: skip
    cv = {r["judge"]: r for r in json.loads(res.stdout)["result"]}
    assert set(cv) == {"calibrated (turn model)", "calibrated (rules only)"}
    assert cv["calibrated (turn model)"]["pearson"] > 0.8
    judge = json.loads((tmp_path / "fit" / "judge.json").read_text())
    assert judge["rules"] is False and all(f.startswith("turn:") for f in judge["features"])
    assert _judged_anew(tmp_path) > 0.8
    res = crseval(
        "judge", "fit", str(data), "--questions", "none", "--no-rules", "--out",
        str(tmp_path / "x"), check=False,
    )  # fmt: skip
    assert res.returncode == 2 and "leaves the judge no evidence" in res.stderr


def test_a_compact_judge_reads_the_mean_of_each_piece_of_evidence(tmp_path):
    """`--compact`: the question's expected score and the turn model's mean turn per aspect, beside the
    whole rules; its signature says so, and the saved judge reads the same columns when it judges."""
    data = _turn_labelled(tmp_path / "train.json")
    res = crseval(
        "judge", "fit", str(data), "--turn-model", "--compact", "--encoder", "hashing",
        "--backend", "scripted", "--n-boot", "0", "--out", str(tmp_path / "fit"), "--format", "json",
    )  # fmt: skip
    out = json.loads(res.stdout)
    assert "|compact" in out["signature"] and "|compact:True" in out["signature"]
    judge = json.loads((tmp_path / "fit" / "judge.json").read_text())
    from crseval.judge.features import NAMES

    asked = [f for f in judge["features"] if f not in NAMES]
    assert judge["compact"] is True and judge["features"][: len(NAMES)] == NAMES
    assert asked == ["dialogue-overall:mean", "turn:interestingness:mean", "turn:relevance:mean"]
    coefs = pd.read_csv(tmp_path / "fit" / "tables" / "judge_coefficients.csv")
    assert set(coefs["feature"]) == set(judge["features"])
    assert _judged_anew(tmp_path) > 0.8


def test_systems_can_be_held_out_whole(tmp_path):
    """Leave-one-system-out: each CRS is scored by a model fitted on the others (as many outer folds as
    systems), per CRS with a CI and pooled over the same out-of-fold predictions the CV table reads."""
    data = _turn_labelled(tmp_path / "t.json")
    res = crseval(
        "judge", "fit", str(data), "--questions", "none", "--cv-groups", "system", "--n-boot", "200",
        "--out", str(tmp_path / "fit"), "--format", "json",
    )  # fmt: skip
    signature = json.loads(res.stdout)["signature"]
    assert signature.count("|cv_groups:system") == 1
    assert "nested-grouped-cv(leave-one-system-out,inner 5-fold)" in signature
    held = pd.read_csv(tmp_path / "fit" / "tables" / "judge_fit_held_out.csv")
    design = held[held["judge"] == "calibrated (rules)"].set_index("system")
    assert set(design.index) == {"kbrd_redial", "barcor_redial", "unicrs_redial", "all (pooled)"}
    assert design["n"].drop("all (pooled)").sum() == design.loc["all (pooled)", "n"] == 48
    assert (design["pearson_lo"] <= design["pearson"]).all()
    assert (design["pearson"] <= design["pearson_hi"]).all()
    cv = pd.read_csv(tmp_path / "fit" / "tables" / "judge_fit_cv.csv").set_index("judge")
    pooled = design.loc["all (pooled)", "pearson"]
    assert pooled == pytest.approx(cv.loc["calibrated (rules)", "pearson"])
    convs = json.loads(data.read_text())
    for i, c in enumerate(convs):
        c["conv_id"] = str(i)  # ids that name no system
    (tmp_path / "plain.json").write_text(json.dumps(convs))
    res = crseval(
        "judge", "fit", str(tmp_path / "plain.json"), "--questions", "none", "--cv-groups",
        "system", "--out", str(tmp_path / "x"), check=False,
    )  # fmt: skip
    assert res.returncode == 2 and "no systems in the item ids" in res.stderr
    # beside a set that names its systems, a set that names none is one system of its own (AB-ReDial's
    # human recommenders): held out once, in the training folds of every other, pooled per set as well
    crseval(
        "judge", "fit", str(data), str(tmp_path / "plain.json"), "--questions", "none", "--cv-groups",
        "system", "--n-boot", "50", "--out", str(tmp_path / "both"),
    )  # fmt: skip
    held = pd.read_csv(tmp_path / "both" / "tables" / "judge_fit_held_out.csv")
    n = held[held["judge"] == "calibrated (rules)"].set_index("system")["n"]
    crss = {"kbrd_redial", "barcor_redial", "unicrs_redial"}
    (plain,) = [s for s in n.index if s not in crss and not s.startswith("all")]
    assert n[plain] == 48 and n["all (pooled)"] == 96
    assert (
        n["all of set 1 (judged-json-dialogue, pooled)"]
        == n["all of set 2 (judged-json-dialogue, pooled)"]
        == 48
    )


def test_a_turn_model_needs_turn_labels_and_dialogue_level(tmp_path):
    for args, words in [
        ([str(_labelled(tmp_path / "d.json", n=30))], "no per-turn labels in the training sets"),
        ([str(_turn_labelled(tmp_path / "t.json")), "--level", "turn"], "dialogue level only"),
    ]:
        res = crseval(
            "judge", "fit", *args, "--questions", "none", "--turn-model", "--out",
            str(tmp_path / "x"), check=False,
        )  # fmt: skip
        assert res.returncode == 2, res.stderr
        assert words in res.stderr and "Traceback" not in res.stderr


def test_a_turn_model_reads_the_llms_hidden_states_from_the_questions_prompt(tmp_path):
    """`--llm-states`: the question's request asks for each utterance's hidden states (the scripted
    backend's pseudo-states: a hashed bag of its words); the turn model learns from a reply's and the
    user's next message's beside the encoder,
    the judge saves them as part of its turn features and asks for them again when it judges."""
    data = _turn_labelled(tmp_path / "train.json")
    res = crseval(
        "judge", "fit", str(data), "--turn-model", "--llm-states", "--no-rules", "--encoder",
        "hashing", "--backend", "scripted", "--n-boot", "0", "--out", str(tmp_path / "fit"),
        "--format", "json",
    )  # fmt: skip
    cv = {r["judge"]: r for r in json.loads(res.stdout)["result"]}
    assert cv["calibrated (LLM + turn model with LLM states)"]["pearson"] > 0.8
    records = [
        json.loads(line) for line in (tmp_path / "fit" / "records" / "judgments.jsonl").open()
    ]
    convs = json.loads(data.read_text())
    assert len(records) == len(convs) and all(r["key"].endswith("|hidden") for r in records)
    from crseval.llm.base import decode_states

    first = next(r for r in records if r["item"].endswith(convs[0]["conv_id"]))
    utterances = len(convs[0]["dialogue"])
    assert decode_states(first["hidden"]).shape == (utterances, 17)  # one row per utterance
    judge = json.loads((tmp_path / "fit" / "judge.json").read_text())
    assert judge["turn_model"]["states"] is True
    assert judge["turn_model"]["features"].endswith("(token mean, last token)")
    from crseval.text.embed import Hashing

    # 2 × the encoder's width (reply, reply × user turn) + cosine, length, position + 17 pseudo-states
    # of the reply and 17 of the user's next message
    width = 2 * Hashing.dim + 3 + 2 * 17
    assert len(judge["turn_model"]["models"]["relevance"]["coef"]) == width
    assert _judged_anew(tmp_path) > 0.8
    res = crseval(
        "judge", "fit", str(data), "--questions", "none", "--turn-model", "--llm-states",
        "--out", str(tmp_path / "x"), check=False,
    )  # fmt: skip
    assert (
        res.returncode == 2 and "add --turn-model and ask a dialogue-level question" in res.stderr
    )
    # a backend that gives no hidden states is refused up front, with the engine that does
    res = crseval(
        "judge", "fit", str(data), "--turn-model", "--llm-states", "--no-rules", "--encoder",
        "hashing", "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1",
        "--out", str(tmp_path / "y"), check=False,
    )  # fmt: skip
    assert res.returncode == 2 and "gives its hidden states; openai" in res.stderr
    assert "--backend llamacpp" in res.stderr and "Traceback" not in res.stderr


def test_the_outer_folds_are_a_signed_parameter_that_the_cv_uses(tmp_path):
    """The fold count reaches the signature from the config, not from a literal, and the CV runs it."""
    data = _turn_labelled(tmp_path / "t.json")
    fits = {}
    for folds in (5, 3):
        res = crseval(
            "judge", "fit", str(data), "--questions", "none", "--folds", str(folds), "--n-boot", "0",
            "--out", str(tmp_path / f"fit{folds}"), "--format", "json",
        )  # fmt: skip
        signature = json.loads(res.stdout)["signature"]
        assert f"nested-grouped-cv({folds}-fold,inner 5-fold)" in signature
        assert f"|folds:{folds}" in signature
        cv = pd.read_csv(tmp_path / f"fit{folds}" / "tables" / "judge_fit_cv.csv").set_index(
            "judge"
        )
        fits[folds] = cv.loc["calibrated (rules)", "pearson"]
    assert fits[3] != pytest.approx(fits[5], abs=1e-9)
