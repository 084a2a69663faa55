"""What a card rests on, said on it: the catalogue (named by every command; one line when a CRS's titles
mostly fall outside it), the sessions that ran and failed, and one protocol in every part."""

import json

from crseval.data.kb import load_kb
from tests.support.cli import crseval


def _card(crs: str, out, *more, **kw):
    """A small --no-llm card of one of this module's CRSs against the template, as JSON."""
    res = crseval(
        "evaluate-crs", f"tests.card.test_rests_on_cli:{crs}", "--no-llm", "--against", "template",
        "--turns", "4", "--n-boot", "200", "--out", out, "--format", "json", *more, **kw,
    )  # fmt: skip
    return res, json.loads(res.stdout.split("\nreport:")[0])


def redial_crs(history):
    return "You should watch Pari (1995), or maybe Sholay (1975)."


def test_a_crs_of_another_catalogue_gets_one_line_naming_the_option(tmp_path):
    notes = _card("redial_crs", tmp_path / "run", "--sessions", "6")[1]["notes"]
    named = [n for n in notes if n.startswith("catalogue: sample-movies@")]
    outside = [n for n in notes if n.startswith("most titles recommended are not in sample-movies")]
    assert len(named) == 1 and "--kb" in named[0]
    assert len(outside) == 1 and "redial_crs 100%" in outside[0] and "--kb" in outside[0]
    assert "template" not in outside[0]  # the references are not yours


def test_dialogue_metrics_name_their_catalogue_and_flag_systems_outside_it(tmp_path):
    res = crseval("dialogues", "metrics", "sample", "--out", tmp_path / "d", "--format", "json")
    notes = json.loads(res.stdout.split("\nreport:")[0])["notes"]
    assert any(n.startswith("catalogue: sample-movies@") and "--catalog" in n for n in notes)


def test_one_catalogue_file_is_named_the_same_by_every_command(shared):
    path = shared("redial/movies_id2info.json")
    from crseval.data.catalogs import load_catalog

    assert load_kb(path).info.signature() == load_catalog(path).info.signature()
    assert load_kb(path).info.name == "redial-movies"


def flaky_crs(history):
    if len(history[0]["text"]) % 2:  # about half the simulated users' openings
        raise RuntimeError("flaky backend")
    return "How about Heat (1995)?"


def test_a_crs_failing_in_half_its_sessions_shows_n_and_its_failures_on_the_card(tmp_path):
    out = tmp_path / "run"
    payload = _card("flaky_crs", out, "--sessions", "12", "--keep-going")[1]
    card = {r["label"]: r for r in payload["result"]}
    # TAS is defined in every session that ran (the follow rate only where a shift was logged)
    tas = card["TAS"]
    used, planned = map(int, tas["n"].split("/"))
    assert planned == 12 and 0 < used < 12
    assert tas["flaky_crs"].endswith("†") == (used < 0.8 * 12)
    failed = [n for n in payload["notes"] if n.startswith("flaky_crs:")]
    assert len(failed) == 1 and f"{12 - used} of 12 sessions failed in shift" in failed[0]
    assert "RuntimeError: flaky backend" in failed[0]
    # the report card says the same as the terminal
    html = (out / "report.html").read_text(encoding="utf-8")
    assert f"{12 - used} of 12 sessions failed in shift" in html


def last_turn_crs(history):
    last = history[-1]  # the protocol: the history ends with the user's turn, in every part
    if last["speaker"] != "user":
        raise ValueError(f"the history ends with {last['speaker']}")
    return f"How about Heat (1995)? You said: {last['text'][:20]}"


def test_a_crs_that_reads_the_last_user_turn_never_fails_in_any_part(tmp_path):
    res, payload = _card("last_turn_crs", tmp_path / "run", "--sessions", "6")
    assert res.returncode == 0 and not any(n.startswith("last_turn_crs:") for n in payload["notes"])
    answered = tmp_path / "run" / "behavior" / "last_turn_crs" / "records" / "responses.jsonl"
    rows = [json.loads(x) for x in answered.read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["error"] is None for r in rows)
    # where the recommender opens a labelled dialogue, the user's turn is the same one the LLM is told
    from crseval.behavior.evaluate import JOINED, Context, history

    assert history(Context("d", 0, [], "Hi! What do you like?", [])) == [
        {"speaker": "user", "text": JOINED}
    ]
