"""A local OpenAI-compatible server for tests and benchmarks (127.0.0.1 only).

It answers ``POST /v1/chat/completions`` after a fixed latency, serves at most ``capacity``
requests at a time (others queue, like a real inference server) or answers HTTP 429 beyond
``reject_over`` in flight (like a provider's rate limit), and can inject faults at a
seeded rate: a hang past the client's timeout, HTTP 429/500/503, a dropped connection, empty
content, a truncated JSON body, or a rating outside the scale. Every request loop is bounded and
the server stops with :meth:`stop` (or the ``with`` block).
"""

from __future__ import annotations

import hashlib
import math
import json
import random
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

FAULTS = ("timeout", "429", "500", "503", "close", "empty", "truncated", "out_of_scale")


def default_reply(body: dict[str, Any]) -> dict[str, Any]:
    """A deterministic answer: digit probabilities for logprob requests, minimal JSON for schema
    requests, an echo otherwise."""
    last = next(
        (m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
    )
    h = int(hashlib.sha256(last.encode()).hexdigest()[:8], 16)
    if body.get("logprobs"):
        weights = [((h >> (4 * i)) & 0xF) + 1 for i in range(5)]
        total = sum(weights)
        top = [{"token": str(d + 1), "logprob": math.log(w / total)} for d, w in enumerate(weights)]
        best = max(top, key=lambda t: t["logprob"])["token"]
        return {
            "content": best,
            "logprobs": {"content": [{"token": best, "logprob": 0.0, "top_logprobs": top}]},
        }
    if body.get("response_format"):
        return {"content": json.dumps({"rating": 1 + h % 5, "reason": "ok"})}
    return {"content": f"echo {h % 1000}: {last[:40]}"}


class FakeOpenAIServer:
    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        capacity: int | None = None,
        reject_over: int | None = None,
        fault_rate: float = 0.0,
        faults: tuple[str, ...] = FAULTS,
        seed: int = 0,
        hang_s: float = 3.0,
        reply: Callable[[dict[str, Any]], dict[str, Any]] = default_reply,
    ) -> None:
        unknown = set(faults) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; choose from {FAULTS}")
        self.latency_s, self.fault_rate, self.faults, self.hang_s, self.reply = (
            latency_s,
            fault_rate,
            faults,
            hang_s,
            reply,
        )
        self._slots = threading.BoundedSemaphore(capacity) if capacity else None
        self.reject_over = reject_over  # more in flight than this: HTTP 429 at once (a rate limit)
        self.in_flight = self.rejected = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.requests = 0
        self.injected: Counter = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._httpd: ThreadingHTTPServer | None = None

    # ---- lifecycle ---------------------------------------------------------------------------
    def start(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = (
                True  # headers and body are separate writes: avoid 40 ms delayed-ACK stalls
            )

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802
                server._handle(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self.base_url

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeOpenAIServer":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ---- one request -------------------------------------------------------------------------
    def _send(
        self,
        h: BaseHTTPRequestHandler,
        status: int,
        payload: bytes,
        headers: dict[str, str] | None = None,
    ) -> None:
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(payload)

    def _admit(self, h: BaseHTTPRequestHandler, body: dict) -> tuple[str | None, bool]:
        """Count the request; (the fault drawn for it or None, whether it is refused as over capacity)."""
        with self._lock:
            self.requests += 1
            self.bodies.append(body)
            self.headers.append(dict(h.headers))
            fault = (
                self._rng.choice(self.faults)
                if self.fault_rate and self._rng.random() < self.fault_rate
                else None
            )
            if fault:
                self.injected[fault] += 1
            busy = self.reject_over is not None and self.in_flight >= self.reject_over
            self.rejected += busy
            self.in_flight += not busy
        return fault, busy

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = json.loads(h.rfile.read(length) or b"{}")
        fault, busy = self._admit(h, body)
        if busy:
            self._send(h, 429, b'{"error": "rate limited"}', {"Retry-After": "0.05"})
            return
        if self._slots:
            self._slots.acquire()
        try:
            if self.latency_s:
                time.sleep(self.latency_s)
            if fault == "timeout":
                time.sleep(self.hang_s)
            if fault in ("429", "500", "503"):
                self._send(
                    h,
                    int(fault),
                    b'{"error": "injected"}',
                    {"Retry-After": "0.05"} if fault == "429" else None,
                )
                return
            if fault == "close":
                h.close_connection = True
                h.wfile.flush()
                h.connection.shutdown(2)
                return
            payload = _completion(body, _faulted(fault, body, self.reply(body)))
            if fault == "truncated":
                payload = payload[: len(payload) // 2]
            self._send(h, 200, payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with self._lock:
                self.in_flight -= 1
            if self._slots:
                self._slots.release()


def _faulted(fault: str | None, body: dict, message: dict) -> dict:
    """The reply as the fault changes it: empty, or a rating outside the scale."""
    if fault == "empty":
        return {"content": ""}
    if fault == "out_of_scale":
        return {
            "content": "7"
            if not body.get("response_format")
            else json.dumps({"rating": 9, "reason": "x"})
        }
    return message


def _completion(body: dict, message: dict) -> bytes:
    """An OpenAI chat completion carrying ``message`` (and its logprobs), tokens counted as words."""
    return json.dumps(
        {
            "id": "fake",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": message["content"]},
                    "finish_reason": "stop",
                    **({"logprobs": message["logprobs"]} if "logprobs" in message else {}),
                }
            ],
            "usage": {
                "prompt_tokens": sum(
                    len(m.get("content", "").split()) for m in body.get("messages", [])
                ),
                "completion_tokens": len(message["content"].split()),
            },
        }
    ).encode()


def main(argv: list[str] | None = None) -> None:
    """``python -m crseval.testing.fake_server --latency 0.05 --capacity 8``: serve until stdin closes,
    after printing the base URL on the first line of stdout."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--capacity", type=int, default=None)
    ap.add_argument("--reject-over", type=int, default=None)
    ap.add_argument("--fault-rate", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hang", type=float, default=3.0)
    a = ap.parse_args(argv)
    with FakeOpenAIServer(
        latency_s=a.latency,
        capacity=a.capacity,
        reject_over=a.reject_over,
        fault_rate=a.fault_rate,
        seed=a.seed,
        hang_s=a.hang,
    ) as srv:
        print(srv.base_url, flush=True)
        sys.stdin.read()  # until the parent closes our stdin
        stats = {"requests": srv.requests, "injected": dict(srv.injected), "rejected": srv.rejected}
        print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    main()
