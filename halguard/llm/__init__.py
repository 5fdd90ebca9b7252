"""LLM plumbing shared by every LLM-backed method: chat providers (deadlines, retries, usage) and the response cache."""
