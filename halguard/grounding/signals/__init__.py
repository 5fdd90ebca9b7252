"""Signals: one module per thing a claim can get wrong against its evidence."""
