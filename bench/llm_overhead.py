"""LLM-layer overhead against a fixed-latency OpenAI-compatible server on 127.0.0.1.

The server (its own process, like a real one) answers each request after LATENCY seconds (default
100 ms — real LLM calls take 0.5–10 s, so this is a harsh setting for overhead) and serves at most CAPACITY at a time, so the
ideal throughput is CAPACITY / LATENCY requests/s. We measure:
  * crseval (cache + scheduler + OpenAI backend) with concurrency = CAPACITY,
  * the named peer: raw httpx POSTs from a thread pool of the same size (no cache, no retries),
  * a fully cached re-run of the crseval batch (must issue 0 requests and take ≤ 5 % of the first).
Targets: crseval ≥ 90 % of ideal throughput; cached re-run ≤ 5 % of the first run's time.

usage: python bench/llm_overhead.py [N_REQUESTS] [CAPACITY] [LATENCY_S]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import _record as record
import httpx

from crseval.llm import ChatRequest, LLMConfig, make_client


class ServerProcess:
    """The fake server in its own process, as a real inference server would be (no shared GIL)."""

    def __init__(
        self, latency: float, capacity: int | None = None, reject_over: int | None = None
    ) -> None:
        args = [sys.executable, "-m", "crseval.testing.fake_server", "--latency", str(latency)]
        args += ["--capacity", str(capacity)] if capacity else []
        args += ["--reject-over", str(reject_over)] if reject_over else []
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.base_url = self.proc.stdout.readline().strip()

    def stop(self) -> dict:
        self.proc.stdin.close()
        stats = json.loads(self.proc.stdout.readline())
        self.proc.wait(timeout=10)
        return stats


def main(n: int = 400, capacity: int = 8, latency: float = 0.1) -> int:
    ideal = capacity / latency
    requests = [ChatRequest.chat(f"request {i}", max_tokens=16) for i in range(n)]
    srv = ServerProcess(latency, capacity)
    with tempfile.TemporaryDirectory() as tmp:
        # named peer: raw httpx from a thread pool, same concurrency
        with httpx.Client(limits=httpx.Limits(max_connections=capacity * 2)) as http:
            body = lambda r: {
                "model": "bench",
                "messages": [{"role": "user", "content": r.messages[-1].content}],
                "max_tokens": 16,
            }
            t0 = time.perf_counter()
            with ThreadPoolExecutor(capacity) as pool:
                list(
                    pool.map(
                        lambda r: http.post(
                            f"{srv.base_url}/chat/completions", json=body(r), timeout=30
                        ).json(),
                        requests,
                    )
                )
            t_peer = time.perf_counter() - t0

        cfg = LLMConfig(
            backend="openai",
            model="bench",
            base_url=srv.base_url,
            api_key_env=None,
            concurrency=capacity,
        )
        client = make_client(cfg, Path(tmp) / "cache.sqlite")
        t0 = time.perf_counter()
        client.map(requests)
        t_first = time.perf_counter() - t0
        first_requests = client.stats.requests

        t0 = time.perf_counter()
        client.map(requests)
        t_cached = time.perf_counter() - t0
        cached_requests = client.stats.requests - first_requests
        client.close()
    served = srv.stop()["requests"]
    assert served == 2 * n, (
        f"server saw {served} requests, expected {2 * n} (peer + crseval cold run)"
    )

    thr_crseval, thr_peer = n / t_first, n / t_peer
    print(
        f"server: capacity {capacity}, latency {latency * 1000:.0f} ms → ideal {ideal:.1f} req/s; {n} requests"
    )
    print(f"{'':28s}{'time s':>9s}{'req/s':>9s}{'× ideal':>9s}{'requests':>10s}")
    print(f"{'peer: raw httpx pool':28s}{t_peer:9.2f}{thr_peer:9.1f}{thr_peer / ideal:9.3f}{n:10d}")
    print(
        f"{'crseval (cold cache)':28s}{t_first:9.2f}{thr_crseval:9.1f}{thr_crseval / ideal:9.3f}{first_requests:10d}"
    )
    print(
        f"{'crseval (cached re-run)':28s}{t_cached:9.3f}{n / t_cached:9.0f}{'':9s}{cached_requests:10d}"
    )
    print(f"crseval / ideal throughput = {thr_crseval / ideal:.3f} (target ≥ 0.90)")
    print(f"crseval / peer throughput  = {thr_crseval / thr_peer:.3f}")
    print(
        f"cached / first time        = {t_cached / t_first:.4f} (target ≤ 0.05), requests issued: {cached_requests}"
    )
    record.table(
        f"{n} requests to a server of capacity {capacity} answering in {latency * 1000:.0f} ms "
        f"(ideal {ideal:.0f} req/s); named peer: raw httpx from a thread pool of the same size",
        [
            {
                "": "peer: raw httpx pool",
                "req/s": round(thr_peer, 1),
                "× ideal": round(thr_peer / ideal, 3),
                "requests": n,
            },
            {
                "": "crseval, cold cache",
                "req/s": round(thr_crseval, 1),
                "× ideal": round(thr_crseval / ideal, 3),
                "requests": first_requests,
            },
            {
                "": "crseval, cached re-run",
                "req/s": round(n / t_cached),
                "× ideal": f"{t_cached / t_first:.1%} of the first run's time",
                "requests": cached_requests,
            },
        ],
    )
    ok = thr_crseval / ideal >= 0.90 and t_cached / t_first <= 0.05 and cached_requests == 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    args = [t(a) for t, a in zip((int, int, float), sys.argv[1:])]
    sys.exit(record.run(lambda: main(*args)))
