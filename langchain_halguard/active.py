"""HalguardActiveRAG: a retrieval chain that validates each sentence while it is generated, and repairs it.

It takes the place of ``create_retrieval_chain(retriever, llm_chain)``: the same input (``{"input": question}``
or a bare question) and the same output keys (``input``, ``context``, ``answer``), plus the verdict under
``"halguard"`` with the trace of what was validated and repaired (``verdict.active``). ``stream`` yields each
sentence only once it is final, with its trace, so a UI never shows text that is then taken back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Literal, Optional

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import AddableDict
from pydantic import ConfigDict, Field

from halguard.active import ActiveGenerator, ActiveResult, ActiveSettings
from halguard.active.settings import DEFAULT_ACTIVE_SETTINGS
from halguard.errors import InputTypeError, InvalidInputError
from halguard.schema import METADATA_KEY
from halguard.text.contexts import Source

__all__ = ["HalguardActiveRAG"]


class _Retrieved:
    """One call's retrieved documents, by the id the generator knows them by (never shared between calls)."""

    def __init__(self) -> None:
        self.by_id: dict[str, Document] = {}
        self.by_text: dict[str, str] = {}
        self.calls = 0

    def sources(self, docs: Any) -> list[Source]:
        """Sources for one retrieval's documents. A document keeps its own ``id`` when that id names only it;
        otherwise (no id, or an id shared by other text, as chunks of one file can be) it is named by retrieval
        and position (``r2.0``), so every distinct document comes back in ``context``."""
        self.calls += 1
        if isinstance(docs, (Document, str)):
            docs = [docs]
        if not isinstance(docs, list):
            msg = f"the retriever returned {type(docs).__name__}; expected a list of Documents"
            raise InputTypeError(msg)
        out = []
        for i, doc in enumerate(docs):
            if isinstance(doc, str):
                doc = Document(page_content=doc)
            if not isinstance(doc, Document):
                msg = f"the retriever returned a {type(doc).__name__} at position {i}; expected a Document"
                raise InputTypeError(msg)
            known = self.by_id.get(doc.id) if doc.id else None
            if doc.id and (known is None or known.page_content == doc.page_content):
                sid = doc.id
            else:  # the same text retrieved again keeps the name it got the first time
                sid = self.by_text.setdefault(doc.page_content, f"r{self.calls}.{i}")
            self.by_id.setdefault(sid, doc)
            out.append(Source(sid, doc.page_content))
        return out

    def documents(self, result: ActiveResult) -> list[Document]:
        return [self.by_id[s.id] for s in result.sources if s.id in self.by_id]


