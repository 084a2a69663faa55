"""How a score reads on a terminal or a card: two decimals, no leading zero below 1, a CI in brackets."""

from __future__ import annotations

import math


def number(x: float, sign: bool = False) -> str:
    """Two decimals, no leading zero below 1 (".29", "-.69", "+3.10"); "—" for a missing value."""
    if x is None or not math.isfinite(x):
        return "—"
    text = f"{x:+.2f}" if sign else f"{x:.2f}"
    return text.replace("0.", ".", 1) if abs(x) < 1 else text


def ci_text(value: float, lo: float, hi: float, sign: bool = False) -> str:
    """ ".56 [.36, .82]" — a score and its 95 % CI ("—" for each missing one)."""
    return f"{number(value, sign)} [{number(lo, sign)}, {number(hi, sign)}]"


def p_value(p: float) -> str:
    """ ".003", ".08", "<.001", "1.00"; "—" where no test ran."""
    if p is None or not math.isfinite(p):
        return "—"
    if p < 0.001:
        return "<.001"
    return f"{p:.3f}".replace("0.", ".", 1) if p < 0.01 else number(p)


def counted(n: int, one: str, many: str | None = None) -> str:
    """``1 session``, ``2 sessions``: a count with its noun in the number it takes (``many``: the plural
    where it is not ``one`` + s)."""
    return f"{n} {one if n == 1 else many or one + 's'}"
