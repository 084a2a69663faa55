"""One reader for every dialogue source, and catalogues told apart by their layout."""

import json

import pytest

from crseval.core.errors import CrsevalError
from crseval.data.any_dialogues import read_dialogues
from crseval.data.catalogs import load_catalog


@pytest.mark.parametrize(
    "relative, layout, n, system, labelled",
    [
        ("redial/test_data.jsonl", "redial", 1342, "redial-human", True),
        ("inspired", "inspired", 198, "inspired-human", True),
        (
            "judgments/uss_redial/ReDial.txt",
            "judged:uss-redial-dialogue",
            1000,
            "uss-redial-dialogue",
            False,
        ),
        ("judgments/ab_redial", "judged:ab-redial-dialogue", 195, "ab-redial-dialogue", False),
    ],
)
def test_real_sources(shared, relative, layout, n, system, labelled):
    src = read_dialogues(shared(relative))
    assert (src.layout, len(src), src.dialogues[0].system, src.labelled_mentions) == (
        layout,
        n,
        system,
        labelled,
    )
    if layout.startswith("judged"):
        assert src.dialogues[0].labels and src.scales


def test_a_shift_run_and_its_records(tmp_path):
    rec = {
        "key": "m|0",
        "model": "m",
        "session": 0,
        "turns": [{"user": "hi", "system": "Try Heat."}],
    }
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "results.jsonl").write_text(json.dumps(rec) + "\n")
    for path in (tmp_path, tmp_path / "records" / "results.jsonl"):
        src = read_dialogues(path)
        assert src.layout == "sessions" and src.dialogues[0].system == "m"
        assert [t.text for t in src.dialogues[0].dialogue.turns] == ["hi", "Try Heat."]


def test_an_unknown_layout_is_refused(tmp_path):
    with pytest.raises(CrsevalError, match="unknown layout"):
        read_dialogues(tmp_path, layout="x")


@pytest.mark.parametrize(
    "relative, name, n",
    [
        ("redial/movies_id2info.json", "redial-movies", 6583),
        ("redial", "redial-movies", 6583),
        ("opendialkg/opendialkg_movie_data.json", "opendialkg-movies", 2164),
        ("serendipity/serendipity2018/movies.csv", "movielens-movies", None),
    ],
)
def test_catalogues(shared, relative, name, n):
    cat = load_catalog(shared(relative))
    assert cat.info.name == name and (n is None or len(cat) == n)
    assert all("year" in it.attributes and "genres" in it.attributes for it in cat.items[:50])
