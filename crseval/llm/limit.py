"""How many requests a client keeps in flight: it starts at the configured concurrency, halves when the
server says it is overloaded (HTTP 429 or 503; the retry then waits at least the server's Retry-After) and
grows back by one after as many successes in a row as the limit allows — additive increase, multiplicative
decrease, between configurable bounds."""

from __future__ import annotations

import threading

OVERLOADED = {429, 503}


class AdaptiveLimit:
    def __init__(self, high: int, low: int = 1) -> None:
        self.high, self.low = max(1, high), max(1, min(low, high))
        self.limit, self.in_flight, self.lowered = self.high, 0, 0
        self._streak = 0
        self._cond = threading.Condition()

    def __enter__(self) -> "AdaptiveLimit":
        with self._cond:
            while self.in_flight >= self.limit:
                self._cond.wait(
                    0.5
                )  # a bounded wait: a cancelled run is seen by the caller's check
            self.in_flight += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    def overloaded(self) -> None:
        with self._cond:
            self.limit, self._streak = max(self.low, self.limit // 2), 0
            self.lowered += 1

    def succeeded(self) -> None:
        with self._cond:
            self._streak += 1
            if self.limit < self.high and self._streak >= self.limit:
                self.limit, self._streak = self.limit + 1, 0
                self._cond.notify_all()
