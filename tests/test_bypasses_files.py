"""Issue 25, items 3-5: the audit folder is private and survives any row, the response cache trusts only its own
folder, and the CLI reads bounded input from regular files only."""

from __future__ import annotations

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
