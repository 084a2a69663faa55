"""Serving: how fast crseval's client gets answers from a server, against the named peer — the same
client at concurrency 1 (serial), measured in the same run.

1. A fixed-latency OpenAI-compatible stub (``crseval.testing.fake_server`` in its own process, no
   capacity limit): requests per second at concurrency 1, 8 and 32, and the ratio to serial (ideal: the
   concurrency itself).
2. The same stub rate-limited (HTTP 429 beyond 8 in flight, Retry-After 0.05 s) with the client started
   at 32: adaptive concurrency halves on each 429 and grows back; requests per second, retries and the
   limit it settled at.
3. ``--embedded``: the embedded model behind llama.cpp's OpenAI-compatible server (``llama-server``) —
   one server (one slot) and two (two slots, a client spreading requests over both is not built: each server gets
   half the requests) — against the in-process backend with 1 and 2 workers, on the same probability-
   weighted rating requests.

usage: python bench/llm_serving.py [--requests 200] [--latency 0.05] [--embedded [--ratings 8]]
"""

from __future__ import annotations

import argparse
import platform
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import _record as record
import httpx
from llm_overhead import ServerProcess  # the fake server in its own process (bench/llm_overhead.py)

from crseval.llm import ChatRequest, LLMClient, LLMConfig, SchedulerConfig, make_client
from crseval.llm.openai_compat import OpenAIBackend


def throughput(base_url: str, n: int, concurrency: int, tag: str) -> tuple[float, LLMClient]:
    backend = OpenAIBackend("m", base_url, api_key_env=None, max_concurrency=concurrency)
    client = LLMClient(backend, None, SchedulerConfig(max_retries=50, backoff_base_s=0.02))
    reqs = [ChatRequest.chat(f"{tag} request {i}", max_tokens=16) for i in range(n)]
    t0 = time.perf_counter()
    results = client.map(reqs, client.try_complete)
    seconds = time.perf_counter() - t0
    client.close()
    assert all(r.ok for r in results)
    return n / seconds, client


def stub_part(n: int, latency: float) -> None:
    stub = ServerProcess(latency)
    try:
        serial, _ = throughput(stub.base_url, max(20, n // 8), 1, "serial")
        print(f"stub, {latency * 1000:.0f} ms per request; peer: the client at concurrency 1")
        print(f"  concurrency  1: {serial:7.1f} req/s  (ratio 1.00)")
        rows = [
            {
                "setting": "concurrency 1 (peer)",
                "requests/s": round(serial, 1),
                "ratio": 1.0,
                "ideal": 1,
            }
        ]
        for c in (8, 32):
            rate, _ = throughput(stub.base_url, n, c, f"c{c}")
            rows.append(
                {
                    "setting": f"concurrency {c}",
                    "requests/s": round(rate, 1),
                    "ratio": round(rate / serial, 2),
                    "ideal": c,
                }
            )
            print(
                f"  concurrency {c:2d}: {rate:7.1f} req/s  (ratio {rate / serial:5.2f}; ideal {c})"
            )
    finally:
        stub.stop()
    stub = ServerProcess(latency, reject_over=8)
    try:
        rate, client = throughput(stub.base_url, n, 32, "limited")
        stats = stub.stop()
    except BaseException:
        stub.stop()
        raise
    print(
        f"  rate-limited at 8 in flight, client started at 32: {rate:7.1f} req/s (ratio "
        f"{rate / serial:5.2f}; ideal 8), {client.stats.retries} retries after 429, the limit halved "
        f"{client._slots.lowered} times and ended at {client._slots.limit} "
        f"({stats.get('rejected', '?')} rejected by the server)"
    )
    rows.append(
        {
            "setting": f"rate-limited at 8 in flight (429 + Retry-After), client started at 32: "
            f"{client._slots.lowered} halvings, ended at {client._slots.limit}",
            "requests/s": round(rate, 1),
            "ratio": round(rate / serial, 2),
            "ideal": 8,
        }
    )
    record.table(
        f"The client against a stub answering in {latency * 1000:.0f} ms; named peer: the same client "
        "at concurrency 1",
        rows,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server(path: Path, threads: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "crseval.llm.llama_server", str(path), str(port), str(threads)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("llama-server did not start")


def _ratings(k: int) -> list[ChatRequest]:
    return [
        ChatRequest.chat(
            f"Rate from 1 to 5 how well this reply suits a user who wants a comedy: 'Try movie "
            f"number {i}, a light comedy.' Answer with one digit.",
            max_tokens=1,
            choices=("1", "2", "3", "4", "5"),
        )
        for i in range(k)
    ]


def embedded_part(k: int) -> None:
    from crseval.llm.models import resolve_model

    path, _ = resolve_model()
    reqs = _ratings(k)
    print(
        f"\nembedded model, {k} probability-weighted ratings; peer: the in-process backend, 1 worker"
    )
    times = {}
    for workers in (1, 2):
        client = make_client(LLMConfig(backend="llamacpp", workers=workers, concurrency=workers))
        client.rate(reqs[0], (1, 5))  # load the model(s) before timing
        t0 = time.perf_counter()
        client.map(reqs[1:], lambda r: client.rate(r, (1, 5)))
        times[f"in-process, {workers} worker(s)"] = time.perf_counter() - t0
        client.close()
    for servers in (1, 2):
        procs = [_server(path, 2 // servers) for _ in range(servers)]
        try:
            clients = [
                make_client(LLMConfig(backend="openai", model="m", base_url=url, concurrency=1))
                for _, url in procs
            ]
            for c in clients:
                c.rate(reqs[0], (1, 5))
            t0 = time.perf_counter()
            with ThreadPoolExecutor(servers) as pool:
                list(
                    pool.map(
                        lambda j: [clients[j].rate(r, (1, 5)) for r in reqs[1 + j :: servers]],
                        range(servers),
                    )
                )
            times[f"llama.cpp server, {servers} slot(s)"] = time.perf_counter() - t0
            for c in clients:
                c.close()
        finally:
            for p, _ in procs:
                p.terminate()
                p.wait(timeout=30)
    base = times["in-process, 1 worker(s)"]
    record.table(
        f"The embedded model, {k - 1} probability-weighted ratings; named peer: the in-process "
        "backend with one worker",
        [
            {
                "setting": name,
                "seconds": round(t, 1),
                "ratings/s": round((k - 1) / t, 2),
                "ratio to the peer": round(base / t, 2),
            }
            for name, t in times.items()
        ],
    )
    for name, t in times.items():
        print(
            f"  {name:32s} {t:6.1f} s  ({(k - 1) / t:.2f} ratings/s; ratio to the peer {base / t:.2f})"
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--embedded", action="store_true")
    ap.add_argument("--ratings", type=int, default=8)
    a = ap.parse_args()
    print(
        f"{platform.node()} · {platform.processor() or platform.machine()} · Python {platform.python_version()}"
    )
    stub_part(a.requests, a.latency)
    if a.embedded:
        embedded_part(a.ratings)
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
