"""Plumbing every method shares: memos bounded by bytes, and private files written safely."""
