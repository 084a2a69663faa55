"""A multi-item evaluation run as a real process, for the kill-and-resume test.

usage: python kill_target.py RUN_DIR N_DIALOGUES LATENCY_S
"""

import sys

from crseval.core.types import Dialogue, Role, Utterance
from crseval.judge.judging import Judge, judge_items
from crseval.llm import LLMClient, ResponseCache, SchedulerConfig
from crseval.llm.scripted import ScriptedBackend
from crseval.runs import RunStore

if __name__ == "__main__":
    run_dir, n, latency = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    dialogues = [
        Dialogue.from_utterances(
            f"d{i}",
            [
                Utterance(Role.SEEKER, f"I like genre {i % 7}"),
                Utterance(Role.RECOMMENDER, f"Try movie {i}"),
            ],
        )
        for i in range(n)
    ]
    store = RunStore(run_dir)
    client = LLMClient(
        ScriptedBackend(latency_s=latency, max_concurrency=4),
        ResponseCache(store.cache_path),
        SchedulerConfig(),
    )
    judge_items(
        [(d.id, d, None) for d in dialogues],
        ["overall"],
        [Judge("judge", client)],
        store.stream("judgments"),
    )
    store.close()
    print("done", len(store.repairs))
