"""LlamaIndex integration for halguard (node postprocessor, guarded query engine, evaluator).

The components are built in their own issue; this package exists so the distribution's layout is stable.
"""

__all__: list[str] = []
