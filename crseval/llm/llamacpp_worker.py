"""One llama.cpp model in its own process, speaking JSON lines on stdin/stdout.

Started by :class:`crseval.llm.llamacpp.LlamaCppBackend` as ``python -m crseval.llm.llamacpp_worker
CONFIG_JSON``: a fresh interpreter (no fork after loading — that deadlocks in OpenMP — and no
re-import of the caller's ``__main__`` as multiprocessing's spawn would do). The config names the
engine (:data:`ENGINES`: the prebuilt ``xllamacpp``, the compiled ``llama-cpp-python`` or, for tests,
a model-less echo). It prints
``{"ready": true}`` once the model is loaded, then answers each request line with one response line that
carries the request's ``id``. With ``slots`` > 1 (an engine that decodes sequences together, ``PARALLEL``:
llama.cpp's continuous batching in one process) it answers up to that many requests at once, each on its
own thread, in the order they finish; otherwise one at a time.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ENGINES = {  # engine name → the module that loads it and answers requests (load, complete)
    "xllamacpp": "crseval.llm.engine_xllamacpp",
    "llama-cpp-python": "crseval.llm.engine_llama_cpp_python",
    "echo": "crseval.testing.echo_engine",  # no model: the pool's and the protocol's tests
}


def exit_with_parent(parent: int, every_s: float = 1.0) -> threading.Thread:
    """The worker dies with the process that started it, however that one ends (SIGKILL included): a
    watchdog notices within a second that it was re-parented and exits (llama.cpp releases the GIL while
    it computes, so the watchdog runs even mid-generation)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(1)

    t = threading.Thread(target=watch, daemon=True, name="exit-with-parent")
    t.start()
    return t


def main() -> None:
    exit_with_parent(os.getppid())
    # the protocol owns the real stdout; anything else printed goes to stderr
    proto = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1, encoding="utf-8")
    sys.stdout = sys.stderr
    cfg = json.loads(sys.argv[1])
    engine = importlib.import_module(ENGINES[cfg["engine"]])
    slots = cfg.get("slots", 1)
    engine.REUSE_PREFIX = cfg.get("prompt_cache", False)
    load = (cfg["path"], cfg["n_ctx"], cfg["n_threads"], cfg.get("chat_format"))
    if slots > 1:  # only an engine that decodes sequences together takes slots
        engine.load(*load, slots)
    else:
        engine.load(*load)
    proto.write(json.dumps({"ready": True}) + "\n")
    written = threading.Lock()

    def answer(line: str) -> None:
        request = json.loads(line)
        try:
            reply = {"ok": engine.complete(request)}
        except Exception as e:  # reported to the parent, which decides what is transient
            reply = {"error": f"{type(e).__name__}: {e}"}
        reply["id"] = request.get("id")
        with written:
            proto.write(json.dumps(reply) + "\n")

    with ThreadPoolExecutor(max_workers=slots) as threads:
        for line in sys.stdin:
            if line.strip():
                threads.submit(answer, line)


if __name__ == "__main__":
    main()
