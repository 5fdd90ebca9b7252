"""Labels of fabrications hidden by their form (issue 25, items 7-9; the figures in docs/guarantees.md).

    python benchmarks/bench_hidden_by_form.py [--threads 1]

- volume: 3 to 150 invented sentences, alone and behind two true ones, and a 99 KB run-on sentence of invented
  words: the label, the score against the answer shape's threshold, and how many claims were flagged;
- scripts: a sentence in Chinese, Japanese, Russian, Greek or Arabic after a true English one, with a number the
  context lacks, with the context's own number, and with no number;
- negation in a copy: a verbatim copy of 4 to 12 context sentences with one of them negated in place ("NASA did
  not lead the project with support from ESA."), the copies alone, and the copies with a negated paraphrase
  added at 5 positions (a known limit of the word rules).

Every row is timed (median seconds per check, the model loaded and warm). Torch runs on ``--threads`` threads.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import torch

from halguard import LocalVerifier

NOUNS = ["farmers", "bakers", "sailors", "lawyers", "poets", "miners", "weavers", "doctors"]
VERBS = ["praised", "painted", "guarded", "cleaned", "sold", "photographed", "repaired", "climbed"]
EIFFEL = ["The Eiffel Tower was completed in 1889 in Paris. It is 330 metres tall.",
          "The tower was designed and built by the engineering company of Gustave Eiffel."]
SALE = ["The Eiffel Tower is in Paris. In 2019 the city spent 500 million euros on its renovation."]
PROJECT = [
    "The Artemis programme was announced in 2017.", "NASA led the project with support from ESA.",
    "The first crewed flight is planned for 2026.", "The Space Launch System rocket carries the Orion capsule.",
    "Orion was built by Lockheed Martin.", "The service module was supplied by Airbus.",
    "The programme aims to land astronauts near the lunar south pole.",
    "Several commercial landers will deliver cargo.", "The Gateway station will orbit the Moon.",
    "Japan will contribute a pressurised rover.", "Canada supplies the Canadarm3 robotic arm.",
    "The programme has been delayed several times.",
]
# One copied sentence negated in place (the case), by its index in PROJECT.
NEGATED = {1: "NASA did not lead the project with support from ESA.",
           4: "Orion was never built by Lockheed Martin.",
           5: "The service module was not supplied by Airbus.",
           9: "Japan will not contribute a pressurised rover."}
# A negated paraphrase added to the copy: no sentence of the context shares its words (led/lead, a reworded
# subject), so only the meaning tells; the word rules do not (see issue 26's meaning verifier).
NEGATION = "Leadership of the project did not come from NASA."


def invented(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return " ".join(f"The {rng.choice(NOUNS)} quietly {rng.choice(VERBS)} the old {rng.choice(NOUNS)} near the "
                    "river." for _ in range(n))


def run(verifier: LocalVerifier, answer: str, contexts: list[str], question: str | None = None):
    t0 = time.perf_counter()
    verdict = verifier.verify(answer, contexts, question=question)
    return verdict, time.perf_counter() - t0


def volume(verifier: LocalVerifier) -> None:
    print("volume (item 7): label, score / threshold, flagged claims, seconds")
    true = "The Eiffel Tower was completed in 1889 in Paris. It is 330 metres tall. "
    rng = random.Random(1)
    runon = "The tower " + " ".join(rng.choice(["florbic", "wendle", "zastrop", "quimble", "trazzle", "noffin"])
                                    for _ in range(12_500))
    cases = [(f"{n} invented sentences", invented(n)) for n in (3, 10, 40, 150)]
    cases += [(f"2 true + {n} invented", true + invented(n)) for n in (10, 150)]
    cases += [(f"run-on invented words ({len(runon[:99_000]) // 1000} KB)", runon[:99_000] + ".")]
    for name, answer in cases:
        verdict, seconds = run(verifier, answer, EIFFEL)
        threshold = verifier.operating_point(verdict.profile)[0] if verdict.profile else None
        score = f"{verdict.score:.4f}" if verdict.score is not None else "-"
        codes = [e.code for e in verdict.errors]
        print(f"  {name:<34} {verdict.label:<12} {score} / {threshold}  "
              f"{len(verdict.flagged_claims)}/{len(verdict.claims)}  {seconds:.2f} s {codes or ''}")


def scripts(verifier: LocalVerifier) -> None:
    print("scripts (item 8): label, status of the foreign sentence, error codes")
    sentences = {
        "zh, year not in context": "该塔于2021年以5亿欧元出售给卡塔尔。",
        "zh, the context's year and amount": "该塔于2019年花费5亿欧元翻新。",
        "zh, no number": "该塔被出售给了卡塔尔。",
        "ja, year not in context": "塔は2021年にカタールに売却された。",
        "ru, year not in context": "Башня была продана в 1925 году.",
        "el, year not in context": "Ο πύργος πουλήθηκε το 1999.",
        "ar, year in Arabic-Indic digits": "بيع البرج عام ٢٠٢١.",
    }
    for name, sentence in sentences.items():
        verdict, seconds = run(verifier, "The Eiffel Tower is in Paris. " + sentence, SALE)
        print(f"  {name:<36} {verdict.label:<12} {verdict.claims[-1].status.value:<14} "
              f"{[e.code for e in verdict.errors]}  {seconds:.2f} s")


def negation_in_copy(verifier: LocalVerifier) -> None:
    print("negation in a verbatim copy (item 9): hallucinated / answers, median seconds")
    context = [" ".join(PROJECT)]
    rows: dict[str, list[tuple[bool, float]]] = {"negated in place": [], "copy alone": [],
                                                  "negated paraphrase added": []}
    for n in (4, 6, 8, 10, 12):
        copy = PROJECT[:n]
        for which, negated in NEGATED.items():
            if which < n:
                answer = " ".join(negated if i == which else s for i, s in enumerate(copy))
                verdict, seconds = run(verifier, answer, context)
                rows["negated in place"].append((verdict.label == "hallucinated", seconds))
        verdict, seconds = run(verifier, " ".join(copy), context)
        rows["copy alone"].append((verdict.label == "hallucinated", seconds))
        for k in range(5):
            answer = " ".join([*copy[: k * n // 5], NEGATION, *copy[k * n // 5:]])
            verdict, seconds = run(verifier, answer, context)
            rows["negated paraphrase added"].append((verdict.label == "hallucinated", seconds))
    for what, results in rows.items():
        flagged = sum(f for f, _ in results)
        print(f"  {what:<26} {flagged}/{len(results)} hallucinated  {statistics.median(t for _, t in results):.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    verifier = LocalVerifier(num_threads=args.threads)
    verifier.warm_up()
    print(f"torch threads: {args.threads}")
    volume(verifier)
    scripts(verifier)
    negation_in_copy(verifier)


if __name__ == "__main__":
    main()
