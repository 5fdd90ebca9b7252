"""Paraphrase sampling (PAS2), offline: ask one question several ways and let a judge compare the answers.

Two examples with scripted models:
- Napoleon's horse: the "model" gives a different colour depending on the wording -> detected;
- the first Moon landing: every wording gets the same facts -> not detected;
each judged by the offline local judge and by a scripted LLM judge. With OPENAI_API_KEY (judge o3-mini,
answers gpt-4o-mini) or MISTRAL_API_KEY (mistral-large-latest for everything) real providers are used; with
HALGUARD_LLM_URL, a local OpenAI-compatible server (``make local-llm``) plays every part.

    python cookbook/paraphrase_sampling.py
"""

from __future__ import annotations

import json
import os

from halguard import ConsistencyJudge, LocalVerifier, ParaphraseConsistency, ResponseCache
from halguard.llm.envelope import request_data, request_nonce

NAPOLEON = "What colour was Napoleon's horse Marengo?"
MOON = "When did humans first land on the Moon?"

SCRIPTED_ANSWERS = {
    NAPOLEON: "Marengo was a grey horse.",
    "What was the colour of Marengo, Napoleon's horse?": "Marengo was white.",
    "Which colour did Napoleon's horse Marengo have?": "Marengo was a chestnut stallion.",
    "Marengo, Napoleon's horse, was what colour?": "Grey.",
    MOON: "Apollo 11 landed on the Moon on 20 July 1969.",
    "On what date did people first set foot on the Moon?": "On 20 July 1969, during Apollo 11.",
    "When was the first crewed Moon landing?": "The first crewed landing was Apollo 11 in July 1969.",
    "What year did astronauts first walk on the Moon?": "1969, with Apollo 11.",
}
PARAPHRASES = {
    NAPOLEON: ["What was the colour of Marengo, Napoleon's horse?", "Which colour did Napoleon's horse Marengo have?",
               "Marengo, Napoleon's horse, was what colour?"],
    MOON: ["On what date did people first set foot on the Moon?", "When was the first crewed Moon landing?",
           "What year did astronauts first walk on the Moon?"],
}


def scripted_llm(messages: list[dict[str, str]]) -> str:
    """Plays paraphraser and judge: it reads which job the system prompt gives it, the texts from the request's
    data block, and echoes the request's nonce, as halguard's prompts ask (a reply without it is not read)."""
    system, data = messages[0]["content"], request_data(messages)
    if "Rewrite the user's question" in system:
        return json.dumps({"nonce": request_nonce(messages), "paraphrases": PARAPHRASES[data["question"]]})
    conflict = "Marengo" in data["original"]["question"]
    return json.dumps({
        "nonce": request_nonce(messages),
        "hallucination_detected": conflict,
        "confidence_score": 0.9,
        "conflicting_facts": [{"fact": "Marengo's colour", "answers": ["grey", "white", "chestnut"]}] if conflict else [],
        "reasoning": "The answers give three colours." if conflict else "All answers say Apollo 11, July 1969.",
        "summary": "inconsistent colours" if conflict else "consistent",
    })


def providers():
    if os.environ.get("HALGUARD_LLM_URL"):  # a local OpenAI-compatible server (make local-llm), no key
        import openai

        from halguard import OpenAIChat

        client = openai.OpenAI(base_url=os.environ["HALGUARD_LLM_URL"], api_key="unused")
        model = os.environ.get("HALGUARD_LLM_MODEL", "qwen2.5-coder-1.5b")
        answer_model = OpenAIChat(client, model, temperature=0.7, max_tokens=60, timeout=120)
        answer = lambda q: answer_model.chat([{"role": "user", "content": q}]).text  # noqa: E731
        chat = OpenAIChat(client, model, timeout=120)
        return chat, ConsistencyJudge(chat), answer, "local"
    if os.environ.get("OPENAI_API_KEY"):
        import openai

        from halguard import OpenAIChat

        client = openai.OpenAI()
        answer_model = OpenAIChat(client, "gpt-4o-mini", temperature=0.7)
        answer = lambda q: answer_model.chat([{"role": "user", "content": q}]).text  # noqa: E731
        return OpenAIChat(client, "gpt-4o-mini"), ConsistencyJudge(OpenAIChat(client, "o3-mini")), answer, "openai"
    if os.environ.get("MISTRAL_API_KEY"):
        from halguard import MistralChat

        model = MistralChat()
        answer = lambda q: model.chat([{"role": "user", "content": q}]).text  # noqa: E731
        return model, ConsistencyJudge(model), answer, "mistral"
    return scripted_llm, ConsistencyJudge(scripted_llm), SCRIPTED_ANSWERS.__getitem__, "scripted"


def main() -> None:
    paraphraser, llm_judge, answer, label = providers()
    print(f"providers: {label}")
    print(f"local model loaded in {LocalVerifier().warm_up():.1f} s; the second judge reuses the cached "
          "paraphrases and answers (ResponseCache), so it pays only its own call\n")
    cache = ResponseCache()
    for judge_name, judge in (("local judge (offline)", "local"), (f"LLM judge ({llm_judge.name})", llm_judge)):
        checker = ParaphraseConsistency(paraphraser=paraphraser, judge=judge, n_paraphrases=3, cache=cache)
        for question in (NAPOLEON, MOON):
            report = checker.check(question, answer)
            print(f"== {judge_name}: {question}")
            for sample in report.answers:
                print(f"   {sample.question!r} -> {sample.answer!r}")
            verdict = "DETECTED" if report.hallucination_detected else report.label
            confidence = report.judgment.confidence_score if report.judgment else "n/a"
            print(f"   => {verdict} (confidence {confidence}); {report.usage.llm_calls} calls, "
                  f"{report.usage.input_tokens} in / {report.usage.output_tokens} out tokens, "
                  f"{report.latency_ms:.0f} ms")
            if report.judgment and report.judgment.conflicting_facts:
                print(f"   conflicts: {report.judgment.conflicting_facts[0]}")
            print()


if __name__ == "__main__":
    main()
