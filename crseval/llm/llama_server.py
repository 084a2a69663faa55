"""llama.cpp's own OpenAI-compatible server (``llama-server``, from the ``xllamacpp`` wheel) on 127.0.0.1:
``python -m crseval.llm.llama_server MODEL.gguf PORT [THREADS]`` serves until it is terminated. The
tests and benchmarks point ``--backend openai`` at it to check that a served model answers as the
embedded backend does."""

from __future__ import annotations

import sys
import time


def main(argv: list[str]) -> None:
    import xllamacpp

    from crseval.llm.engine_xllamacpp import server_params

    params = server_params(argv[0], 4096, int(argv[2]) if len(argv) > 2 else 2)
    params.port = int(argv[1])  # the embedded engine's parameters, listening on this port
    server = xllamacpp.Server(params)  # noqa: F841 (it serves while it lives)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1:])
