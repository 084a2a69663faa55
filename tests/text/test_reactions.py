"""The reaction reader and its check against ReDial's forms: readings by hand, κ against scikit-learn,
a ReDial file written here, and the shared test split's recorded κ."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from crseval.dialogues.reaction_check import form_reading, kappa
from crseval.text.reactions import reaction, refused
from tests.conftest import shared_path
from tests.support.cli import crseval


@pytest.mark.parametrize(
    "said, offer, read",
    [
        ("I loved that movie!", "", "seen"),
        ("i saw the mask, it was a good film", "", "seen"),
        ("I haven't seen it, but it sounds good", "", "accepted"),
        ("I have never seen that. What is it about?", "", "not said"),
        ("Yes!", "Have you seen Heat (1995)?", "seen"),
        ("No", "Have you seen Heat (1995)?", "not said"),  # not seen; nothing said about wanting it
        ("No", "How about Heat (1995)?", "rejected"),
        ("not really my thing", "", "rejected"),
        ("I'll check it out, thanks", "", "accepted"),
        ("Who stars in it?", "", "not said"),
    ],
)
def test_a_reply_is_read_as_the_first_reading_it_holds(said, offer, read):
    assert reaction(said, offer) == read
    assert refused(said, offer) == (read in ("seen", "rejected"))


def test_a_form_is_read_seen_first_then_liked():
    assert form_reading({"suggested": 1, "seen": 1, "liked": 0}) == "seen"
    assert form_reading({"suggested": 1, "seen": 0, "liked": 1}) == "accepted"
    assert form_reading({"suggested": 1, "seen": 2, "liked": 0}) == "rejected"
    assert form_reading({"suggested": 1, "seen": 0, "liked": 2}) == "not said"
    assert form_reading({"suggested": 0, "seen": 1, "liked": 1}) is None  # the seeker's own film


def test_kappa_is_cohens_and_its_interval_resamples_dialogues():
    rng = np.random.default_rng(0)
    a = pd.Series(rng.choice(["seen", "accepted", "rejected"], 400))
    b = a.where(rng.random(400) < 0.6, pd.Series(rng.choice(["seen", "accepted"], 400)))
    b[3] = None  # one film without the other form: left out
    k, lo, hi, agree, n = kappa(a, b, pd.Series(np.arange(400) // 4), 500, 0)
    assert k == pytest.approx(cohen_kappa_score(a.drop(3), b.drop(3)))
    assert lo < k < hi and n == 399 and agree == pytest.approx((a == b).drop(3).mean())


def redial_line(cid, messages, seeker_forms, recommender_forms):
    mentions = {m: f"Film {m} (2001)" for m in seeker_forms}
    said = [{"text": t, "senderWorkerId": w, "messageId": i} for i, (w, t) in enumerate(messages)]
    return json.dumps(
        {
            "conversationId": cid,
            "initiatorWorkerId": 1,
            "respondentWorkerId": 2,
            "movieMentions": mentions,
            "messages": said,
            "initiatorQuestions": seeker_forms,
            "respondentQuestions": recommender_forms,
        }
    )


def test_the_command_reads_each_suggested_films_reply_against_both_forms(tmp_path):
    f = tmp_path / "test_data.jsonl"
    form = lambda s, seen, liked: {"suggested": s, "seen": seen, "liked": liked}  # noqa: E731
    f.write_text(
        redial_line(
            "1",
            [
                (1, "hi, a comedy?"),
                (2, "Have you seen @10 ?"),
                (1, "yes, loved it"),
                (2, "Then try @11"),
                (1, "I will check it out"),
            ],
            {"10": form(1, 1, 1), "11": form(1, 0, 1)},
            {"10": form(1, 1, 1), "11": form(1, 0, 0)},
        )  # fmt: skip
        + "\n"
        + redial_line(
            "2",
            [(1, "I like @12"), (2, "How about @13 ?"), (1, "meh, boring")],
            {"12": form(0, 1, 1), "13": form(1, 0, 2)},
            {"12": form(0, 1, 1), "13": form(1, 0, 0)},
        )  # fmt: skip
        + "\n"
    )
    out = tmp_path / "run"
    crseval("dialogues", "reactions", f, "--n-boot", "100", "--out", out)
    table = pd.read_csv(out / "tables" / "reaction_agreement.csv").set_index(["reading", "scheme"])
    mine = table.loc[("crseval's reader", "four readings")]
    assert mine["films"] == 3 and mine["agreement"] == pytest.approx(
        2 / 3
    )  # 13: rejected vs not said
    theirs = table.loc[("the recommender's form", "four readings")]
    assert theirs["agreement"] == pytest.approx(1 / 3)  # 11 and 13 the recommender read as rejected
    confusion = pd.read_csv(out / "tables" / "reaction_confusion.csv").set_index("reader")
    assert confusion.loc["rejected", "not said"] == 1 and confusion.to_numpy().sum() == 3
    bad = crseval("dialogues", "reactions", tmp_path / "none.jsonl", check=False)
    assert bad.returncode != 0 and "none.jsonl" in bad.stderr


def test_on_redials_test_split_the_reader_is_measured_beside_the_recommenders_ceiling(tmp_path):
    data = shared_path("redial/test_data.jsonl")
    crseval("dialogues", "reactions", data, "--n-boot", "200", "--out", tmp_path / "run")
    table = pd.read_csv(tmp_path / "run" / "tables" / "reaction_agreement.csv")
    k = table.set_index(["reading", "scheme"])["reaction_kappa"]
    assert k[("crseval's reader", "four readings")] == pytest.approx(0.237, abs=0.005)
    assert k[("the recommender's form", "four readings")] == pytest.approx(0.494, abs=0.005)
    assert k[("crseval's reader", "seen or rejected (rejected repeats)")] == pytest.approx(
        0.316, abs=0.005
    )
