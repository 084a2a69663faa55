"""Every loader against the real files in ../shared/data, checked against the counts their
publishers state (skipped with a message where the data is absent)."""

from collections import Counter

import pytest

from crseval.core.types import Role
from crseval.data import load_dataset
from crseval.data.strategies import LABELS


def test_inspired_counts_labels_and_turn_grouping(shared):
    ds = load_dataset("inspired", shared("inspired"))
    by_split = Counter(d.metadata["split"] for d in ds)
    assert by_split == {"dev": 99, "test": 99}
    utts = [u for d in ds for u in d.utterances]
    assert len(utts) == 3538 + 3438
    rec = [u for u in utts if u.role is Role.RECOMMENDER]
    assert len(rec) == 1860 + 1764
    assert all(u.strategy in LABELS for u in rec)
    assert all(u.strategy is None for u in utts if u.role is Role.SEEKER)
    # consecutive recommender rows stay separate utterances of one turn
    assert any(len(t.utterances) > 1 for d in ds for t in d.turns if t.role is Role.RECOMMENDER)
    assert all(a.role != b.role for d in ds for a, b in zip(d.turns, d.turns[1:]))
    assert {d.metadata["outcome"] for d in ds} <= {
        "accept_rating_good",
        "accept_rating_mod",
        "accept_uninterested",
        "accept_others",
        "reject",
    }
    assert any(
        "malformed movie_dict" in n for n in ds.info.notes
    )  # the repaired real-file quirk is reported
    assert not any("QUOTATION_MARK" in u.text for u in utts)
    assert any("QUOTATION_MARK" in n for n in ds.info.notes)


def test_redial_mentions_resolved_and_text_decoded(shared):
    ds = load_dataset("redial", shared("redial"))
    assert len(ds) == 1342 + 901
    first = next(d for d in ds if d.id == "20001")
    assert (
        list(first.utterances)[0].text == "Hi I am looking for a movie like Super Troopers (2001)"
    )
    assert list(first.utterances)[0].items == ["Super Troopers (2001)"]
    texts = [u.text for d in ds for u in d.utterances]
    assert not any("&quot;" in t for t in texts)
    assert not any("%3F" in t for t in texts)
    titles = [i for d in ds for u in d.utterances for i in u.items]
    assert not any("  " in t for t in titles)


def test_redial_movies(shared):
    cat = load_dataset("redial-movies", shared("redial/movies_id2info.json"))
    assert len(cat) == 6583
    pari = cat.by_id["100026"]
    assert pari.title == "Pari (1995)"
    assert pari.get("year") == 1995
    assert pari.get("genres") == ["drama", "romance"]


def test_opendialkg_kb_is_normalised(shared):
    kb = load_dataset("opendialkg-movies", shared("opendialkg/opendialkg_movie_data.json"))
    assert len(kb) == 2164
    slum = next(i for i in kb if i.title == "Slumdog Millionaire")
    assert slum.get("year") == 2008
    assert isinstance(slum.get("year"), int)
    assert len(slum.get("actor")) == len(set(slum.get("actor")))  # duplicates removed
    assert "United Kingdom" not in slum.get("genres")
    assert set(slum.get("genres")) >= {"romance", "drama", "crime"}
    assert "English" in slum.get("language")
    assert "English Language" not in slum.get("language")
    assert any("United Kingdom" in n for n in kb.info.notes)  # filtered noise is reported


def test_crs_que_ratings(shared):
    r = load_dataset("crs-que", shared("judgments/crs_que/annotations.csv"))
    assert len(r.dimensions) == 18
    assert r.data["rater"].nunique() == 117
    assert len(r.data) == 1170 * 18
    gold = r.extra[r.extra["gold"]]["item"].unique()
    assert sorted(gold) == ["GOLD_001", "GOLD_002"]
    real = r.subset(items=[i for i in r.items if not i.startswith("GOLD")])
    assert len(real.items) == 200
    assert real.raters_per_item().between(4, 8).all()


def test_ab_redial_levels(shared):
    d = load_dataset("ab-redial", shared("judgments/ab_redial"))
    t = load_dataset("ab-redial-turns", shared("judgments/ab_redial"))
    assert d.scale_of("efficiency") == (0, 1)
    assert d.raters_per_item().min() >= 2
    assert set(t.dimensions) == {"relevance", "interestingness", "overall"}
    assert t.raters_per_item().min() >= 3


def test_uss_redial(shared):
    r = load_dataset("uss-redial", shared("judgments/uss_redial/ReDial.txt"))
    assert r.dimensions == ["satisfaction", "dialogue-overall"]
    turns = r.dimension("satisfaction")
    assert turns["item"].str.extract(r"^d(\d+)#")[0].astype(int).nunique() == 1000
    overall = r.dimension(
        "dialogue-overall"
    )  # the OVERALL line rates the dialogue, it is not a user turn
    assert overall["item"].nunique() == 1000 and not overall["item"].str.contains("#").any()
    assert overall[overall["item"] == "d0"]["value"].tolist() == [4, 5, 4, 4]


def test_serendipity2018(shared):
    s = load_dataset("serendipity2018", shared("serendipity/serendipity2018"))
    assert len(s) == 2150
    assert s.answers["user"].nunique() == 481
    assert s.answers["item"].nunique() == 1678
    assert sum(i in s.items for i in s.answers["item"].unique()) == 1607
    assert any(
        "71 of 1678 movies" in n for n in s.info.notes
    )  # missing metadata reported, not dropped
    row = s.answers.iloc[0]
    assert row["ground_truth"] == pytest.approx((row["s4"] + row["s5"] + row["s6"]) / 3)
    assert "gpt-rating" in s.answers


def test_taobao(shared):
    s = load_dataset("taobao-serendipity", shared("serendipity/taobao"))
    assert len(s) == 11383
    assert {"C1", "P10", "Unexpectedness"} <= set(s.answers.columns)
    assert "history" in s.unavailable
