import time

from crseval.cli import progress


def test_a_slow_first_step_is_said_within_two_seconds_and_the_end_always(monkeypatch, capsys):
    monkeypatch.setattr(progress, "FIRST_LINE_S", 0.05)
    with progress.progress_bars() as bars:  # stderr is not a terminal here: plain lines
        advance = bars("loading the model", 3)
        time.sleep(0.3)
        advance(3)
        quick = bars("quick", 2)
        quick(2)
        time.sleep(0.1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("loading the model: 0/3 (0 s")
    assert lines[1].startswith("loading the model: 3/3")
    assert [x for x in lines if x.startswith("quick")] == ["quick: 2/2 (0 s)"]  # no start line
