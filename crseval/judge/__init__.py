"""LLM judges: rubric prompts over delimited transcripts, ratings through crseval.llm."""
