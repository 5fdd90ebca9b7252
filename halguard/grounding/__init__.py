"""Grounding: each claim of an answer checked against the retrieved context, offline.

Reading order: :mod:`~halguard.grounding.embedding` and :mod:`~halguard.grounding.index` find evidence,
:mod:`~halguard.grounding.signals` measures each claim against it, :mod:`~halguard.grounding.scoring` turns the
measurements into a risk (every weight, gate and cap in one place), :mod:`~halguard.grounding.explain` writes
statuses, reasons and spans, and :class:`~halguard.grounding.verifier.LocalVerifier` runs the stages.
"""
