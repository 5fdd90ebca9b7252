"""Every Python block in docs/ runs, in order per page, and prints what the page says; the documented weights are
the code's; every relative link of the README and docs/ resolves.

Blocks run with the offline stand-ins of conftest.py (``retriever``, ``llm``, ``index``, ``chat_llm``,
``json_llm``) and, for the OpenAI example, the OpenAI SDK pointed at the loopback stub server. Shell blocks
(```bash) are not run.

Printed values in comments (README.md and docs/, checked by :func:`run_blocks`)
-----------------------------------------------------------------------------
A comment on the line where a ``print(...)`` call ends shows what that call prints, and is checked against it::

    print(verdict.label, round(verdict.score, 2))   # hallucinated 1.0

- Comment-only lines right below the call show the next printed lines, one per line (a call in a loop, or one that
  prints several lines); a call with no comment of its own may show all its output there.
- ``...`` stands for any text, as in doctest: ``# PydanticResponse date=...``.
- A number with decimals stands for the printed number rounded to as many decimals: ``0.99`` matches 0.9873 and
  0.99, not 0.9959. Prefer two decimals for scores (scoring changes move the third).
- `` -- `` ends what is shown; the rest is a note for the reader: ``# no_context -- unverified, not supported``.
- A comment that starts with ``e.g.`` is illustrative and not checked; comments on lines that call no ``print``
  are never checked.

A mismatch fails with the page, the block, the line and what was printed, so a comment is refreshed by pasting.
"""

import ast
import builtins
import contextlib
import dataclasses
import io
import json
import re
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from halguard.llm.envelope import request_nonce
from tests.conftest import JWST_BAD, python_blocks
from tests.stub_llm_server import StubLLMServer, completion

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# Each page and the test that runs its blocks. docs/architecture.md is written separately and holds no Python
# block; it joins the list when it exists.
PAGES = {
    "active.md": "test_active_page",
    "audit.md": "test_pages_without_python_blocks",
    "budget.md": "test_pages_without_python_blocks",
    "calibration.md": "test_calibration_page",
    "cli.md": "test_pages_without_python_blocks",
    "consistency.md": "test_consistency_page",
    "detectors.md": "test_detectors_page",
    "evaluation.md": "test_pages_without_python_blocks",
    "guarantees.md": "test_guarantees_page",
    "how-it-works.md": "test_how_it_works_page",
    "langchain.md": "test_langchain_page",
    "llamaindex.md": "test_llamaindex_page",
    "local-llm.md": "test_local_llm_page",
    "model-card.md": "test_model_card_page",
    "real-apps.md": "test_real_apps_page",
}
if (DOCS / "architecture.md").exists():
    PAGES["architecture.md"] = "test_pages_without_python_blocks"


# -- printed values in comments (the convention is in the module docstring) ----------------------------------

_SHOWN = re.compile(r"(\.\.\.|-?\d+\.\d+)")
_NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE]-?\d+)?)"


def shows(shown: str, printed: str) -> bool:
    """Whether a comment's ``shown`` text matches a ``printed`` line (``...`` and rounded numbers, see above)."""
    pieces = _SHOWN.split(shown)
    pattern = "".join(".*" if p == "..." else _NUMBER if i % 2 else re.escape(p) for i, p in enumerate(pieces))
    m = re.fullmatch(pattern, printed)
    if m is None:
        return False
    numbers = [p for i, p in enumerate(pieces) if i % 2 and p != "..."]
    return all(f"{float(got):.{len(want.split('.')[1])}f}" == want for want, got in zip(numbers, m.groups()))


