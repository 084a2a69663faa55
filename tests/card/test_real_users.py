"""The card's statements about real users and about its judge come from the validity records."""

from crseval import validated
from crseval.card.real_users import CALIBRATED, OWN_READING, POOLED, judge_transfer


def _pooled(design: str) -> dict:
    return validated.load("judge_transfer").row(
        aspect="dialogue-overall", judge=design, system=POOLED
    )


def _r(value: float) -> str:
    return f"{value:.2f}".replace("0.", ".")


def test_the_judge_rows_note_carries_the_held_out_crs_figures_of_the_record():
    note = judge_transfer()
    rows = [
        r
        for r in validated.load("judge_transfer").rows
        if r["aspect"] == "dialogue-overall" and r["judge"] == CALIBRATED and r["system"] != POOLED
    ]
    low, high = min(r["pearson"] for r in rows), max(r["pearson"] for r in rows)
    for design in (OWN_READING, CALIBRATED):
        p = _pooled(design)
        assert f"r {_r(p['pearson'])} [{_r(p['pearson_lo'])}, {_r(p['pearson_hi'])}]" in note
    assert f"{_r(low)} to {_r(high)} over the {len(rows)} held-out CRSs" in note
    assert len(rows) == 9  # CRSArena-Eval's nine CRSs, each held out once
