"""The study's CRSs, called as crseval calls a CRS everywhere (:func:`crseval.simulation.session.make_crs`:
a function, a file, an endpoint, a reference CRS, the LLM CRS), each reply within the study's timeout.

A CRS that raises, returns the wrong shape or takes too long gives an error, never an exception: the
participant is told and the study goes on. A call past the timeout is abandoned (its thread finishes in
the background; its answer is dropped)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late
from typing import Any

from crseval.study.config import StudyConfig

MAX_CALLS = 64  # CRS calls in flight in one server process (participants waiting on a reply)


class Systems:
    def __init__(self, config: StudyConfig) -> None:
        self.config = config
        self._crs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=MAX_CALLS, thread_name_prefix="crs")

    def _get(self, name: str) -> Any:
        from pathlib import Path

        from crseval.data.kb import load_kb
        from crseval.simulation.session import make_crs

        with self._lock:
            if name not in self._crs:
                model = self.config.system(name).model(Path(self.config.folder))
                kb = load_kb(self.config.kb)
                self._crs[name] = make_crs(model, kb, self.config.seed, None)
            return self._crs[name]

    def check(self) -> None:
        """Build every CRS once before serving: a misspelt target fails at start, in one line."""
        for s in self.config.systems:
            self._get(s.name)

    def reply(self, name: str, history: list[dict[str, str]]) -> tuple[str, str | None, float]:
        """(the reply, the error or None, milliseconds it took)."""
        t0 = time.perf_counter()
        crs = self._get(name)
        future = self._pool.submit(crs.respond, history)
        try:
            out = future.result(timeout=self.config.limits.crs_timeout_s)
        except Late:
            return "", f"no answer within {self.config.limits.crs_timeout_s:g} s", _ms(t0)
        except Exception as e:  # noqa: BLE001 — the researcher's CRS: any failure is a recorded error
            return "", f"{type(e).__name__}: {e}", _ms(t0)
        if out.error:
            return "", out.error, _ms(t0)
        text = (out.text or "").strip()
        return (text, None, _ms(t0)) if text else ("", "an empty reply", _ms(t0))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _ms(t0: float) -> float:
    return round(1000 * (time.perf_counter() - t0), 1)
