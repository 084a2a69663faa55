"""Tables and columns no single capability owns (LLM usage), declared once like every other."""

from crseval.core.registry import register_table as table, register_columns

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
    context={"model": ("model", "the LLM answering for the role")},
)

# the room's own context columns (the shared glossary keeps the terms every room uses)
register_columns(
    "general",
    {
        "backend": ("backend", "LLM backend (llamacpp, openai, scripted)"),
        "requests": (
            "requests",
            "requests that reached the backend (retries included, cache hits not)",
        ),
        "cache_hits": ("cache hits", "answers served from the run's LLM cache"),
        "cache_misses": ("cache misses", "prompts not in the cache"),
        "retries": ("retries", "requests repeated after a transient error"),
        "failures": ("failures", "requests that failed after every retry"),
        "parse_failures": ("parse failures", "answers the parser could not read"),
        "repairs": ("repairs", "answers read after a repair prompt"),
        "prompt_tokens": ("prompt tokens", "tokens of the prompts sent"),
        "completion_tokens": ("completion tokens", "tokens generated"),
        "llm_seconds": (
            "LLM seconds",
            "seconds inside LLM calls, summed over calls (queueing included)",
        ),
        "wait_s": (
            "wait (s)",
            "seconds calls queued for a free slot or for the embedded model other roles were using",
        ),
        "busy_s": (
            "busy (s)",
            "seconds the model worked for the role: the union of its calls' intervals (overlaps once)",
        ),
        "role": (
            "role",
            "what the LLM answered for: the CRS, the simulated user, the judge, the serendipity evaluator, …",
        ),
        "cost_usd": (
            "cost (USD)",
            "tokens × the LLM config's prices per million tokens (empty: no prices)",
        ),
        "base_url": ("base URL", "the server of an OpenAI-compatible backend"),
        "gguf": ("GGUF", "the embedded model's file"),
        "n_ctx": ("context", "the embedded model's context window (tokens)"),
    },
)
