"""The judge meta-evaluation job recovers a known-good judge and reports panels."""

import numpy as np
import pytest

from crseval.core.types import Dialogue, Role, Utterance
from crseval.data.io import DatasetInfo
from crseval.data.judged_types import JudgedItem, JudgedSet
from crseval.api import context
from crseval.judge.job import JudgeMetaConfig, meta_eval
from crseval.judge.judging import Judge
from crseval.llm import ChatResponse, LLMClient
from crseval.llm.scripted import ScriptedBackend
from crseval.runs import RunStore


def _dialogue(i, quality):
    reply = "Great pick: " + "a thoughtful recommendation " * quality
    return Dialogue.from_utterances(
        f"d{i}", [Utterance(Role.USER, f"I want movie {i}"), Utterance(Role.SYSTEM, reply)]
    )


def oracle(noise, seed):
    """A scripted judge whose expected score follows the quality hidden in the transcript length."""
    rng = np.random.default_rng(seed)

    def respond(req):
        q = req.messages[-1].content.count("thoughtful")
        center = np.clip(1 + q + rng.normal(0, noise), 1, 5)
        w = np.exp(-((np.arange(1, 6) - center) ** 2))
        return ChatResponse(
            str(int(round(center))),
            choice_probs={str(d): float(p) for d, p in zip(range(1, 6), w / w.sum())},
        )

    return respond


@pytest.fixture
def judged():
    rng = np.random.default_rng(0)
    quality = rng.integers(0, 5, 40)
    items = [
        JudgedItem(f"d{i}", _dialogue(i, int(q)), {"overall": float(1 + q)})
        for i, q in enumerate(quality)
    ]
    return JudgedSet(DatasetInfo("toy", "-", "0"), "dialogue", items)


def test_meta_eval_recovers_a_known_good_judge_and_reports_panels(tmp_path, judged):
    judges = [
        Judge("good", LLMClient(ScriptedBackend(oracle(0.2, 1)))),
        Judge("noisy", LLMClient(ScriptedBackend(oracle(2.0, 2))), samples=3, temperature=0.7),
    ]
    config = JudgeMetaConfig(data=tmp_path, n_boot=200)
    out, table, _ = meta_eval(
        config, judged, judges, None, None, context(RunStore(tmp_path / "run"))
    )
    table = table.set_index("judge")
    assert table.loc["good", "pearson"] > 0.9 > table.loc["noisy", "pearson"]
    assert (
        table.loc["good", "pearson_lo"]
        <= table.loc["good", "pearson"]
        <= table.loc["good", "pearson_hi"]
    )
    assert "length baseline" in table.index
    assert "panel mean" in table.index
    rel = out.tables["judge_panel_reliability"]
    assert rel.loc[0, "n_raters"] == 4  # good#s0 + noisy#s0..s2 are the panel's raters
    mon = out.tables["judge_mean_of_n"]
    assert list(mon["n_judges"]) == [1, 2, 3, 4]
    items = out.tables["judge_item_scores"]  # the drill-down per item
    assert len(items) == 80  # 40 dialogues × 2 judges, one row each
    assert {"item", "aspect", "judge", "score", "failed", "human", "length"} <= set(items.columns)
    good = items[items["judge"] == "good"]
    from scipy import stats as st

    assert st.pearsonr(good["score"], good["human"])[0] == pytest.approx(
        table.loc["good", "pearson"]
    )


def test_a_calibrated_judge_joins_a_panel_as_one_more_member(tmp_path):
    """Panels mix decompositions: the calibrated judge (decomposed questions + learned weights) rates beside
    single-question members; here a hand-made judge whose only weight is on the number of turns."""
    import json

    from crseval.judge.calibrated import SHIPPED, CalibratedJudge
    from crseval.judge.features import NAMES, transcript_features

    raw = json.loads(SHIPPED["redial"].read_text())
    m = raw["models"]["dialogue-overall"]
    m.update(
        mean=[0.0] * len(m["mean"]),
        std=[1.0] * len(m["std"]),
        coef=[0.0] * len(m["coef"]),
        intercept=0.0,
        human_scale=[0, 100],
    )
    m["coef"][raw["features"].index("turns")] = 1.0
    raw.update(name="turns-only", llm={"backend": "scripted", "model": "scripted"})
    (tmp_path / "judge.json").write_text(json.dumps(raw))
    calibrated = CalibratedJudge.load(tmp_path / "judge.json")
    items = []
    for i, q in enumerate([0, 1, 2, 3, 4, 1, 2, 3]):
        utts = [
            u
            for k in range(q + 1)
            for u in (
                Utterance(Role.USER, f"movie {i}?"),
                Utterance(Role.SYSTEM, "a thoughtful pick"),
            )
        ]
        items.append(
            JudgedItem(
                f"d{i}", Dialogue.from_utterances(f"d{i}", utts), {"dialogue-overall": float(1 + q)}
            )
        )
    judged = JudgedSet(DatasetInfo("toy", "-", "0"), "dialogue", items)
    judges = [
        Judge("good", LLMClient(ScriptedBackend(oracle(0.2, 1)))),
        Judge("noisy", LLMClient(ScriptedBackend(oracle(2.0, 2))), samples=2, temperature=0.7),
    ]
    config = JudgeMetaConfig(
        data=tmp_path, n_boot=50, panel=tmp_path / "panel.toml"
    )  # a panel's run
    out, table, _ = meta_eval(
        config, judged, judges, calibrated, None, context(RunStore(tmp_path / "run"))
    )
    table = table.set_index("judge")
    name = "calibrated (turns-only)"
    assert {"good", "noisy", name, "panel mean"} <= set(table.index)
    scores = out.tables["judge_item_scores"]
    mine = scores[scores["judge"] == name].set_index("item")["score"]
    for it in (
        items
    ):  # the prediction (turns, on the judge's 0–100 scale) mapped onto the set's 1–5, then kept
        turns = transcript_features(it.dialogue)[NAMES.index("turns")]
        assert mine[it.id] == pytest.approx(1 + 4 * turns / 100)
    rel = out.tables["judge_panel_reliability"]
    assert rel.loc[0, "n_raters"] == 4  # good, noisy × 2 samples, and the calibrated judge
    gain = out.tables["judge_panel_gain"]
    assert gain.loc[0, "best_member"] in {"good", "noisy", name}
