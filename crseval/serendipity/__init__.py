"""Serendipity: proxy metrics and evaluators, meta-evaluated against user-study answers."""
