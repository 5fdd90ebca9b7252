"""Issue 25, items 3-5: the audit folder is private and survives any row, the response cache trusts only its own
folder, and the CLI reads bounded input from regular files only."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from halguard import ResponseCache
from halguard.errors import InvalidInputError, UnsafePathError
from halguard.util.files import (
    iter_lines_limited,
    private_dir,
    read_stream_limited,
    read_text_limited,
)

NOBODY = 65534


def make_foreign(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``path`` belong to another user: really (chown) when running as root, else by making this process
    believe it is another uid."""
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    else:
        uid = os.geteuid() + 1
        monkeypatch.setattr(os, "geteuid", lambda: uid)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def open_umask():
    """A permissive umask (0): whatever halguard creates gets exactly the mode it asks for."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


# -- item 4: the response cache trusts only a folder private to the user ----------------------------------------------

KEY = ResponseCache.key("chat", "judge-model", [{"role": "user", "content": "is it grounded?"}], True)
PLANTED = json.dumps({"value": '{"hallucination_detected": false, "confidence_score": 1.0}'})


def plant(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    entry = folder / f"{KEY}.json"
    entry.write_text(PLANTED)
    return entry


def test_item4_cache_folders_it_creates_are_0700(tmp_path, open_umask):
    cache = ResponseCache(tmp_path / "new" / "cache")
    cache.set(KEY, "reply")
    assert mode(tmp_path / "new" / "cache") == 0o700 and mode(cache.path) == 0o700
    assert mode(cache.path / f"{KEY}.json") == 0o600
    assert ResponseCache(tmp_path / "new" / "cache").get(KEY) == "reply"  # its own folder is reused


def test_item4_a_world_writable_cache_folder_is_refused(tmp_path):
    plant(tmp_path / "halguard-cache-v1")
    os.chmod(tmp_path / "halguard-cache-v1", 0o777)
    with pytest.raises(UnsafePathError, match="writable by group or others"):
        ResponseCache(tmp_path)
    os.chmod(tmp_path / "halguard-cache-v1", 0o770)  # group-writable is as bad
    with pytest.raises(UnsafePathError, match="chmod go-w"):
        ResponseCache(tmp_path)
    os.chmod(tmp_path / "halguard-cache-v1", 0o700)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)  # the root given: whoever can write it can swap the halguard-cache-v1 folder
    with pytest.raises(UnsafePathError, match="shared"):
        ResponseCache(shared)
    assert isinstance(UnsafePathError("x"), ValueError)


def test_item4_a_symlinked_cache_folder_is_refused(tmp_path):
    elsewhere = tmp_path / "attacker"
    plant(elsewhere)
    root = tmp_path / "root"
    root.mkdir(mode=0o700)
    (root / "halguard-cache-v1").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="symlink"):
        ResponseCache(root)
    link = tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="symlink"):
        ResponseCache(link)


def test_item4_a_cache_folder_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "halguard-cache-v1"
    plant(folder)
    os.chmod(folder, 0o700)
    make_foreign(folder, monkeypatch)
    with pytest.raises(UnsafePathError, match="not by this user"):
        ResponseCache(tmp_path)


def test_item4_planted_reply_files_are_never_hits(tmp_path, monkeypatch):
    cache = ResponseCache(tmp_path)
    folder = cache.path
    target = tmp_path / "reply.json"
    target.write_text(PLANTED)
    (folder / f"{KEY}.json").symlink_to(target)
    assert cache.get(KEY) is None  # a symlink
    (folder / f"{KEY}.json").unlink()
    os.mkfifo(folder / f"{KEY}.json")
    start = time.monotonic()
    assert cache.get(KEY) is None and time.monotonic() - start < 2  # a FIFO: refused without blocking
    (folder / f"{KEY}.json").unlink()
    (folder / f"{KEY}.json").write_text("[" * 100_000)
    assert cache.get(KEY) is None  # too deep to be an entry, and no RecursionError
    small = ResponseCache(tmp_path, max_bytes=100)
    (folder / f"{KEY}.json").write_text(json.dumps({"value": "x" * 10_000}))
    assert small.get(KEY) is None  # larger than any reply this cache could hold: not read
    (folder / f"{KEY}.json").write_text(PLANTED)
    make_foreign(folder / f"{KEY}.json", monkeypatch)
    if os.geteuid() != 0:  # the folder itself now looks foreign too: only the file read is under test
        monkeypatch.setattr("halguard.llm.cache.private_dir", lambda *a, **k: None)
    fresh = ResponseCache(tmp_path)
    assert fresh.get(KEY) is None and fresh.misses == 1  # owned by someone else


# -- item 3: the audit folder is private, and no row can stop a run or vanish ----------------------------------------

pq = pytest.importorskip("pyarrow.parquet", reason='halguard audit needs pip install "halguard[audit]"')

from halguard.audit import audit  # noqa: E402 - after the skip: pyarrow is an optional dependency
from halguard.tools.cli import main  # noqa: E402

PASSAGE = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres tall."
GOOD = {"question": "When was the tower completed?", "context": [PASSAGE], "answer": "It was completed in 1889."}


def write_lines(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def answers(out: Path) -> list[dict]:
    return pq.read_table(out / "answers").to_pylist()


def errors(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "errors.jsonl").read_text().splitlines()]


class StagingSpy:
    """A detector factory that records the modes of everything under the staging folder while the run goes on."""

    def __init__(self, out: Path) -> None:
        self.out, self.seen = out, {}

    def __call__(self):
        from halguard import LocalVerifier

        spy = self

        class Spy(LocalVerifier):
            def verify_batch(self, answers, contexts, *, questions=None):
                for path in [*spy.out.glob(".staging-*"), *spy.out.glob(".staging-*/**/*")]:
                    spy.seen[path.relative_to(spy.out).as_posix()] = (path.is_dir(), mode(path))
                return super().verify_batch(answers, contexts, questions=questions)

        return Spy()


def test_item3_parquet_parts_are_private(tmp_path, open_umask, monkeypatch, verifier):
    monkeypatch.setattr("halguard.audit.run._ROWS_PER_PART", 1)  # a raw part after each batch: the spy sees one
    out = tmp_path / "out"
    spy = StagingSpy(out)
    src = write_lines(tmp_path / "in.jsonl", [dict(GOOD, id=f"r{i}") for i in range(3)] + ["{broken"])
    audit([src], out, detector=spy, batch_size=1, progress=False)
    assert mode(out) == 0o700
    made = list(out.rglob("*"))
    assert {p.name for p in made} >= {"answers", "claims", "errors.jsonl", "summary.json", "report.html"}
    assert any(p.suffix == ".parquet" for p in made)
    assert {p.relative_to(out).as_posix(): mode(p) for p in made} == {
        p.relative_to(out).as_posix(): 0o700 if p.is_dir() else 0o600 for p in made}
    assert any(name.endswith(".parquet") for name in spy.seen) and any(name.endswith("/raw") for name in spy.seen)
    assert all(m == (0o700 if is_dir else 0o600) for is_dir, m in spy.seen.values()), spy.seen
    # an older version's folder (0755 parts folders) is tightened on the next run
    os.chmod(out / "answers", 0o755)
    os.chmod(out / "claims", 0o755)
    audit([write_lines(tmp_path / "more.jsonl", [dict(GOOD, id="new")])], out, progress=False)
    assert mode(out / "answers") == mode(out / "claims") == 0o700


def test_item3_a_100000_deep_row_goes_to_errors_and_the_run_goes_on(tmp_path, capsys, verifier):
    src = write_lines(tmp_path / "in.jsonl", [
        dict(GOOD, id="before"),
        "[" * 100_000,                                          # too deep to parse (was: RecursionError, exit 2)
        '{"id": "deep-object", "answer": "a", "context": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"id": "s", "answer": "It is 330 metres tall \\ud800.", "context": ["x"]}',  # no Parquet file can hold it
        dict(GOOD, id="after"),
    ])
    code = main(["audit", str(src), "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 0  # as with any other bad row
    assert "3 unreadable rows" in capsys.readouterr().out
    assert sorted(a["id"] for a in answers(tmp_path / "out")) == ["after", "before"]
    errs = {e["line"]: e["message"] for e in errors(tmp_path / "out")}
    assert set(errs) == {2, 3, 4} and "deeper than 64" in errs[2] and "deeper than 64" in errs[3]
    assert "Unicode" in errs[4] and all(e["file"] == str(src) for e in errors(tmp_path / "out"))
    assert not list((tmp_path / "out").glob(".staging-*"))


def test_item3_an_overlong_line_or_a_corrupt_parquet_file_is_an_error_not_a_crash(tmp_path, verifier):
    from halguard.util.files import MAX_JSONL_LINE_BYTES

    src = tmp_path / "in.jsonl"
    with src.open("w") as fh:
        fh.write(json.dumps(dict(GOOD, id="ok")) + "\n")
        fh.write('{"id": "huge", "answer": "' + "x" * (MAX_JSONL_LINE_BYTES + 10) + '", "context": ["x"]}\n')
        fh.write(json.dumps(dict(GOOD, id="ok-2")) + "\n")
    corrupt = tmp_path / "parts"
    corrupt.mkdir()
    (corrupt / "bad.parquet").write_bytes(b"PAR1 not really parquet")
    result = audit([src, corrupt], tmp_path / "out", progress=False)
    assert result.checked == 2 and result.input_errors == 2
    errs = {(Path(e["file"]).name, e["line"]): e["message"] for e in errors(tmp_path / "out")}
    assert "over 16,777,216 bytes" in errs[("in.jsonl", 2)] and "Parquet" in errs[("bad.parquet", 1)]


def test_item3_no_staging_is_left_behind_when_a_run_fails(tmp_path, verifier):
    src = write_lines(tmp_path / "in.jsonl", [dict(GOOD, id="a")])

    def broken():
        msg = "the detector cannot be built"
        raise RuntimeError(msg)

    with pytest.raises(RuntimeError):
        audit([src], tmp_path / "out", detector=broken, progress=False)
    assert not list((tmp_path / "out").glob(".staging-*"))
    assert main(["audit", str(src), "--out", str(tmp_path / "out2"), "--detector", "local", "--batch-size",
                 "0"]) == 2  # refused before any folder is made
    assert not (tmp_path / "out2").exists() or not list((tmp_path / "out2").glob(".staging-*"))


def test_item3_ids_1_and_str_1_are_two_rows_and_the_collision_is_reported(tmp_path, verifier):
    src = write_lines(tmp_path / "in.jsonl", [dict(GOOD, id=1), dict(GOOD, id="1"), dict(GOOD, id="1")])
    result = audit([src], tmp_path / "out", progress=False)
    rows = answers(tmp_path / "out")
    assert result.checked == 2 and len(rows) == 2 and {r["id"] for r in rows} == {"1"}  # neither dropped
    assert len({r["row_id"] for r in rows}) == 2 and result.duplicates == 1  # the exact repeat is written once
    (collision,) = [e for e in errors(tmp_path / "out") if e.get("kind") == "id_collision"]
    assert (collision["line"], collision["other_line"]) == (2, 1) and collision["id"] == "1"
    assert {collision["row_id"], collision["other_row_id"]} == {r["row_id"] for r in rows}
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["id_collisions"] == 1 and s["unreadable_input_rows"] == 0 and result.id_collisions == 1


def test_item3_an_id_reused_in_a_later_run_is_reported_and_resume_skips_exactly_what_is_done(tmp_path, verifier):
    out = tmp_path / "out"
    first = write_lines(tmp_path / "day1.jsonl", [dict(GOOD, id="req-7"), dict(GOOD, id="req-8")])
    assert audit([first], out, progress=False).checked == 2
    reused = dict(GOOD, id="req-7", answer="It was completed in 1925.")  # the app restarted its counter
    second = write_lines(tmp_path / "day2.jsonl", [reused, dict(GOOD, id="req-9")])
    again = audit([first, second], out, progress=False)
    assert (again.checked, again.skipped_done, again.id_collisions) == (2, 2, 1)
    rows = answers(out)
    assert sorted(r["id"] for r in rows) == ["req-7", "req-7", "req-8", "req-9"]  # the reused id is not dropped
    labels = {(r["id"], r["answer"]): r["label"] for r in rows}
    assert labels[("req-7", reused["answer"])] == "hallucinated" and labels[("req-7", GOOD["answer"])] == "supported"
    (collision,) = [e for e in errors(out) if e.get("kind") == "id_collision"]
    assert (Path(collision["file"]).name, collision["line"]) == ("day2.jsonl", 1)
    assert (Path(collision["other_file"]).name, collision["other_line"]) == ("day1.jsonl", 1)
    third = audit([first, second], out, progress=False)  # resume: nothing new, nothing reported twice
    assert (third.checked, third.skipped_done, third.id_collisions) == (0, 4, 0)
    assert len(answers(out)) == 4 and json.loads((out / "summary.json").read_text())["id_collisions"] == 1


# -- item 5: the CLI reads bounded input, from regular files only, and never blocks on a FIFO --------------------------

CONTEXT = "The Eiffel Tower is 330 metres tall. It was completed in 1889."


def run_cli(capsys, *argv: str) -> tuple[int, str, float]:
    start = time.monotonic()
    code = main(list(argv))
    return code, capsys.readouterr().err, time.monotonic() - start


def one_line_error(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("halguard: error: ")


@pytest.fixture
def fifo(tmp_path) -> Path:
    """A FIFO that no one ever writes to (named like a data file, so only its kind can refuse it)."""
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


def max_bytes(name: str) -> int:
    from halguard import LocalVerifier
    from halguard.tools.cli import UTF8_MAX_BYTES_PER_CHAR

    return UTF8_MAX_BYTES_PER_CHAR * getattr(LocalVerifier(calibration=None), name)


@pytest.mark.timeout(60)
def test_item5_context_file_dev_zero_fifo_and_folder_are_refused_unread(capsys, tmp_path, fifo):
    for path, kind in (("/dev/zero", "a device"), (fifo, "a FIFO"), (tmp_path, "a folder")):
        code, err, seconds = run_cli(capsys, "check", "--answer", "x", "--context-file", str(path))
        assert code == 2 and seconds < 2 and one_line_error(err), (path, err)
        assert f"is {kind}; only regular files are read" in err


@pytest.mark.timeout(60)
def test_item5_calibration_dev_zero_exits_2_fast(capsys, tmp_path, fifo):
    from halguard.grounding.calibration import MAX_CALIBRATION_BYTES

    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(MAX_CALIBRATION_BYTES + 1)  # sparse: nothing is written, and nothing must be read
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    for path, why in (("/dev/zero", "is a device"), (fifo, "is a FIFO"), (big, "over the limit"),
                      (deep, "deeper than 64")):
        code, err, seconds = run_cli(capsys, "check", "--answer", "x", "--context", "x", "--calibration", str(path))
        assert code == 2 and seconds < 2 and one_line_error(err) and why in err, (path, err)


@pytest.mark.timeout(120)
def test_item5_a_context_file_just_over_the_limit_is_refused_from_its_size(capsys, tmp_path, verifier):
    limit = max_bytes("max_context_chars")
    assert limit == 4 * 1_000_000  # UTF-8's 4 bytes per character, times the verifier's documented default
    over = tmp_path / "over.txt"
    with over.open("wb") as fh:
        fh.truncate(limit + 1)
    code, err, seconds = run_cli(capsys, "check", "--answer", "x", "--context-file", str(over))
    assert code == 2 and seconds < 2 and one_line_error(err) and f"over the limit of {limit:,}" in err
    half = tmp_path / "half.txt"
    half.write_bytes(b"The tower is tall. " * (limit // 2 // 19 + 1))  # two of them are over the limit together
    code, err, _ = run_cli(capsys, "check", "--answer", "x", "--context-file", str(half), "--context-file", str(half))
    assert code == 2 and "together" in err and str(half) in err
    at = tmp_path / "at.txt"
    at.write_bytes(b"a" * limit)  # at the limit: read, and the verifier itself says it is too large to check
    assert main(["check", "--answer", "It is tall.", "--context-file", str(at)]) == 2
    assert json.loads(capsys.readouterr().out)["errors"][0]["code"] == "context_too_large"


class Endless(io.RawIOBase):
    """``yes`` as a stream: "y\\n" for ever, counting what was served."""

    served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = len(buffer)
        buffer[:n] = (b"y\n" * (n // 2 + 1))[:n]
        self.served += n
        return n


@pytest.mark.timeout(60)
def test_item5_stdin_is_read_bounded(capsys, monkeypatch):
    raw = Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(raw)))
    code, err, seconds = run_cli(capsys, "check", "--answer", "-", "--context", CONTEXT)
    limit = max_bytes("max_answer_chars")
    assert code == 2 and one_line_error(err) and f"more than the limit of {limit:,} bytes" in err
    assert raw.served <= limit + 1 + io.DEFAULT_BUFFER_SIZE and seconds < 2  # the limit, not 3 GB


@pytest.mark.timeout(180)
def test_item5_yes_piped_into_check_answer_stdin_exits_2(tmp_path):
    # `yes | halguard check --answer -`, with a producer that stops by itself after 64 MiB (the test cannot hang)
    producer = subprocess.Popen([sys.executable, "-c", (
        "import sys\nn = 0\ntry:\n    while n < 64 << 20:\n        sys.stdout.buffer.write(b'y\\n' * 4096)\n"
        "        n += 8192\n    sys.stdout.flush()\nexcept BrokenPipeError:\n    pass\nsys.stderr.write(str(n))\n")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check = subprocess.run([sys.executable, "-m", "halguard", "check", "--answer", "-", "--context", CONTEXT],
                           stdin=producer.stdout, capture_output=True, text=True, timeout=150,
                           env={**os.environ, "HF_HUB_OFFLINE": "1"})
    producer.stdout.close()
    written = int(producer.communicate(timeout=30)[1] or 0)
    assert check.returncode == 2 and one_line_error(check.stderr), check.stderr
    assert "--answer -: stdin holds more than the limit of 400,000 bytes" in check.stderr
    assert written < 8 << 20  # the producer was cut off near the limit, not drained to its 64 MiB


def test_item5_normal_files_and_stdin_still_work(capsys, monkeypatch, tmp_path, verifier):
    ctx = tmp_path / "ctx.txt"
    ctx.write_bytes(CONTEXT.replace(". ", ".\r\n").encode())  # CRLF, as a text-mode read would turn it into \n
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"The Eiffel Tower was completed in 1889.\n")))
    code = main(["check", "--answer", "-", "--context-file", str(ctx)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["label"] == "supported"
    assert "\r" not in data["claims"][0]["evidence"][0]["text"]


@pytest.mark.timeout(120)
def test_item5_data_files_of_bench_calibrate_and_audit_are_regular_and_streamed(capsys, tmp_path, fifo, verifier):
    from halguard.util.files import MAX_JSONL_LINE_BYTES

    long_line = tmp_path / "long.jsonl"
    with long_line.open("wb") as fh:
        fh.truncate(MAX_JSONL_LINE_BYTES + 10)  # one line of NULs, with no newline: streamed, never held whole
    rows = tmp_path / "rows.jsonl"
    write_lines(rows, [{"id": f"r{i}", "answer": "a", "context": ["a"], "hallucinated": i % 2 == 0}
                       for i in range(4)])
    cases = [
        (["bench", "/dev/zero"], "is a device"),
        (["bench", str(fifo)], "is a FIFO"),
        (["bench", str(tmp_path)], "is a FIFO"),  # a folder is read (issue 48): the FIFO in it is refused, named
        (["bench", str(long_line), "--quiet"], "long.jsonl:1: a line over 16,777,216 bytes"),
        (["calibrate", str(fifo), "--out", str(tmp_path / "c.json")], "is a FIFO"),
        (["calibrate", str(rows), "--out", str(tmp_path / "c.json"), "--predictions", str(fifo)], "is a FIFO"),
        (["calibrate", str(rows), "--out", str(tmp_path / "c.json"), "--predictions", str(long_line), "--quiet"],
         "long.jsonl:1: not a JSON object of at most 16,777,216 bytes"),
        (["calibrate", str(rows), "--out", str(tmp_path / "c.json"), "--base", "/dev/zero", "--quiet"],
         "is a device"),
        (["audit", str(fifo), "--out", str(tmp_path / "out"), "--quiet"], "is a FIFO"),
    ]
    for argv, why in cases:
        code, err, seconds = run_cli(capsys, *argv)
        assert code == 2 and one_line_error(err) and why in err and seconds < 5, (argv, err)
    parts = tmp_path / "parts"
    parts.mkdir()
    os.mkfifo(parts / "pipe.parquet")  # a FIFO among Parquet parts: that file's error, not a hang
    write_lines(parts / "rows.jsonl", [{"id": "ok", "answer": "a", "context": ["a"]}])  # a run reads some rows
    start = time.monotonic()
    result = audit([parts], tmp_path / "out2", progress=False)
    assert time.monotonic() - start < 30 and result.input_errors == 1
    assert "not a regular file" in errors(tmp_path / "out2")[0]["message"]
