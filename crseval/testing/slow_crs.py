"""A CRS that takes a set time to answer (``CRSEVAL_SLOW_CRS_S``, default 0.5 s): what the study server's
load test and its benchmark put behind the server, so the server's own latency is measured apart."""

from __future__ import annotations

import os
import time


def respond(history: list[dict[str, str]]) -> str:
    time.sleep(float(os.environ.get("CRSEVAL_SLOW_CRS_S", "0.5")))
    wish = history[-1]["text"][:60]
    return f"How about Heat (1995)? You said: {wish}"


# the study the load test and the benchmark run: two systems that are this CRS (each reply 0.5 s and no
# work: the server's own time is what is measured), in counterbalanced pairs
LOAD_STUDY = """name = "load"
pairs = true
min_turns = 2
max_turns = 6
[[systems]]
name = "slow-a"
target = "crseval.testing.slow_crs:respond"
[[systems]]
name = "slow-b"
target = "crseval.testing.slow_crs:respond"
[limits]
min_seconds_between = 0.5
"""
