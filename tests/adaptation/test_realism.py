"""Simulated against real users: each pillar against a hand computation or a library."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from crseval.adaptation import realism as R
from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.any_dialogues import DialogueSource, SourcedDialogue
from crseval.data.io import DatasetInfo


def test_weighted_auc_equals_scikit_learn_with_sample_weights_ties_included():
    rng = np.random.default_rng(0)
    scores = np.round(rng.normal(size=400), 1)  # many ties
    y = rng.integers(0, 2, 400)
    weights = rng.integers(0, 4, size=(6, 400)).astype(float)
    got = R.weighted_auc(scores, y, weights)
    want = [roc_auc_score(y, scores, sample_weight=w) for w in weights]
    assert np.allclose(got, want, atol=1e-12)
    assert np.isnan(R.weighted_auc(scores, y, (y == 1)[None, :].astype(float)))[0]


def test_the_discriminator_tells_apart_what_differs_and_not_what_does_not():
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(100), 4)
    y = (groups % 2).astype(int)
    same = rng.normal(size=(400, 5))
    auc, lo, hi = R.discriminator_auc(same, y, groups, n_boot=300)
    assert lo < 0.5 < hi
    apart = same + 3 * y[:, None]
    auc, lo, hi = R.discriminator_auc(apart, y, groups, n_boot=300)
    assert auc > 0.99 and lo > 0.95


def _frame(rows):
    return pd.DataFrame(rows)


def test_alignment_pools_turns_and_measures_the_human_floor_by_halves():
    cols = dict.fromkeys(R.FEATURES, 0.0)
    real = _frame(
        [
            {**cols, "group": f"u{i}", "question": q, "words": w, "turns": n}
            for i, (q, w, n) in enumerate([(1.0, 4, 2), (0.0, 8, 2), (0.5, 6, 4), (0.5, 6, 4)])
        ]
    )
    sim = _frame([{**cols, "group": "s", "question": 1.0, "words": 3, "turns": 3}])
    table = R.alignment({"m": sim}, real, splits=50).set_index("user_feature")
    # per-turn features pooled over turns: (1·2 + 0·2 + .5·4 + .5·4) / 12 = .5
    assert table.loc["question", "real"] == pytest.approx(0.5)
    assert table.loc["question", "gap"] == pytest.approx(0.5)
    assert table.loc["turns", "real"] == pytest.approx(3.0)  # per dialogue: a plain mean
    assert table.loc["turns", "simulated"] == 3.0
    assert table.loc["question", "human_floor"] > 0 and table.loc["turns", "human_floor"] > 0


def test_counterfactual_means_and_signs_by_hand():
    real = _frame(
        {f"{f}_a": [1.0, 3.0] for f in R.COUNTERFACTUAL}
        | {f"{f}_b": [0.0, 2.0] for f in R.COUNTERFACTUAL}
    )
    sim = _frame(
        {f"{f}_a": [0.0, 0.0, 0.0] for f in R.COUNTERFACTUAL}
        | {f"{f}_b": [1.0, 2.0, 3.0] for f in R.COUNTERFACTUAL}
    )
    table = R.counterfactual(real, sim, n_boot=200).set_index("user_feature")
    assert (table["real_diff"] == 1.0).all() and (table["sim_diff"] == -2.0).all()
    assert not table["sign_agrees"].any() and table["real_clear"].all()
    assert (table["real_pairs"] == 2).all() and (table["sim_pairs"] == 3).all()


def test_pairs_outcomes_and_real_users_grouped_by_who_they_are():
    def conv(cid, system, user_turns, satisfied):
        utts = [
            u for t in user_turns for u in (Utterance(Role.USER, t), Utterance(Role.SYSTEM, "ok"))
        ]
        return SourcedDialogue(
            Dialogue.from_utterances(cid, utts), system, {"satisfied": satisfied}
        )

    src = DialogueSource(
        DatasetInfo("arena", "-", "0"),
        "judged:arena",
        [
            conv("kbrd_redial_u1", "kbrd_redial", ["hi", "thanks!"], 1.0),
            conv("barcor_redial_u1", "barcor_redial", ["hi", "no", "not that one"], 0.0),
        ],
    )
    users = R.real_dialogues(src)
    assert {d.group for d in users} == {"user:u1"}  # one user, both dialogues of the battle
    assert [d.end for d in users] == ["satisfied", "frustrated"]
    from crseval.data.kb import load_kb
    from crseval.text.titles import TitleMatcher

    feats = R.dialogue_features(users, TitleMatcher(load_kb().movies))
    pairs = R.pairs(feats, {0: "kbrd_redial_u1"}, {0: "barcor_redial_u1"})
    assert pairs.loc[0, "turns_a"] == 2 and pairs.loc[0, "turns_b"] == 3
    assert pairs.loc[0, "accept_a"] == 0.5 and pairs.loc[0, "reject_b"] == pytest.approx(2 / 3)
    ends = R.outcomes({"real": users}).iloc[0]
    assert ends["satisfied"] == 0.5 and ends["frustrated"] == 0.5 and ends["turns"] == 2.5


def test_the_figure_draws_both_pillars(tmp_path, figures):
    disc = pd.DataFrame(
        {
            "source": ["human (split half)", "template"],
            "compared": ["floor", "simulated"],
            # the template's AUC is 1 − 1e-16 under its CI [1, 1]: a rounding, drawn without an error bar
            "discriminator_auc": [0.52, 0.9999999999999999],
            "discriminator_auc_lo": [0.48, 1.0],
            "discriminator_auc_hi": [0.56, 1.0],
        }
    )
    real = _frame(
        {f"{f}_a": [1.0, 3.0] for f in R.COUNTERFACTUAL}
        | {f"{f}_b": [0.0, 2.0] for f in R.COUNTERFACTUAL}
    )
    R.plot_realism(disc, R.counterfactual(real, real, n_boot=100), tmp_path / "f")
    R.plot_realism(disc, None, tmp_path / "g")
    assert (tmp_path / "f.png").exists() and (tmp_path / "g.png").exists()


def test_a_run_worded_from_the_reference_itself_is_flagged(tmp_path):

    from crseval.adaptation.user_validity import own_words_note

    arena = tmp_path / "arena"
    arena.mkdir()
    (arena / "crs_arena_dial_open.json").write_text("[]")

    def run(phrases):  # the run's config.json
        return {"config": {"simulator": {"phrases": phrases}}, "cwd": str(tmp_path)}

    own = run("arena/crs_arena_dial_open.json")
    assert "optimistic" in own_words_note(own, str(arena))  # the file inside the reference folder
    assert "optimistic" in own_words_note(own, str(arena / "crs_arena_dial_open.json"))
    assert own_words_note(own, str(tmp_path / "other.json")) is None
    assert own_words_note(run("bundled"), str(arena)) is None
    assert own_words_note(None, str(arena)) is None  # a run without its config.json


def test_the_discriminator_folds_no_finer_than_its_users_allow():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(40, 3)), np.r_[np.zeros(37), np.ones(3)].astype(int)
    groups = np.r_[np.arange(37), [100, 101, 102]]  # three users on one side: three folds
    auc, lo, hi = R.discriminator_auc(x, y, groups, n_boot=50)
    assert 0 <= auc <= 1
    one = np.r_[np.arange(37), [100, 100, 100]]  # one user: nothing to cross-validate
    assert np.isnan(R.discriminator_auc(x, y, one, n_boot=50)).all()