def shown_outputs(block: str) -> dict[tuple[int, int], list[str]]:
    """``{(first line, last line) of a print call: the lines its comments show}``, for the calls that show any."""
    comments: dict[int, tuple[str, bool]] = {}  # line -> (text, alone on its line)
    for tok in tokenize.generate_tokens(io.StringIO(block).readline):
        if tok.type == tokenize.COMMENT:
            alone = not tok.line[: tok.start[1]].strip()
            comments[tok.start[0]] = (tok.string[1:].strip(), alone)
    calls = sorted((node.lineno, node.end_lineno) for node in ast.walk(ast.parse(block))
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print")
    lines = block.splitlines()
    shown: dict[tuple[int, int], list[str]] = {}
    for first, last in calls:
        texts = [comments[last][0]] if last in comments and not comments[last][1] else []
        below = last + 1
        while below in comments and comments[below][1] and lines[below - 1].strip().startswith("#"):
            texts.append(comments[below][0])
            below += 1
        if texts and not any(t.startswith("e.g.") for t in texts):
            shown[(first, last)] = [t.split(" -- ", 1)[0].rstrip() for t in texts]
    return shown


@contextlib.contextmanager
def recording_prints(namespace: dict) -> Iterator[list[tuple[str, int, list[str]]]]:
    """``print`` in ``namespace`` records ``(file, line, printed lines)`` per call, and still prints."""
    calls: list[tuple[str, int, list[str]]] = []

    def print_(*args, **kwargs):
        if kwargs.get("file") not in (None, sys.stdout):
            return builtins.print(*args, **kwargs)
        out = io.StringIO()
        builtins.print(*args, **{**kwargs, "file": out})
        sys.stdout.write(out.getvalue())
        caller = sys._getframe(1)
        calls.append((caller.f_code.co_filename, caller.f_lineno, out.getvalue().splitlines() or [""]))
        return None

    namespace["print"] = print_
    try:
        yield calls
    finally:
        namespace.pop("print", None)


def check_shown_outputs(where: str, block: str, calls: list[tuple[str, int, list[str]]]) -> None:
    """Every print comment of ``block`` (run as file ``where``) matches what that call printed."""
    lines = block.splitlines()
    wrong = []
    for (first, last), shown in shown_outputs(block).items():
        printed = [line for file, n, out in calls if file == where and first <= n <= last for line in out]
        if len(printed) != len(shown) or not all(shows(s, p) for s, p in zip(shown, printed)):
            wrong.append(f"  line {last} of the block: {lines[last - 1].strip()}\n"
                         f"    the comments show: {shown}\n    it printed:        {printed}")
    assert not wrong, (f"{where}: a comment shows other values than the code prints (convention: tests/test_docs.py)"
                       ":\n" + "\n".join(wrong))


def run_blocks(path: Path, namespace: dict) -> Iterator[list[str]]:
    """Run the ```python blocks of ``path`` in order in ``namespace``, checking their printed-value comments;
    yields each block's printed lines (after it ran, so the caller can read ``namespace``)."""
    for number, block in enumerate(python_blocks(path), 1):
        where = f"{path.relative_to(ROOT)}, block {number}"
        out = io.StringIO()
        with recording_prints(namespace) as calls, contextlib.redirect_stdout(out):
            exec(compile(block, where, "exec"), namespace)
        check_shown_outputs(where, block, calls)
        yield out.getvalue().splitlines()


def run_page(name: str, namespace: dict) -> list[list[str]]:
    return list(run_blocks(DOCS / name, namespace))


def markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def test_every_docs_page_has_only_tested_blocks():
    assert sorted(p.name for p in DOCS.glob("*.md")) == sorted(PAGES)
    for test in set(PAGES.values()):
        assert callable(globals()[test])


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.name)
def test_every_python_block_is_tagged_python(path):
    """A block tagged ```py or ```Python would silently escape the tests: only ```python blocks run."""
    fences = re.findall(r"^[ \t]*```(\S*)", path.read_text(encoding="utf-8"), re.M)
    assert len(fences) % 2 == 0, "an unclosed code block"
    untested = [tag for tag in fences[0::2] if tag != "python" and re.fullmatch(r"(i?py(thon)?\d*|pycon)", tag.lower())]
    assert untested == [], f"Python blocks that would not run: {untested}"


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.name)
def test_every_relative_link_resolves(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    text = re.sub(r"`[^`\n]*`", "", text)  # nor does inline code
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    missing = []
    for target in targets:
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor in the same page
        if not (path.parent / target.split("#", 1)[0]).exists():
            missing.append(target)
    assert not missing, f"{path.name} links to missing files: {missing}"


def test_pages_without_python_blocks():
    for name, test in PAGES.items():
        if test == "test_pages_without_python_blocks":
            assert python_blocks(DOCS / name) == [], f"{name} has Python blocks: give it a test that runs them"


# -- the weights table of how-it-works.md is the code's ------------------------------------------------------


def documented_defaults(page: Path, heading: str) -> dict[str, str]:
    """``{field: default}`` from the ``| field | default | what it does |`` table under ``heading``."""
    text = page.read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    assert lines[0] == "| field | default | what it does |", lines[:1]
    rows = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        name = re.fullmatch(r"`(\w+)`", cells[0])
        assert name, f"the first column holds a field name in backticks: {line}"
        assert name.group(1) not in rows, f"{name.group(1)} has two rows"
        rows[name.group(1)] = cells[1]
    return rows


@pytest.mark.parametrize(("heading", "cls", "defaults"), [
    ("## The weights", "ScoringWeights", "DEFAULT_WEIGHTS"),
    ("## Premise weights", "PremiseWeights", "DEFAULT_PREMISE_WEIGHTS"),
])
def test_documented_weights_are_the_code(heading, cls, defaults):
    from halguard.grounding import scoring

    documented = documented_defaults(DOCS / "how-it-works.md", heading)
    fields = [f.name for f in dataclasses.fields(getattr(scoring, cls))]
    assert sorted(set(fields) - set(documented)) == [], f"{cls} fields with no row in docs/how-it-works.md"
    assert sorted(set(documented) - set(fields)) == [], f"rows that name no field of {cls}"
    for name in fields:
        assert float(documented[name]) == float(getattr(getattr(scoring, defaults), name)), name


def test_readme_figures_are_the_evaluation_page():
    """The README's Measured table is a copy of docs/evaluation.md's: one set of figures."""
    readme = README.read_text(encoding="utf-8").split("\n## Measured\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in readme.splitlines() if line.startswith("|")]
    evaluation = (DOCS / "evaluation.md").read_text(encoding="utf-8").splitlines()
    assert len(rows) >= 10
    assert [row for row in rows if row not in evaluation] == []


# -- the pages -----------------------------------------------------------------------------------------------


def test_how_it_works_page(verifier):
    claims, paraphrased, changed, times, derived, quantities, reporting, roles, choice, weights = run_page(
        "how-it-works.md", {})
    assert paraphrased == ["supported ['Riders = Cyclists (0.76)']"]  # said in other words (issue 45)
    # a quantity in another unit within its bound passes, another unit does not; a light word weighs less
    assert quantities == ["['supported', 'hallucinated', 'supported', 'hallucinated']"]
    # "Passage 2 explains" is the answer's report; what it reports is checked
    assert reporting == ["['supported', 'hallucinated']"]
    # a number the passage writes with another unit or per another period is changed; a holiday is its date
    assert changed == ["['supported', 'hallucinated', 'hallucinated', 'supported']"]
    # a time of day written another way passes; the other half of the day does not, in a copied sentence too
    assert times == ["['supported', 'hallucinated', 'hallucinated']"]
    # a difference the passage's two percentages give passes; another number does not
    assert derived == ["['supported', 'hallucinated']"]
    assert claims == [
        "CONTRADICTION ['launch'] launch 'JWST launched on 25 December 2019 on a Falcon Heavy [1].'",
        "SUPPORTED ['mirror'] mirror 'Its mirror is 6.5 metres across [2].'",
        "[('I hope this helps!', 'hedge or filler')]",
        "no_context",
    ]
    assert weights == ["supported 0.27"]
    # the role check's block: the swap is named, the passive restatement passes (asserted in the block)
    assert roles == ["roles swapped: Palmera Freight / Northwind Logistics HALLUCINATION"]  # a role conflict does not block
    # the choice check's block: the other option, named with both years; the right one passes
    assert choice == ["hallucinated ['Sandra Gulland: the passages give Lorraine Hansberry 1930, against 1944 for "
                      "Sandra Gulland']", "supported"]


def test_langchain_page(standins):
    namespace = dict(standins)
    outputs, answers = [], []
    for printed in run_blocks(DOCS / "langchain.md", namespace):
        outputs.append(printed)
        answers.append(namespace.get("answer"))
    agent, node, history, lcel, sources, streamed, traced = outputs
    # the agent with the middleware: the unsupported sentence is gone, from the answer and from the thread
    assert agent == ["hallucinated -> Webb's primary mirror is 6.5 metres across.",
                     "Webb's primary mirror is 6.5 metres across."]
    # the StateGraph RAG routes a flagged answer to the decline node
    assert node == ["hallucinated -> I can't answer that from the documents."]
    # the docs' LCEL chain: the str is unchanged, the verdict came from the retriever's run
    assert lcel == ["hallucinated ['2019', 'Falcon Heavy']"]
    assert answers[3] == JWST_BAD and isinstance(answers[3], str)  # the str, not a dict
    # sentence by sentence: only the supported sentence streams; the verdict is on the caller's span
    assert streamed == ['"Webb\'s primary mirror is 6.5 metres across."']
    # the raised exception: its claims on exc.verdict, none of its text in the exception event the SDK recorded
    assert traced == ["hallucinated hallucinated halguard.verdict",
                      "['JWST was launched on 25 December 2019 on a Falcon Heavy rocket.']", "exception False"]
    # the "return sources" form annotates; the strict guard raises and the fallback answers
    assert sources == ["hallucinated When did JWST launch?", "{'answer': \"I can't answer that reliably.\"}"]
    # history: three answers judged, and the session holds one turn
    assert history == ["hallucinated 3 2"]


def test_llamaindex_page(standins):
    query, chat, structured = run_page("llamaindex.md", dict(standins))
    assert query == ["hallucinated"]
    # a chat engine with "filter": the unsupported sentence is gone, from the answer and the memory
    assert chat == ["hallucinated -> Webb's primary mirror is 6.5 metres across.", "True"]
    # structured output keeps its type
    assert structured[0] == "PydanticResponse date='25 December 2019' rocket='Falcon Heavy'"
    assert structured[1] == "hallucinated ['date: 25 December 2019', 'rocket: Falcon Heavy']"


def test_consistency_page(standins, monkeypatch):
    with StubLLMServer() as stub:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", stub.url + "/v1")
        paraphrases = ["Which colour was Napoleon's horse?", "Napoleon's horse was what colour?",
                       "What was the colour of Napoleon's horse?"]
        # The stand-ins echo each request's nonce, as the prompts ask (a reply without it is not read).
        stub.reply_with(lambda body: completion(json.dumps({"nonce": request_nonce(body["messages"]),
                                                            "paraphrases": paraphrases})))
        stub.reply_with(lambda body: completion(json.dumps({
            "nonce": request_nonce(body["messages"]), "hallucination_detected": True, "confidence_score": 0.9,
            "conflicting_facts": [{"fact": "colour"}], "reasoning": "grey vs white", "summary": "conflict"})))
        (pas2,) = run_page("consistency.md", dict(standins))
        assert len(stub.requests) == 2  # one paraphrase call, one judge call
    assert pas2[0].startswith("inconsistent [{'fact': 'colour'}]")


def test_local_llm_page():
    from tests.stub_llm_server import StubLLMServer

    with StubLLMServer() as stub:
        stub.reply("Canberra", logprobs=[("Can", -0.12, [("Can", -0.12), ("Sy", -2.7)]),
                                         ("berra", -0.0001, [("berra", -0.0001)])])
        (block,) = run_page("local-llm.md", {"LLM_URL": stub.url + "/v1"})
        assert stub.requests[0]["body"]["top_logprobs"] == 3
    assert block == ["Canberra [('Can', 0.89), ('berra', 1.0)]"]


def test_real_apps_page(standins):
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough

    class Streaming(GenericFakeChatModel):
        """Streams the same answer on every call (GenericFakeChatModel takes an iterator of messages)."""

    answer = f"{JWST_BAD} Webb's primary mirror is 6.5 metres across."
    llm = Streaming(messages=iter([AIMessage(content=answer) for _ in range(3)]))
    prompt = ChatPromptTemplate.from_template("{context}\n\nQuestion: {question}")
    rag_chain = {"context": standins["retriever"] | (lambda docs: "\n".join(d.page_content for d in docs)),
                 "question": RunnablePassthrough()} | prompt | llm | StrOutputParser()
    stream, citations, correlation, threads = run_page("real-apps.md", {**standins, "rag_chain": rag_chain})
    assert stream == ['"Webb\'s primary mirror is 6.5 metres across."']  # no raw token of the removed sentence
    assert citations == ["supported WEAK_SUPPORT ['[2]']"]
    assert correlation == ["True When did JWST launch?"]
    assert threads == ["supported"]


def test_calibration_page(verifier, tmp_path, monkeypatch):
    import shutil

    from halguard.grounding.calibration import Calibration

    shutil.copy(ROOT / "tests" / "data" / "dev_examples.jsonl", tmp_path / "my_rows.jsonl")
    monkeypatch.chdir(tmp_path)
    shapes, recalibrate, fixed = run_page("calibration.md", {})
    assert shapes == ["short_answer supported 0.5 0.73", "long_answer hallucinated 0.7153 CONTRADICTION"]
    assert recalibrate == ["True"] and (tmp_path / "profile.json").is_file()
    assert fixed == ["0.9 supported True"]
    # The page's table is the shipped calibration.
    text = (DOCS / "calibration.md").read_text(encoding="utf-8")
    for name, entry in Calibration.default().shapes.items():
        assert f"| `{name}` |" in text
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        assert row.endswith(f"| {entry.threshold:.3f} | {entry.weak_threshold:.3f} |")


def test_model_card_page():
    (printed,) = run_page("model-card.md", {})
    assert printed[0] == "True"


def test_detectors_page():
    options, exported, offline = run_page("detectors.md", {})
    assert exported == ["hallucinated", "supported"] and offline == ["True"]
    assert options == ["('max_length', 512)", "{'reading': 'reference'}", "True"]


def test_guarantees_page(verifier):
    budget, overruled = run_page("guarantees.md", {})
    assert budget == ["unverified budget_exceeded"]
    assert overruled[0] == "hallucinated llm_overruled" and overruled[2:] == ["supported", "supported"]


def test_active_page():
    import runpy

    from halguard.llm.providers import CallableChat
    from tests.test_active_adapters import Docs, LogprobChat, LogprobLLM

    cookbook = runpy.run_path(str(ROOT / "cookbook" / "active_repair.py"))  # its scripted model and retriever
    script, passages = cookbook["scripted_llm"], cookbook["PASSAGES"]

    from langchain_core.documents import Document
    from llama_index.core import Settings, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.schema import TextNode

    class PassageDocs(Docs):
        def _get_relevant_documents(self, query, *, run_manager):
            return [Document(page_content=p, id=f"p{i}") for i, p in enumerate(passages)]

    Settings.llm, Settings.embed_model = MockLLM(), MockEmbedding(embed_dim=8)
    namespace = {"llm": CallableChat(script, name="scripted"), "retrieve": cookbook["retrieve"],
                 "chat_model": LogprobChat(script=script), "lc_retriever": PassageDocs(queries=[]),
                 "index": VectorStoreIndex([TextNode(text=p, id_=f"n{i}") for i, p in enumerate(passages)]),
                 "li_llm": LogprobLLM(script=script)}
    generate, stream, fix, policy, lc, li, premise = run_page("active.md", namespace)
    fixed = "The Eiffel Tower was completed in 1889. It was built by Gustave Eiffel's engineering company."
    assert generate == [fixed, "repaired 'The Eiffel Tower was completed in 1899.'",
                        'confident "It was built by Gustave Eiffel\'s engineering company."', "supported 4"]
    assert stream == ["repaired: The Eiffel Tower was completed in 1889.",
                      "confident: It was built by Gustave Eiffel's engineering company."]
    assert fix == ["hallucinated -> supported | The Eiffel Tower is in Paris. The Eiffel Tower was completed in 1889.",
                   "[('rewritten', 'It was completed in 1899.')]"]
    assert policy == ["The Eiffel Tower is in Paris. The Eiffel Tower was completed in 1889."]
    assert lc == [fixed, str(["The Eiffel Tower was completed in 1889.",
                              " It was built by Gustave Eiffel's engineering company."])]
    assert li == [fixed]
    assert premise == ["rectified | Where was the Eiffel Tower built?",
                       "true_premise | When was the Eiffel Tower completed?"]
