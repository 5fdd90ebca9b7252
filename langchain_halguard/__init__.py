"""LangChain integration for halguard (Runnable guards, callback handler).

The guards are built in their own issue; this package exists so the distribution's layout is stable.
"""

__all__: list[str] = []
