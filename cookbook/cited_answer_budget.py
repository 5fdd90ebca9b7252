"""Per-claim evidence budgets for an answer that cites its sources ([S0], [S1]).

Offline, a scripted verifier plays the model: it answers "does the evidence entail the claim?" with token
probabilities, high when the cited passage states the claim and near the prior when it does not. With
HALGUARD_LLM_URL (a local OpenAI-compatible server: ``make local-llm``) or OPENAI_API_KEY (gpt-4o-mini) a real
model answers.

    python cookbook/cited_answer_budget.py
"""

from __future__ import annotations

import math
import os

from halguard import LocalVerifier, detect_hallucination
from halguard.budget import BudgetVerifier
from halguard.llm.envelope import request_data, request_nonce
from halguard.llm.providers import CallableChat, ChatReply, TokenLogprob

SPANS = [
    {"sid": "S0", "text": "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou."},
    {"sid": "S1", "text": "Webb's primary mirror is 6.5 metres across and made of 18 hexagonal segments."},
]
ANSWER = ("JWST was launched on 25 December 2021 [S0]. Its mirror has 18 hexagonal segments [S1]. "
          "It was built to find life on Mars [S1].")


def scripted_verifier(messages: list[dict[str, str]]) -> ChatReply:
    """P(yes) 0.97 when a visible cited passage shares most of the claim's words, else 0.4. It reads the claim and
    evidence from the request's data block and replies ``VERDICT <nonce> yes`` (or no), the line the prompt asks
    for, with the verdict token's probabilities."""
    data = request_data(messages)
    claim_words = {w.strip(".,").lower() for w in data["claim"].split() if len(w) > 3}
    visible = " ".join(e["text"] for e in data["evidence"] if e["text"] != "[REDACTED]").lower()
    shared = sum(w in visible for w in claim_words) / max(len(claim_words), 1)
    p = 0.97 if shared > 0.6 else 0.4
    word = "yes" if p >= 0.5 else "no"
    top = ((" yes", math.log(p)), (" no", math.log(1 - p)))
    tokens = (TokenLogprob("VERDICT", 0.0), TokenLogprob(" " + request_nonce(messages), 0.0),
              TokenLogprob(" " + word, dict(top)[" " + word], top))
    return ChatReply("".join(t.token for t in tokens), 40, len(tokens), logprobs=tokens)


def verifier():
    if os.environ.get("HALGUARD_LLM_URL"):
        import openai

        from halguard import OpenAIChat

        client = openai.OpenAI(base_url=os.environ["HALGUARD_LLM_URL"], api_key="unused")
        return OpenAIChat(client, os.environ.get("HALGUARD_LLM_MODEL", "qwen2.5-coder-1.5b"), max_tokens=24,
                          timeout=300), "local"
    if os.environ.get("OPENAI_API_KEY"):
        import openai

        from halguard import OpenAIChat

        return OpenAIChat(openai.OpenAI(), "gpt-4o-mini", max_tokens=24), "openai"
    return CallableChat(scripted_verifier, name="scripted"), "scripted"


def main() -> None:
    model, label = verifier()
    print(f"verifier: {label}\n")
    report = detect_hallucination(ANSWER, SPANS, verifier=model, require_citations=True)
    for d in report["details"]:
        gap = d.get("budget_gap") or {}
        print(f"[{d['idx']}] {'FLAGGED' if d['flagged'] else 'ok':7} {d['claim']}")
        if d["scored"]:
            print(f"      prior {d['prior_yes']['max']:.2f} -> post {d['post_yes']['min']:.2f}; "
                  f"gap {gap['min']:+.2f}..{gap['max']:+.2f} bits")
        else:
            print(f"      not scored: {d['error']}")
    s = report["summary"]
    print(f"\nflagged claims {s['flagged_idxs']} of {len(report['details'])}; {s['llm_calls']} calls; "
          f"probabilities: {s['probabilities']}")
    verdict = BudgetVerifier(model, cascade=LocalVerifier()).verify(ANSWER, [(x["sid"], x["text"]) for x in SPANS])
    sent = sum(c.budget is not None for c in verdict.claims)
    print(f"with the local verifier first: {verdict.label}; {sent} of {len(verdict.claims)} claims went to the "
          f"LLM ({verdict.usage.llm_calls} calls)")


if __name__ == "__main__":
    main()
