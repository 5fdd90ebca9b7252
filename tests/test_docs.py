"""Every Python block in docs/ runs, in order per page, and prints what the page says."""

import contextlib
import io
from pathlib import Path

from tests.conftest import JWST_BAD, python_blocks

DOCS = Path(__file__).resolve().parents[1] / "docs"


def run_page(name: str, namespace: dict) -> list[list[str]]:
    outputs = []
    for block in python_blocks(DOCS / name):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, f"docs/{name}", "exec"), namespace)
        outputs.append(out.getvalue().splitlines())
    return outputs


def test_every_docs_page_has_only_tested_blocks():
    assert sorted(p.name for p in DOCS.glob("*.md")) == ["guarantees.md", "real-apps.md"]  # each has a test below


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


def test_guarantees_page(verifier):
    (budget,) = run_page("guarantees.md", {})
    assert budget == ["unverified budget_exceeded"]
