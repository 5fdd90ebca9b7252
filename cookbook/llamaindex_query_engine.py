"""Guard a LlamaIndex query engine with halguard — offline by default.

A VectorStoreIndex over the bundled corpus (embedded with the local MiniLM through HalguardEmbedding), a
scripted LLM that gives one faithful and one fabricated answer, the node postprocessor, the guarded engine
(plain and streaming) and the evaluator.

    python cookbook/llamaindex_query_engine.py

With OPENAI_API_KEY (and llama-index-llms-openai installed) or MISTRAL_API_KEY (and
llama-index-llms-mistralai installed) the real model answers instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.llms import LLM, CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback

from halguard import Verdict
from halguard.tools.render import format_verdict
from llamaindex_halguard import HalguardEmbedding, HalguardEvaluator, HalguardNodePostprocessor, HalguardQueryEngine

CORPUS = Path(__file__).parent / "data" / "webb_corpus.json"
QUESTION = "When and on which rocket was the James Webb Space Telescope launched?"
FAITHFUL = "JWST was launched on 25 December 2021 on an Ariane 5 rocket from Kourou, French Guiana."
FABRICATED = "JWST was launched on 25 December 2019 on a SpaceX Falcon Heavy rocket from Cape Canaveral."


class ScriptedLLM(CustomLLM):
    """Answers with the scripted texts in turn (streams them word by word)."""

    answers: list[str]
    calls: int = 0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted")

    def _next(self) -> str:
        self.calls += 1
        return self.answers[(self.calls - 1) % len(self.answers)]

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._next())

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Iterator[CompletionResponse]:
        words, text = self._next().split(" "), ""
        for i, word in enumerate(words):
            delta = word if i == 0 else " " + word
            text += delta
            yield CompletionResponse(text=text, delta=delta)


def llm() -> tuple[LLM, str]:
    if os.environ.get("OPENAI_API_KEY"):
        try:
            from llama_index.llms.openai import OpenAI

            return OpenAI(model="gpt-4o-mini", temperature=0), "openai:gpt-4o-mini"
        except ImportError:
            print("OPENAI_API_KEY is set but llama-index-llms-openai is not installed; using the scripted LLM")
    if os.environ.get("MISTRAL_API_KEY"):
        try:
            from llama_index.llms.mistralai import MistralAI

            return MistralAI(model="mistral-large-latest", temperature=0), "mistral:mistral-large-latest"
        except ImportError:
            print("MISTRAL_API_KEY is set but llama-index-llms-mistralai is not installed; using the scripted LLM")
    return ScriptedLLM(answers=[FAITHFUL, FABRICATED]), "scripted (faithful, then fabricated, in turn)"


def show(title: str, verdict: dict) -> None:
    print(f"== {title}")
    print(format_verdict(Verdict.model_validate(verdict)), "\n")


def main() -> None:
    model, label = llm()
    Settings.llm = model
    print(f"LLM: {label}\n")
    passages = json.loads(CORPUS.read_text(encoding="utf-8"))
    index = VectorStoreIndex.from_documents(
        [Document(text=p["text"], id_=p["id"]) for p in passages], embed_model=HalguardEmbedding()
    )
    postprocessor = HalguardNodePostprocessor()
    engine = HalguardQueryEngine(index.as_query_engine(similarity_top_k=2, node_postprocessors=[postprocessor]))

    for title in ("first answer", "second answer"):
        response = engine.query(QUESTION)
        print(f"answer: {response}")
        show(title, response.metadata["halguard"])
    node = response.source_nodes[0].node
    print("what the postprocessor wrote on the top node:", json.dumps(node.metadata["halguard"], indent=1)[:400], "\n")

    streaming = HalguardQueryEngine(index.as_query_engine(similarity_top_k=2, streaming=True))
    stream = streaming.query(QUESTION)
    print("streamed: ", end="")
    for token in stream.response_gen:
        print(token, end="", flush=True)
    print()
    show("streamed answer (verdict computed when the stream ended)", stream.metadata["halguard"])

    evaluator = HalguardEvaluator()
    for answer in (FAITHFUL, FABRICATED):
        result = evaluator.evaluate(query=QUESTION, response=answer, contexts=[p["text"] for p in passages])
        print(f"evaluator: passing={result.passing} score={result.score:.2f}\n  {result.feedback}")


if __name__ == "__main__":
    main()
