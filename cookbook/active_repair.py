"""Active detection and repair: validate low-confidence sentences while the answer is generated.

Offline, a scripted model plays the LLM: it writes an answer with one unlikely token (a wrong year, at token
probability 0.2), writes yes/no validation questions, answers them from the evidence it is given, and repairs
the sentence. A scripted retriever returns the passages. With HALGUARD_LLM_URL (a local OpenAI-compatible
server: ``make local-llm``) a real model does every step.

Three uses: active generation (detect and repair while generating), post-hoc repair of an answer already
written, and a false-premise question rewritten before it is answered.

    python cookbook/active_repair.py
"""

from __future__ import annotations

import math
import os
import re

from halguard import ActiveGenerator, rectify_premise, repair, verify
from halguard.llm.envelope import request_data, request_nonce
from halguard.llm.providers import CallableChat, ChatReply, TokenLogprob

PASSAGES = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was completed in 1889.",
    "Gustave Eiffel's engineering company designed and built the tower for the 1889 World's Fair.",
]
QUESTION = "When was the Eiffel Tower completed, and who built it?"
WRONG = "The Eiffel Tower was completed in 1899. It was built by Gustave Eiffel's engineering company."


def retrieve(query: str) -> list[str]:
    """A scripted retriever: every passage that shares a word of four letters or more with the query."""
    words = {w.lower() for w in re.findall(r"\w{4,}", query)}
    return [p for p in PASSAGES if words & {w.lower() for w in re.findall(r"\w{4,}", p)}] or PASSAGES


def _tokens(text: str) -> tuple[TokenLogprob, ...]:
    # Word-sized tokens; the year "1899" is the one the model was unsure of.
    return tuple(TokenLogprob(w, math.log(0.2 if "1899" in w else 0.97)) for w in re.findall(r"\s*\S+", text))


def _verdict(messages: list[dict[str, str]], p_yes: float) -> ChatReply:
    """``VERDICT <nonce> Yes`` (or No), the line the prompt asks for, with the verdict token's probabilities."""
    word = "Yes" if p_yes > 0.5 else "No"
    top = ((" Yes", math.log(p_yes)), (" No", math.log(1 - p_yes)))
    tokens = (TokenLogprob("VERDICT", 0.0), TokenLogprob(" " + request_nonce(messages), 0.0),
              TokenLogprob(" " + word, dict(top)[" " + word], top))
    return ChatReply("".join(t.token for t in tokens), logprobs=tokens)


def _bound(messages: list[dict[str, str]], keyword: str, text: str) -> ChatReply:
    """``KEYWORD <nonce> text``: a question or a rewrite bound to its request, as the prompt asks."""
    return ChatReply(f"{keyword} {request_nonce(messages)} {text}")


def scripted_llm(messages: list[dict[str, str]]) -> ChatReply:
    """Plays each step of the method by its instructions (the system message); the texts come from the request's
    data block, and every reply that decides something carries the request's nonce (halguard reads no other)."""
    system, data = messages[0]["content"], request_data(messages)
    if system.startswith("Answer the question using"):
        return ChatReply(WRONG, logprobs=_tokens(WRONG))
    if system.startswith("Continue"):  # generation goes on from the repaired text
        rest = "It was built by Gustave Eiffel's engineering company."
        return ChatReply(rest, logprobs=_tokens(rest))
    if system.startswith("Write one yes/no"):
        return _bound(messages, "QUESTION", f"Was the Eiffel Tower completed in {data['concept']}?")
    if system.startswith("Answer the question with yes"):
        year = re.search(r"\d{4}", data["question"])
        evidence = " ".join(p["text"] for p in data["evidence"])
        return _verdict(messages, 0.95 if year and year.group() in evidence else 0.05)
    if system.startswith("The sentence has"):
        return _bound(messages, "REWRITE", "The Eiffel Tower was completed in 1889.")
    if system.startswith("Does the question"):
        return _verdict(messages, 0.1 if "Berlin" in data["question"] else 0.9)
    if system.startswith("The question assumes"):
        return _bound(messages, "QUESTION", "Where was the Eiffel Tower built?")
    return ChatReply("")


def model():
    if os.environ.get("HALGUARD_LLM_URL"):
        import openai

        from halguard import OpenAIChat

        client = openai.OpenAI(base_url=os.environ["HALGUARD_LLM_URL"], api_key="unused")
        return OpenAIChat(client, os.environ.get("HALGUARD_LLM_MODEL", "qwen2.5-coder-1.5b"), max_tokens=200,
                          timeout=300), "local"
    return CallableChat(scripted_llm, name="scripted"), "scripted"


def main() -> None:
    llm, label = model()
    print(f"model: {label}\n")

    # 1. Active generation: each sentence is final only once its uncertain concepts were validated.
    generator = ActiveGenerator(llm, retriever=retrieve)
    runner = generator.stream(QUESTION)
    while True:
        try:
            sentence = next(runner)
        except StopIteration as stop:
            result = stop.value
            break
        t = sentence.trace
        print(f"[{t.decision}] {sentence.text}")
        for c in t.concepts:
            if c.uncertain:
                print(f"    {c.text!r}: p={c.probability} -> {c.outcome} ({c.question}, P(yes)={c.p_yes})")
        if t.decision == "repaired":
            print(f"    was: {t.original}")
    trace = result.trace
    print(f"answer: {result.answer}")
    print(f"verdict: {result.verdict.label}; {trace.generation_calls} generation + {trace.extra_calls} extra calls\n")

    # 2. Post-hoc repair of an answer that is already written.
    verdict = verify(WRONG, PASSAGES, question=QUESTION)
    fixed = repair(WRONG, PASSAGES, verdict, llm=llm, question=QUESTION)
    print(f"before repair: {verdict.label}: {WRONG}")
    print(f"after repair:  {fixed.verdict.label}: {fixed.answer}\n")

    # 3. A false-premise question is rewritten; a true one is left alone.
    for question in ("Why was the Eiffel Tower built in Berlin?", QUESTION):
        out = rectify_premise(question, PASSAGES, llm=llm)
        print(f"{out.outcome:12} {question!r} -> {out.rectified_question!r}")


if __name__ == "__main__":
    main()
