"""Columns no single capability owns, declared once for the tables that show them."""

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
    "base_url",
    "gguf",
    "n_ctx",
]
