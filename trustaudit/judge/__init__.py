"""LLM judge on the tail: a few pages the heuristics cannot settle, asked of a model the user runs."""
