"""Guard a LangChain RAG chain with halguard — offline by default.

An InMemoryVectorStore over the bundled corpus (embedded with the local MiniLM), a chat model that
answers once faithfully and once with a fabricated fact, the guard in annotate and raise+fallback modes,
the observe-only callback handler (sync and awaited), and, with langchain and langgraph installed, an agent
(create_agent + a retriever tool, guarded by HalguardMiddleware) keeping its conversation in a checkpointer thread.

    python cookbook/langchain_rag_guard.py

With OPENAI_API_KEY (and langchain-openai installed) or MISTRAL_API_KEY (and langchain-mistralai installed)
the same script asks the real model instead of the scripted one.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel, FakeListChatModel, FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from halguard import HallucinationError
from halguard.tools.render import format_verdict
from langchain_halguard import HalguardEmbeddings, get_halguard_callback, with_halguard

CORPUS = Path(__file__).parent / "data" / "webb_corpus.json"
QUESTION = "When and on which rocket was the James Webb Space Telescope launched?"
FAITHFUL = "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou, French Guiana."
FABRICATED = "JWST was launched on 25 December 2019 on a SpaceX Falcon Heavy rocket from Cape Canaveral."

PROMPT = ChatPromptTemplate.from_template(
    "Answer the question using only the context.\n\nContext:\n{context}\n\nQuestion: {input}"
)


def chat_model() -> tuple[BaseChatModel, str]:
    """A real model when a key and its integration are available, else a scripted one."""
    if os.environ.get("OPENAI_API_KEY"):
        try:
            from langchain_openai import ChatOpenAI

            return ChatOpenAI(model="gpt-4o-mini", temperature=0), "openai:gpt-4o-mini"
        except ImportError:
            print("OPENAI_API_KEY is set but langchain-openai is not installed; using the scripted model")
    if os.environ.get("MISTRAL_API_KEY"):
        try:
            from langchain_mistralai import ChatMistralAI

            return ChatMistralAI(model="mistral-large-latest", temperature=0), "mistral:mistral-large-latest"
        except ImportError:
            print("MISTRAL_API_KEY is set but langchain-mistralai is not installed; using the scripted model")
    scripted = FakeListChatModel(responses=[FAITHFUL, FABRICATED, FABRICATED, FABRICATED])
    return scripted, "scripted (one faithful answer, then fabricated ones)"


class ScriptedToolCaller(FakeMessagesListChatModel):
    """A scripted chat model an agent can bind tools to: it searches once, then answers."""

    def bind_tools(self, tools, **kwargs):
        return self


def build_retriever():
    passages = json.loads(CORPUS.read_text(encoding="utf-8"))
    store = InMemoryVectorStore(HalguardEmbeddings())
    store.add_documents([Document(id=p["id"], page_content=p["text"]) for p in passages])
    return store.as_retriever(search_kwargs={"k": 2})


def build_chain(llm: BaseChatModel):
    retriever = build_retriever()
    format_docs = RunnableLambda(lambda docs: "\n\n".join(d.page_content for d in docs))
    generate = {"context": lambda x: format_docs.invoke(x["context"]), "input": lambda x: x["input"]} | PROMPT | llm | StrOutputParser()
    # The LCEL "return sources" form: the output holds the documents and the answer.
    return RunnableParallel(context=retriever, input=RunnablePassthrough()).assign(answer=generate)


def main() -> None:
    llm, label = chat_model()
    print(f"chat model: {label}\n")
    chain = build_chain(llm)

    print("== annotate (default): the verdict rides along under 'halguard'")
    guarded = with_halguard(chain)
    for _ in range(2):
        out = guarded.invoke(QUESTION)
        print(f"answer: {out['answer']}")
        print(format_verdict(out["halguard"]), "\n")

    print("== raise + fallback: a hallucination raises, with_fallbacks answers instead")
    apology = RunnableLambda(lambda q: {"input": q, "answer": "I can't answer that reliably from our documents."})
    safe = with_halguard(chain, on_hallucination="raise").with_fallbacks(
        [apology], exceptions_to_handle=(HallucinationError,)
    )
    print(f"answer: {safe.invoke(QUESTION)['answer']}\n")

    print("== callback handler: observe an unwrapped chain")
    with get_halguard_callback() as cb:
        chain.invoke(QUESTION)
    for run_id, verdict in cb.verdicts.items():
        print(f"run {run_id}: {verdict.label} (risk {verdict.score:.2f}); spans: {[s.text for s in verdict.spans]}")

    print("\n== callback handler, awaited: the verdict is there when the await returns (no flush)")

    async def observe() -> int:
        with get_halguard_callback() as acb:
            await chain.ainvoke(QUESTION)
            return len(acb.verdicts)

    print(f"verdicts after ainvoke: {asyncio.run(observe())}")

    agent_demo(llm, label)


def agent_demo(llm: BaseChatModel, label: str) -> None:
    """create_agent with a retriever tool, its conversation in a checkpointer thread, the dict message form."""
    try:
        from langchain.agents import create_agent
        from langchain_core.tools import create_retriever_tool
        from langgraph.checkpoint.memory import InMemorySaver
    except ImportError:
        print("\n(agent example skipped: pip install langchain langgraph)")
        return
    from halguard import get_verdict
    from langchain_halguard import HalguardMiddleware

    print("\n== an agent (create_agent + a retriever tool + HalguardMiddleware), its conversation in a checkpointer "
          "thread")
    search = create_retriever_tool(build_retriever(), "search_webb", "Search the James Webb documents.")
    if label.startswith("scripted"):
        call = {"name": "search_webb", "args": {"query": QUESTION}, "id": "call-1"}
        llm = ScriptedToolCaller(responses=[AIMessage(content="", tool_calls=[call]), AIMessage(content=FABRICATED)])
    agent = create_agent(llm, tools=[search], checkpointer=InMemorySaver(), middleware=[HalguardMiddleware()])
    config = {"configurable": {"thread_id": "demo-user"}}
    out = agent.invoke({"messages": [{"role": "user", "content": QUESTION}]}, config)
    print(f"answer: {out['messages'][-1].content}")
    print(format_verdict(get_verdict(out["messages"][-1])))  # also in out["halguard"], a dict the thread keeps
    print(f"messages in the thread: {len(agent.get_state(config).values['messages'])}")


if __name__ == "__main__":
    main()
