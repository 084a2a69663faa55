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


def test_the_bars_eta_follows_units_that_take_minutes(monkeypatch):
    """An LLM session can take minutes: the ETA is the time per unit so far times the units left, from
    the first unit on and updated at every unit (rich's default looks at the last 30 s only: -:--:--)."""
    import io

    from rich.console import Console

    now = [0.0]
    monkeypatch.setattr(progress, "err_console", Console(file=io.StringIO(), force_terminal=True))
    with progress.progress_bars(clock=lambda: now[0]) as bars:
        advance = bars("sessions", 10)
        now[0] = 120.0
        advance(1)  # the first unit took two minutes
        assert advance.remaining() == 9 * 120
        now[0] = 180.0
        advance(1)  # the second one minute: the estimate learns
        assert advance.remaining() == 8 * 90
