"""LLM judges as detectors: any chat model (an OpenAI-compatible local server included) asked whether an answer
is grounded, so it can be benchmarked against the local verifier on the same rows (``halguard bench --detector
llm-judge``)."""

from halguard.llm_judge.grounding import GroundingJudge
from halguard.llm_judge.sampling import SamplingDetector

__all__ = ["GroundingJudge", "SamplingDetector"]
