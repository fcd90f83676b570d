"""Retry LLM calls with tenacity: the right codes, Retry-After, deadlines and budgets."""

__all__: list[str] = []