class HalguardActiveRAG(RunnableSerializable[Any, dict]):
    """Retrieve, generate sentence by sentence, validate low-confidence concepts against retrieved evidence, and
    repair what fails (see :mod:`halguard.active`).

    Example:
        .. code-block:: python

            from langchain_halguard import HalguardActiveRAG

            rag = HalguardActiveRAG(llm=ChatOpenAI(model="gpt-4o-mini"), retriever=vectorstore.as_retriever())
            out = rag.invoke({"input": "When was the Eiffel Tower completed?"})
            out["answer"], out["halguard"]["active"]["sentences"]
    """

    llm: Any
    """The chat model that writes the answer and does the checking steps; ``ChatOpenAI`` (also against any
    OpenAI-compatible ``base_url``) returns the token log-probabilities the method needs."""
    retriever: Any
    """A retriever (or any Runnable from a query to documents): queried with the question and with each
    validation question."""
    question_key: str = "input"
    """Where the question is in a dict input."""
    concepts: Literal["rules", "llm"] = "rules"
    """Who names a sentence's key concepts: offline rules, or the model (one more call per sentence)."""
    uncertainty: Literal["min", "mean", "product"] = "min"
    """How a concept's token probabilities combine."""
    settings: ActiveSettings = Field(default=DEFAULT_ACTIVE_SETTINGS)
    """Thresholds and per-answer budgets (:class:`halguard.active.ActiveSettings`)."""
    detector: Any = None
    """The final check of the answer (default: the shared local verifier)."""
    cache: Any = None
    """An opt-in :class:`halguard.llm.cache.ResponseCache` for the checking steps."""
    output_key: str = METADATA_KEY
    """The key the verdict goes under."""
    no_answer: Optional[str] = None  # noqa: UP045 - pydantic field on Python 3.10
    """The answer when every sentence was dropped (default: halguard's fallback message)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    def _question(self, input_: Any) -> str:
        if isinstance(input_, str):
            return input_
        if isinstance(input_, Mapping) and isinstance(input_.get(self.question_key), str):
            return input_[self.question_key]
        if isinstance(input_, Mapping):
            msg = f"the input needs the question under '{self.question_key}' (a str)"
            raise InvalidInputError(msg)
        msg = f"input must be a question (str) or a dict with '{self.question_key}', got {type(input_).__name__}"
        raise InputTypeError(msg)

    def _generator(self, run_manager: Any, config: RunnableConfig, retrieved: _Retrieved) -> ActiveGenerator:
        """A generator for this call: the model and the retriever run as children of this chain's run."""
        from langchain_core.language_models import BaseChatModel

        from langchain_halguard.providers import LangChainChat, to_chat_model

        child = patch_config(config, callbacks=run_manager.get_child())
        retriever = self.retriever

        def retrieve(query: str) -> list[Source]:
            return retrieved.sources(retriever.invoke(query, child))

        async def aretrieve(query: str) -> list[Source]:
            return retrieved.sources(await retriever.ainvoke(query, child))

        extra = {"no_answer": self.no_answer} if self.no_answer is not None else {}
        # A LangChain model runs as a child of this chain's run; a client or a callable is used as it is.
        chat = LangChainChat(self.llm, config=child) if isinstance(self.llm, BaseChatModel) else to_chat_model(self.llm)
        return ActiveGenerator(chat, retriever=retrieve, aretriever=aretrieve, detector=self.detector,
                               concepts=self.concepts, uncertainty=self.uncertainty, settings=self.settings,
                               cache=self.cache, **extra)

    def _output(self, question: str, result: ActiveResult, retrieved: _Retrieved) -> dict[str, Any]:
        return {"input": question, "context": retrieved.documents(result), "answer": result.answer,
                self.output_key: result.verdict.to_metadata()}

    # -- invoke ---------------------------------------------------------------------------------------------

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> dict:  # noqa: A002
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> dict:  # noqa: A002
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    def _invoke(self, input_: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig) -> dict:
        question, retrieved = self._question(input_), _Retrieved()
        result = self._generator(run_manager, config, retrieved).generate(question)
        return self._output(question, result, retrieved)

    async def _ainvoke(self, input_: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig) -> dict:
        question, retrieved = self._question(input_), _Retrieved()
        result = await self._generator(run_manager, config, retrieved).agenerate(question)
        return self._output(question, result, retrieved)

    # -- stream ---------------------------------------------------------------------------------------------

    def transform(self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[dict]:  # noqa: A002
        yield from self._transform_stream_with_config(input, self._transform, config, **kwargs)

    async def atransform(self, input: AsyncIterator[Any], config: RunnableConfig | None = None,  # noqa: A002
                         **kwargs: Any) -> AsyncIterator[dict]:
        async for chunk in self._atransform_stream_with_config(input, self._atransform, config, **kwargs):
            yield chunk

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[dict]:  # noqa: A002
        return self.transform(iter([input]), config, **kwargs)

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[dict]:  # noqa: A002
        async def one() -> AsyncIterator[Any]:
            yield input

        async for chunk in self.atransform(one(), config, **kwargs):
            yield chunk

    def _transform(self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun,
                   config: RunnableConfig) -> Iterator[dict]:
        question, retrieved = self._question(_last(inputs)), _Retrieved()
        yield AddableDict(input=question)
        runner = self._generator(run_manager, config, retrieved).stream(question)
        emitted = False
        while True:
            try:
                sentence = next(runner)
            except StopIteration as stop:
                result: ActiveResult = stop.value
                break
            emitted = True
            yield AddableDict(answer=sentence.lead + sentence.text, halguard_sentences=[sentence.trace.model_dump()])
        yield self._last_chunk(result, retrieved, emitted)

    async def _atransform(self, inputs: AsyncIterator[Any], run_manager: AsyncCallbackManagerForChainRun,
                          config: RunnableConfig) -> AsyncIterator[dict]:
        last = None
        async for chunk in inputs:
            last = chunk
        question, retrieved = self._question(last), _Retrieved()
        yield AddableDict(input=question)
        out: list[ActiveResult] = []
        emitted = False
        async for sentence in self._generator(run_manager, config, retrieved).astream(question, into=out):
            emitted = True
            yield AddableDict(answer=sentence.lead + sentence.text, halguard_sentences=[sentence.trace.model_dump()])
        yield self._last_chunk(out[0], retrieved, emitted)

    def _last_chunk(self, result: ActiveResult, retrieved: _Retrieved, emitted: bool) -> AddableDict:
        last = AddableDict(context=retrieved.documents(result), **{self.output_key: result.verdict.to_metadata()})
        if not emitted:  # every sentence was dropped: the no-answer message is the answer
            last["answer"] = result.answer
        return last


def _last(inputs: Iterator[Any]) -> Any:
    last = None
    for chunk in inputs:
        last = chunk
    return last
