"""The embedded model's prompt cache (``llm.prompt_cache``): the LLM card as a user runs it
(``crseval evaluate-crs examples/my_crs.py``, a fresh run directory) with the default — every answer
computed from its request alone — twice, against the named peer, the same command with the keys and values
of a prompt prefix shared with the request before reused (``prompt_cache = true``), twice.

Per run: seconds, and against the first default run how many of the LLM sessions have the same turns and
whether the card's LLM row (personalization: its known-groups AUC and verdict) is the same. The card runs
its sessions concurrently, so with the cache which request came before another — and with it llama.cpp's
floating-point sums over the reused prefix — depends on timing.

usage: python bench/embedded_prompt_cache.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _record as record
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
CRSEVAL = Path(sys.executable).with_name("crseval")


def card(out: Path, config: Path | None) -> dict:
    """One run of the LLM card: seconds, its LLM sessions' turns, the personalization row's evidence."""
    command = [
        str(CRSEVAL),
        "evaluate-crs",
        str(ROOT / "examples" / "my_crs.py"),
        "--out",
        str(out),
    ]
    t0 = time.perf_counter()
    subprocess.run(
        command + (["--llm-config", str(config)] if config else []),
        check=True,
        capture_output=True,
    )
    seconds = time.perf_counter() - t0
    lines = (out / "shift-llm" / "records" / "results.jsonl").read_text(encoding="utf-8")
    turns = {r["key"]: r["turns"] for r in map(json.loads, lines.splitlines())}
    evidence = pd.read_parquet(out / "tables" / "card_evidence.parquet").set_index("metric")
    row = evidence.loc["shift.personalization"]
    return {"seconds": seconds, "turns": turns, "auc": float(row["auc"]), "verdict": row["verdict"]}


def main() -> int:
    rows, first = [], None
    with tempfile.TemporaryDirectory() as tmp:
        cached = Path(tmp) / "prompt_cache.toml"
        cached.write_text('backend = "llamacpp"\nprompt_cache = true\n', encoding="utf-8")
        for name, config, attempt in [
            ("default (no reuse)", None, 1),
            ("default (no reuse)", None, 2),
            ("prompt_cache = true (peer)", cached, 1),
            ("prompt_cache = true (peer)", cached, 2),
        ]:
            run = card(Path(tmp) / f"run{len(rows)}", config)
            first = first or run
            same = sum(run["turns"][k] == t for k, t in first["turns"].items())
            rows.append(
                {
                    "run": name,
                    "try": attempt,
                    "s": round(run["seconds"]),
                    "sessions as the first run": f"{same} of {len(first['turns'])}",
                    "personalization AUC": round(run["auc"], 3),
                    "verdict": run["verdict"],
                }
            )
            print(rows[-1])
    ratio = (rows[0]["s"] + rows[1]["s"]) / (rows[2]["s"] + rows[3]["s"])
    record.table(
        "The LLM card (6 LLM users per system) on 2 cores, each run alone with a fresh run directory: the "
        "default against the named peer, the prompt cache on",
        rows,
        f"time default / prompt cache: {ratio:.2f}",
    )
    print(f"time default / prompt cache: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main))
