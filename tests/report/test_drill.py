"""The report's drill-down: labels over every row, full rows read only for the groups it shows."""

import pandas as pd
import pytest

from crseval.report.html import MAX_GROUPS, write_report
from crseval.runs import RunStore

pytestmark = pytest.mark.any_table  # made-up tables: no declaration check


def test_drill_labels_use_every_row_and_rows_come_from_shown_groups(tmp_path):
    n = MAX_GROUPS + 5
    store = RunStore(tmp_path / "run")
    parts = (
        pd.DataFrame(
            {
                "model": [m] * 2 * n,
                "session": [str(s) for s in range(n) for _ in (0, 1)],
                "session_tas": [float(s) for s in range(n) for _ in (0, 1)],
                "turn": [0, 1] * n,
                "user": [f"{m}-user-{s}" for s in range(n) for _ in (0, 1)],
                "event": ["shift" if s == 3 else "" for s in range(n) for _ in (0, 1)],
            }
        )
        for m in ("a", "b")
    )
    store.write_table_parts("turns", parts)
    store.add_section(
        "S",
        "text",
        drill={
            "table": "turns",
            "levels": ["model", "session"],
            "value": "session_tas",
            "highlight": "event",
        },
    )
    html = write_report(store.root, "t").read_text()
    assert (
        f"model a — session_tas {(n - 1) / 2:.3f} ({2 * n} rows, 2 highlighted)" in html
    )  # all 45 sessions
    assert "5 more in turns.csv" in html
    assert "a-user-0" in html and f"b-user-{MAX_GROUPS - 1}" in html
    assert f"a-user-{n - 1}" not in html  # a session beyond the shown ones
