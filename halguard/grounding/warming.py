"""A sample check run by :meth:`LocalVerifier.warm_up`, so the first real check pays no first-time cost.

Loading the model is not all a first check pays: the sentence splitter compiles its patterns as it meets
abbreviations, lists and quotes; the model's kernels meet their first long and short inputs; the word tables are
read. This sample holds what those first meetings need (abbreviations, numbers, dates, money, percentages,
citations, a list, a quote, a JSON record, a long passage), so ``warm_up()`` pays them once instead of the first
request. Without it the first check imported the sentence splitter and took 1.20-1.36x the later ones; with it,
1.14-1.19x (``benchmarks/bench_fresh_context.py --first-after-warm-up``), and it imports nothing
(``tests/test_guard_core.py``).
"""

from __future__ import annotations

__all__ = ["WARM_ANSWER", "WARM_CONTEXT", "WARM_QUESTION"]

WARM_QUESTION = "What did Acme Inc. report for 2019, and who resigned?"

WARM_CONTEXT = [
    ("report", "Acme Inc. (NYSE: ACM) reported revenue of $5.2 billion in fiscal 2019, up 3.5% from 2018, "
               "according to its annual report [1]. Mr. J. Smith, the chief executive, resigned on 4 March 2019; "
               "Dr. A. Jones (Ph.D., M.I.T.) was named interim CEO on Jan. 5, 2020, i.e. ten months later. "
               "The U.S. unit, e.g. its St. Louis plant, employed approx. 1,200 people vs. 1,150 a year earlier."),
    ("notes", "Key points:\n1. Sales rose in Q3.\n2. Costs fell by two thousand dollars.\n- Margins: 12.5%.\n"
              "\"We are confident,\" the company said. No. 7 on the list was its new product (see p. 4)."),
    ("record", '{"name": "Acme Inc.", "founded": 1987, "headquarters": "St. Louis", "employees": 1200, '
               '"public": true, "ceo": null}'),
    ("long", " ".join(f"In paragraph {i}, the board noted that the company's plants in Ohio, Texas and Bavaria "
                      f"produced {i * 110} units, and that the results of the third quarter were discussed."
                      for i in range(1, 9))),
]

WARM_ANSWER = ("Acme Inc. reported revenue of $5.2 billion in 2019, up 3.5%. Its chief executive, Mr. Smith, "
               "resigned in March 2019, and Dr. Jones became interim CEO. The company had about 1,200 employees.")
