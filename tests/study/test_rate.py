"""Rate mode: raters rate existing dialogues on the study's questionnaire — each dialogue by at most
`raters` people, none twice, a gold dialogue among each rater's, a wrong gold answer failing the check —
and the ratings export in CRS-Que's layout for `crseval reliability`."""

from sqlalchemy import select

from crseval.study.db import assigned
from crseval.study.dialogues import dialogue_ids
from tests.study.conftest import CSRF, enrol, make_client
from tests.support.cli import crseval


def rate_study(tmp_path, db_url, **more):
    from crseval.study.config import study_from

    gold_id = dialogue_ids(study_from({"name": "r", "mode": "rate", "dialogues": "sample"}))[0]
    overrides = dict(
        mode="rate", pairs=False, systems=[], dialogues="sample", raters=2, per_rater=4
    )
    overrides["gold"] = {gold_id: {"sentiment": "satisfied"}}
    return (*make_client(tmp_path, db_url, **overrides | more), gold_id)


def rate_all(client, token, k):
    page, n = client.get(f"/p/{token}"), 0
    while "submit-answers" in page.text:
        n += 1  # answers that differ between raters and dialogues
        data = {"csrf": CSRF.search(page.text).group(1), "q_accuracy": str(1 + (k + n) % 5)}
        data["q_satisfaction"] = str(1 + (k * n) % 5)
        data |= {"q_attention": "4", "q_sentiment": "satisfied"}
        page = client.post(f"/p/{token}/answers", data=data)
    return page


def test_raters_rate_what_needs_ratings_none_twice_and_the_export_reads_in_reliability(
    tmp_path, db_url
):
    client, config, engine, gold = rate_study(tmp_path, db_url)
    page, token = enrol(client, "R0")
    assert "Dialogue 1 of 4" in page.text and 'class="turn user"' in page.text
    for k in range(5):
        if k:
            client.cookies.clear()
            _, token = enrol(client, f"R{k}")
        done = rate_all(client, token, k)
        assert config.completion["completed"].code in done.text
    with engine.connect() as c:
        given = c.execute(select(assigned.c.participant, assigned.c.dialogue)).all()
    assert len(given) == len(set(given))  # none rates a dialogue twice
    per = {}
    for _, d in given:
        per[d] = per.get(d, 0) + 1
    assert max(v for d, v in per.items() if d != gold) <= config.raters
    assert per[gold] == 5  # every rater rates the gold one
    from crseval.study.export import export

    export(engine, config, tmp_path / "out")
    res = crseval(
        "reliability",
        "analyze",
        tmp_path / "out" / "ratings.csv",
        "--preset",
        "crs-que",
        "--out",
        tmp_path / "rel",
    )
    assert "accuracy" in res.stdout


def test_a_wrong_answer_on_the_gold_dialogue_fails_the_check(tmp_path, db_url):
    client2, config2, _, gold = rate_study(tmp_path, db_url)
    _, token = enrol(client2, "G1")
    page = client2.get(f"/p/{token}")
    while "submit-answers" in page.text:  # "frustrated" everywhere: wrong on the gold dialogue
        data = {"csrf": CSRF.search(page.text).group(1), "q_accuracy": "4", "q_satisfaction": "2"}
        data |= {"q_attention": "4", "q_sentiment": "frustrated"}
        page = client2.post(f"/p/{token}/answers", data=data)
    assert config2.completion["failed_check"].code in page.text
