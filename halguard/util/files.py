"""Files halguard writes (the response cache, JSON-line logs): private to the user, never through a symlink.

Verdict logs and cached replies hold answers and excerpts of retrieved documents, so they are created with mode
0600, and a path that is a symlink is refused rather than followed (a planted link cannot redirect the write).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["append_private", "read_private", "write_private"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def append_private(path: str | Path, text: str) -> None:
    """Append ``text`` to ``path``, creating it with mode 0600; a symlink at ``path`` raises ``OSError``."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(text)


def read_private(path: str | Path) -> str:
    """The text of ``path``; a symlink raises ``OSError``."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    with os.fdopen(fd, encoding="utf-8") as fh:
        return fh.read()


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a fresh 0600 temp file in the same folder, then a rename (which
    replaces a symlink at ``path`` instead of following it)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".halguard-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
