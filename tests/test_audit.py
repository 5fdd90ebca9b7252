"""halguard audit: input shapes, the in-process engine, resume, faults, the report, and the Ray Data engine."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from halguard import Detector, LocalVerifier, Verdict
from halguard.audit import FieldMap, InputError, audit
from halguard.audit.records import MAX_PASSAGES, iter_jsonl, record_from_row, row_identity
from halguard.errors import InvalidInputError
from halguard.tools.cli import main

PASSAGE = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres tall."
ROWS = [
    {"id": "ok-1", "question": "When was the tower completed?", "context": [PASSAGE], "answer": "It was completed in 1889.",
     "model": "m-a", "timestamp": "2026-11-20T10:00:00Z", "cluster": "dates"},
    {"id": "bad-1", "question": "When was the tower completed?", "context": [PASSAGE],
     "answer": "It was completed in 1925 by Gustave Flaubert.", "model": "m-b", "timestamp": "2026-11-21T09:00:00Z",
     "cluster": "dates"},
    {"id": "xss", "question": "How tall is it?", "context": [{"id": "doc<1>", "text": PASSAGE}],
     "answer": 'It is 500 metres tall <script>alert("x")</script> "><img src=x onerror=alert(1)>.', "model": "m-b"},
    {"id": "empty", "question": "q", "context": [PASSAGE], "answer": "", "model": "m-a"},
]


def write_jsonl(path: Path, rows: list, extra_lines: tuple[str, ...] = ()) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "".join(f"{x}\n" for x in extra_lines),
                    encoding="utf-8")
    return path


# -- input shapes -----------------------------------------------------------------------------------------------------


def test_the_shapes_are_read_without_a_mapping():
    fields = FieldMap()
    dev = record_from_row(ROWS[0], file="f", line=1, fields=fields)
    assert dev.id == "ok-1" and dev.row_id.startswith("ok-1#") and dev.model == "m-a" and dev.cluster == "dates"
    assert [t for _, t in dev.contexts] == [PASSAGE] and dev.contexts[0][0].startswith("p0:")
    handler = record_from_row({"run_id": "r1", "question": "q", "answer": "a", "verdict": {},
                               "contexts": [{"id": "wiki/eiffel", "text": PASSAGE}]}, file="f", line=2, fields=fields)
    assert handler.id == "r1" and handler.sources == ["wiki/eiffel"]
    # Plain passages: distinct ids by position and content (issue 48), the same passage the same id across rows.
    other = record_from_row({**ROWS[0], "id": "x", "context": ["Another passage."]}, file="f", line=3, fields=fields)
    again = record_from_row({**ROWS[0], "id": "y"}, file="f", line=4, fields=fields)
    assert other.contexts[0][0] != dev.contexts[0][0] and again.contexts[0][0] == dev.contexts[0][0]
    llama = record_from_row({"query_str": "q", "response": "a", "source_nodes": [
        {"node": {"id_": "n1", "text": PASSAGE, "metadata": {}}, "score": 0.8},
        {"node": {"text": "Other.", "metadata": {"source": "s.pdf"}}, "score": 0.5}]}, file="f", line=3, fields=fields)
    assert llama.question == "q" and llama.answer == "a" and llama.sources == ["n1", "s.pdf"]
    assert llama.row_id == row_identity(None, question="q", answer="a", contexts=[("n1", PASSAGE), ("s.pdf", "Other.")])
    assert llama.row_id.startswith("sha256:") and llama.id is None  # no id: a stable content id


def test_a_mapping_reads_nested_exports():
    row = {"inputs": {"question": "q"}, "outputs": {"answer": "a", "docs": [{"page_content": PASSAGE}, {"page_content": "B"}]},
           "extra": {"llm": "gpt"}}
    fields = FieldMap.parse(["question=inputs.question", "answer=outputs.answer",
                             "contexts=outputs.docs[].page_content", "model=extra.llm"])
    rec = record_from_row(row, file="f", line=1, fields=fields)
    assert rec.question == "q" and [t for _, t in rec.contexts] == [PASSAGE, "B"] and rec.model == "gpt"
    for bad in (["question"], ["nope=x"], ["answer="], ["answer=" + ".".join("a" * 20)]):
        with pytest.raises(InvalidInputError):
            FieldMap.parse(bad)


def test_bad_rows_are_errors_with_their_line_not_exceptions(tmp_path):
    path = write_jsonl(tmp_path / "in.jsonl", ROWS[:1], ("{not json", "[1, 2]", '{"answer": 3, "context": []}',
                                                         '{"answer": "a", "context": [{"x": 1}]}', '{"answer": "a"}',
                                                         '{"answer": "a", "context": "one passage"}', ""))
    items = list(iter_jsonl(path, fields=FieldMap()))
    errors = [(e.line, e.message) for e in items if isinstance(e, InputError)]
    assert [line for line, _ in errors] == [2, 3, 4, 5, 6]
    assert "not JSON" in errors[0][1] and "object" in errors[1][1] and "not text" in errors[2][1]
    assert "passage 0" in errors[3][1] and "contexts are missing" in errors[4][1]
    assert [r.line for r in items if not isinstance(r, InputError)] == [1, 7]  # a bare string is one passage
    many = record_from_row({"answer": "a", "context": ["x"] * (MAX_PASSAGES + 50)}, file="f", line=1, fields=FieldMap())
    assert len(many.contexts) == MAX_PASSAGES


# -- the in-process engine --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def audited(tmp_path_factory, verifier):
    tmp = tmp_path_factory.mktemp("audit")
    src = write_jsonl(tmp / "log.jsonl", ROWS, ("{broken",))
    result = audit([src], tmp / "out", progress=False)
    return tmp, src, result


def test_every_row_is_written_and_joins_its_claims(audited):
    result = audited[2]
    out = result.out_dir
    answers = pq.read_table(out / "answers").to_pylist()
    by_id = {a["id"]: a for a in answers}
    assert set(by_id) == {"ok-1", "bad-1", "xss", "empty"} and result.checked == 4
    assert by_id["ok-1"]["label"] == "supported" and by_id["bad-1"]["label"] == "hallucinated"
    assert by_id["empty"]["label"] == "unverified" and by_id["empty"]["error_code"] == "empty_answer"  # kept, not dropped
    assert by_id["bad-1"]["probability"] is not None and by_id["bad-1"]["profile"] == "short_answer"
    claims = pq.read_table(out / "claims").to_pylist()
    assert {c["row_id"] for c in claims} <= {a["row_id"] for a in answers}
    flagged = [c for c in claims if c["row_id"] == by_id["bad-1"]["row_id"]]
    assert flagged and flagged[0]["status"] in ("CONTRADICTION", "HALLUCINATION")
    assert PASSAGE[:20] in flagged[0]["evidence_text"]
    assert by_id["bad-1"]["claims_total"] == len(flagged)
    assert [json.loads(line)["line"] for line in (out / "errors.jsonl").read_text().splitlines()] == [5]
    s = json.loads((out / "summary.json").read_text())
    assert (s["answers"], s["hallucinated"], s["unverified"], s["unreadable_input_rows"]) == (4, 2, 1, 1)
    assert s["hallucination_rate"] == round(2 / 3, 4) and s["unverified_reasons"] == {"empty_answer": 1}
    models = {m["value"]: m for m in s["by"]["model"]}
    assert models["m-b"]["hallucinated"] == 2 and models["m-a"]["unverified"] == 1
    assert [d["value"] for d in s["by_day"]] == ["2026-11-20", "2026-11-21"]
    assert not list(out.glob(".staging-*")) and not list(out.glob(".*.tmp"))


def test_the_report_highlights_spans_and_escapes_the_logs(audited):
    result = audited[2]
    page = (result.out_dir / "report.html").read_text(encoding="utf-8")
    assert '<mark class="span"' in page and "1925" in page
    assert "<script>" not in page and "<img src=x" not in page  # untrusted text is escaped, never markup
    assert "&lt;script&gt;" in page and "doc&lt;1&gt;" in page
    assert "default-src 'none'" in page and "http://" not in page and "https://" not in page  # no network
    assert 'src="data:image/png;base64,' in page  # the plots are inline


def test_a_rerun_skips_what_is_done_and_checks_only_new_rows(audited):
    tmp, src, first = audited
    again = audit([src], first.out_dir, progress=False)
    assert (again.checked, again.skipped_done) == (0, 4)
    new = dict(ROWS[0], id="ok-2", answer="It is 330 metres tall.")
    write_jsonl(tmp / "more.jsonl", [new, new])  # the same row twice: checked once
    more = audit([src, tmp / "more.jsonl"], first.out_dir, progress=False)
    assert (more.checked, more.skipped_done, more.duplicates) == (1, 4, 1)
    ids = pq.read_table(first.out_dir / "answers", columns=["id"]).column("id").to_pylist()
    assert sorted(ids) == ["bad-1", "empty", "ok-1", "ok-2", "xss"]
    assert len((first.out_dir / "errors.jsonl").read_text().splitlines()) == 1  # merged, not repeated


class Exploding(Detector):
    """A detector that fails on one answer, or interrupts the whole run."""

    name = "exploding"

    def __init__(self, interrupt: bool = False) -> None:
        self.interrupt = interrupt

    def verify(self, answer, contexts, *, question=None):
        if self.interrupt:
            raise KeyboardInterrupt
        if "boom" in answer:
            msg = "the detector broke"
            raise RuntimeError(msg)
        return LocalVerifier(embedder=None).verify(answer, contexts, question=question)


def test_a_failing_check_is_an_unverified_row_and_an_interrupted_run_writes_nothing(tmp_path, verifier):
    src = write_jsonl(tmp_path / "in.jsonl", [ROWS[0], dict(ROWS[1], id="b", answer="boom it broke")])
    result = audit([src], tmp_path / "out", detector=Exploding, progress=False)
    rows = {r["id"]: r for r in pq.read_table(tmp_path / "out" / "answers").to_pylist()}
    assert rows["b"]["label"] == "unverified" and rows["b"]["error_code"] == "internal_error"
    assert "the detector broke" in rows["b"]["error_message"] and rows["ok-1"]["label"] == "supported"
    before = sorted(p.name for p in (tmp_path / "out" / "answers").iterdir())
    write_jsonl(tmp_path / "new.jsonl", [dict(ROWS[0], id="n")])
    with pytest.raises(KeyboardInterrupt):
        audit([tmp_path / "new.jsonl"], tmp_path / "out", detector=lambda: Exploding(interrupt=True), progress=False)
    assert sorted(p.name for p in (tmp_path / "out" / "answers").iterdir()) == before  # nothing half-written
    assert not list((tmp_path / "out").glob(".staging-*"))  # the failed run removed its staging folder
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["answers"] == 2
    assert result.summary["answers"] == 2
    (tmp_path / "out" / ".staging-killed").mkdir()  # what a run killed outright (SIGKILL) leaves
    audit([tmp_path / "new.jsonl"], tmp_path / "out", progress=False)  # the next run clears the dead staging folder
    assert not list((tmp_path / "out").glob(".staging-*"))


class SlowJudge(Detector):
    """An async detector that records how many calls overlap."""

    name = "slow-judge"

    def __init__(self) -> None:
        self.active = self.peak = 0
        self.lock = threading.Lock()

    def verify(self, answer, contexts, *, question=None):  # pragma: no cover - the audit calls averify
        raise AssertionError

    async def averify(self, answer, contexts, *, question=None):
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        await asyncio.sleep(0.02)
        with self.lock:
            self.active -= 1
        return Verdict(label="supported", hallucination_detected=False, score=0.1, threshold=0.5, detector=self.name)


def test_other_detectors_run_concurrently_within_the_bound(tmp_path):
    judge = SlowJudge()
    rows = [dict(ROWS[0], id=f"r{i}") for i in range(20)]
    result = audit([write_jsonl(tmp_path / "in.jsonl", rows)], tmp_path / "out", detector=lambda: judge,
                   llm_concurrency=3, batch_size=10, progress=False)
    assert result.checked == 20 and judge.peak == 3


def test_parquet_input_and_bad_options(tmp_path, verifier):
    table = pa.Table.from_pylist([{"q": r["question"], "a": r["answer"], "ctx": r["context"] if isinstance(
        r["context"][0], str) else [PASSAGE]} for r in ROWS[:2]])
    pq.write_table(table, tmp_path / "log.parquet")
    result = audit([tmp_path / "log.parquet"], tmp_path / "out", fields=FieldMap.parse(["question=q", "answer=a",
                                                                                          "contexts=ctx"]), progress=False)
    assert result.checked == 2 and result.summary["hallucinated"] == 1
    with pytest.raises(InvalidInputError, match="no such input"):
        audit([tmp_path / "missing.jsonl"], tmp_path / "o2")
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(InvalidInputError, match="JSONL"):
        audit([tmp_path / "x.csv"], tmp_path / "o2")
    with pytest.raises(InvalidInputError, match="engine"):
        audit([tmp_path / "log.parquet"], tmp_path / "o2", engine="spark")


def test_audit_cli(tmp_path, capsys, verifier):
    src = write_jsonl(tmp_path / "in.jsonl", ROWS[:2])
    assert main(["audit", str(src), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "checked 2 answers" in out and "1 hallucinated" in out and "report.html" in out
    assert main(["audit", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")]) == 2
    assert main(["audit", str(src), "--out", str(tmp_path / "o"), "--map", "colour=x"]) == 2
    assert "colour" in capsys.readouterr().err


def _plant_link(out: Path, where: str, target: Path) -> Path:
    """A symlink planted at ``out`` itself (``where`` empty) or at ``where`` inside it."""
    link = out / where if where else out
    link.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    link.symlink_to(target)
    return link


@pytest.mark.parametrize("where", ["", "answers", "claims", "errors.jsonl", "summary.json", "report.html",
                                   "answers/part-planted.parquet"])
@pytest.mark.parametrize("dangling", [False, True])
def test_audit_cli_refuses_a_planted_symlink_naming_it(tmp_path, capsys, verifier, where, dangling):
    src = write_jsonl(tmp_path / "in.jsonl", ROWS[:1])
    target = tmp_path / "elsewhere"
    if not dangling:
        target.mkdir() if "." not in where else target.write_text("keep\n")
    link = _plant_link(tmp_path / "out", where, target)
    assert main(["audit", str(src), "--out", str(tmp_path / "out"), "--quiet"]) == 2  # docs/cli.md: bad input
    err = capsys.readouterr().err
    assert f"refusing the unsafe path {link}: it is a symlink" in err and "internal error" not in err
    assert link.is_symlink()
    if where:  # the folder is real: the refused run left no staging folder behind
        assert not list((tmp_path / "out").glob(".staging-*"))
    if not dangling:  # nothing written or read through the link
        assert (target.read_text() == "keep\n") if target.is_file() else not list(target.iterdir())


def test_audit_refuses_a_link_put_in_after_the_folder_was_checked(tmp_path, verifier):
    from halguard.audit.store import AuditStore
    from halguard.errors import UnsafePathError

    store = AuditStore(tmp_path / "out")
    store.open()
    (tmp_path / "elsewhere").mkdir()
    _plant_link(tmp_path / "out", "answers", tmp_path / "elsewhere")
    with pytest.raises(UnsafePathError, match="unsafe path .*answers: it is a symlink"):
        store.commit([])
    assert not (tmp_path / "out" / "errors.jsonl").exists()  # refused before anything was moved into place


def test_the_callback_handler_log_is_auditable(tmp_path, verifier):
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableLambda

    from langchain_halguard import HalguardCallbackHandler

    log = tmp_path / "handler.jsonl"
    handler = HalguardCallbackHandler(jsonl_path=log)

    from langchain_core.retrievers import BaseRetriever

    class Docs(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager):
            return [Document(page_content=PASSAGE, metadata={"source": "wiki/eiffel"})]

    chain = {"context": Docs(), "question": lambda x: x} | RunnableLambda(lambda d: "It was completed in 1925.")
    chain.invoke("When was the tower completed?", config={"callbacks": [handler]})
    line = json.loads(log.read_text().splitlines()[0])
    assert line["contexts"] == [{"id": "wiki/eiffel", "text": PASSAGE}]
    result = audit([log], tmp_path / "out", progress=False)
    row = pq.read_table(tmp_path / "out" / "answers").to_pylist()[0]
    assert result.checked == 1 and row["label"] == "hallucinated" and row["sources"] == ["wiki/eiffel"]


# -- the browser ------------------------------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian package chromium)")
@pytest.mark.timeout(120)
def test_the_report_renders_in_a_real_browser(audited, tmp_path):
    _, _, result = audited
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    url = (result.out_dir / "report.html").as_uri()
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=90,
                         check=True).stdout
    marks = re.findall(r'<mark class="span"[^>]*>([^<]*)</mark>', dom)
    assert any("1925" in m for m in marks) and any("500" in m for m in marks)  # the browser built the highlights
    assert "<script" not in dom.lower() and "<img src=\"x\"" not in dom  # the injected markup stayed text
    assert re.search(r'data-row-id="bad-1#[0-9a-f]{32}"', dom)
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *flags, "--window-size=1200,1600", f"--screenshot={shot}", url], capture_output=True,
                   timeout=90, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


# -- the Ray Data engine ----------------------------------------------------------------------------------------------

def crash_once(marker: str):
    """A detector factory whose process dies on its first answer, once per test (a marker file remembers)."""

    def make():
        class CrashOnce(LocalVerifier):
            def verify_batch(self, answers, contexts, *, questions=None):
                if not os.path.exists(marker):
                    Path(marker).write_text("crashed")
                    os._exit(1)  # the actor's process dies: no exception, no cleanup
                return super().verify_batch(answers, contexts, questions=questions)

        return CrashOnce()

    return make


@pytest.mark.slow
@pytest.mark.ray
@pytest.mark.timeout(420)
def test_the_ray_engine_matches_the_local_one_and_survives_a_killed_actor(tmp_path, verifier):
    pytest.importorskip("ray", reason='the ray engine needs pip install "halguard[ray]"')
    rows = [dict(ROWS[i % 2], id=f"r{i}") for i in range(12)] + [ROWS[3], dict(ROWS[0], id=7), dict(ROWS[0], id="7")]
    src = write_jsonl(tmp_path / "in.jsonl", rows, ("{broken", "[" * 100_000))
    local = audit([src], tmp_path / "local", progress=False)
    marker = tmp_path / "crashed"
    result = audit([src], tmp_path / "ray", engine="ray", num_actors=2, batch_size=4,
                   detector=crash_once(str(marker)), progress=False)
    assert marker.exists()  # an actor did die
    got = {r["row_id"]: r["label"] for r in pq.read_table(tmp_path / "ray" / "answers").to_pylist()}
    want = {r["row_id"]: r["label"] for r in pq.read_table(tmp_path / "local" / "answers").to_pylist()}
    assert got == want and len(got) == 15 and result.checked == 15 == local.checked  # no row lost or doubled
    assert result.input_errors == 2 and result.summary["unreadable_input_rows"] == 2  # the deep row too
    assert result.id_collisions == local.id_collisions == 1  # 7 and "7": the same identity rule on both engines

    def unreadable(out):
        return [e for e in map(json.loads, (out / "errors.jsonl").read_text().splitlines()) if "kind" not in e]

    assert unreadable(tmp_path / "ray") == unreadable(tmp_path / "local")  # same files, lines and messages
    assert str(os.getpid()) not in result.summary["workers"]  # checked in the actors, not in this process
    again = audit([src], tmp_path / "ray", engine="ray", num_actors=2, progress=False)  # resume, on Ray too
    assert (again.checked, again.skipped_done) == (0, 15)
