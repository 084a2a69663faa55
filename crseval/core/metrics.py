"""Tables and columns no single capability owns (LLM usage), declared once like every other."""

from crseval.core.registry import register_table as table

# what an LLM client reports (crseval/llm/client.py: usage), for the tables that show it
LLM_USAGE = [
    "backend",
    "model",
    "requests",
    "cache_hits",
    "cache_misses",
    "retries",
    "failures",
    "parse_failures",
    "repairs",
    "prompt_tokens",
    "completion_tokens",
    "llm_seconds",
    "wait_s",
    "busy_s",
    "base_url",
    "gguf",
    "n_ctx",
]

table(
    "llm_usage",
    ["role", "backend", "model"],
    "per role (the CRS, the simulated user, the judge, …): LLM requests, cache hits, failures, tokens, "
    "seconds (busy: the model working for the role; wait: queued for it) and cost",
    columns=[*LLM_USAGE, "cost_usd"],
)
