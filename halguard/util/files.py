"""Files halguard reads and writes: bounded, private to the user, never through a symlink it did not choose.

Writing: verdict logs, cached replies and audit outputs hold answers and excerpts of retrieved documents, so they
are created with mode 0600 (folders 0700), and a path that is a symlink is refused rather than followed (a planted
link cannot redirect the write).

Reading input the user named (a context file, a calibration, a data file): only regular files are read. A FIFO, a
device (``/dev/zero``) or a folder is refused before any byte is read, without blocking (the file is opened with
``O_NONBLOCK``, so a FIFO with no writer does not hang, and checked with ``fstat`` on the open descriptor, so it
cannot be swapped between the check and the read). A file over its limit is refused from its size; at most
``limit + 1`` bytes are ever read (a file that grows while being read, or a stream, is caught by the extra byte).

Trusting a folder: :func:`private_dir` creates a folder 0700, or accepts an existing one only if it is a real folder
(not a symlink), owned by the user and not writable by group or others (the rule ssh applies to ``~/.ssh``).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from halguard.errors import InputTooLargeError, InvalidInputError, UnsafePathError

__all__ = [
    "MAX_JSONL_LINE_BYTES",
    "append_private",
    "check_private_dir",
    "chmod_private",
    "files_in",
    "iter_lines_limited",
    "open_regular",
    "private_dir",
    "read_bytes_limited",
    "read_private",
    "read_stream_limited",
    "read_text_limited",
    "require_regular_file",
    "write_private",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
# The longest line of a JSONL data file that is read (halguard audit, bench, calibrate). A row at the local verifier's
# limits, a 100,000-character answer and 1,000,000 characters of context, takes at most 1.1 M x 12 bytes as JSON (a
# character outside the BMP written as a pair of \uXXXX escapes), about 13.2 MB; 16 MiB holds it with its other
# fields. A longer line is reported and skipped, never held whole.
MAX_JSONL_LINE_BYTES = 16 * 2**20
# Bytes read per call while skipping the rest of an overlong line: large enough to skip fast, small enough that the
# skip holds no more than this in memory.
_SKIP_CHUNK = 1 << 20


def append_private(path: str | Path, text: str) -> None:
    """Append ``text`` to ``path``, creating it with mode 0600; a symlink at ``path`` raises ``OSError``."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(text)


def read_private(path: str | Path, limit: int | None = None) -> str:
    """The text of a file halguard wrote for this user (a cache entry).

    Anything else raises ``OSError``: a symlink, a file that is not regular (a planted FIFO would otherwise block
    the read for ever), or one owned by another user; ``limit`` bytes at most (:class:`InputTooLargeError` beyond).
    """
    fd = open_regular(path, follow_symlinks=False)
    try:
        owner = os.fstat(fd).st_uid
        if hasattr(os, "geteuid") and owner != os.geteuid():
            msg = f"{os.fspath(path)} is owned by uid {owner}, not by this user: not read"
            raise PermissionError(msg)
        data = _read_fd(fd, limit, os.fspath(path))
    finally:
        os.close(fd)
    return data.decode("utf-8")


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


# -- folders --------------------------------------------------------------------------------------------------------


def check_private_dir(path: str | Path, *, what: str = "folder") -> None:
    """Refuse a folder another user could have written: a symlink, not a folder, not owned by this user, or
    writable by group or others.

    Raises:
        UnsafePathError: one of the above (an :class:`InvalidInputError`).
        OSError: ``path`` cannot be examined (missing, no permission).
    """
    st = os.lstat(path)
    name = os.fspath(path)
    if stat.S_ISLNK(st.st_mode):
        msg = f"{what} {name} is a symlink; refusing to use it (point to the real folder)"
        raise UnsafePathError(msg)
    if not stat.S_ISDIR(st.st_mode):
        msg = f"{what} {name} exists and is not a folder"
        raise UnsafePathError(msg)
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():  # POSIX; Windows has no uid to compare
        msg = f"{what} {name} is owned by uid {st.st_uid}, not by this user (uid {os.geteuid()}); refusing to use it"
        raise UnsafePathError(msg)
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        msg = (f"{what} {name} is writable by group or others (mode {stat.S_IMODE(st.st_mode):04o}); refusing to "
               f"use it (chmod go-w {name})")
        raise UnsafePathError(msg)


def private_dir(path: str | Path, *, what: str = "folder") -> Path:
    """``path`` as a folder only this user can write: created with mode 0700 whatever the umask when missing (its
    missing parents as ``mkdir -p`` makes them), else checked with :func:`check_private_dir`.

    Raises:
        UnsafePathError: an existing ``path`` fails :func:`check_private_dir`.
        OSError: it cannot be created.
    """
    path = Path(path)
    if not os.path.lexists(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass  # made by someone else in between: checked below like any existing folder
        else:
            chmod_private(path, 0o700)  # the umask may have taken bits off 0700; nothing adds any
    check_private_dir(path, what=what)
    return path


def chmod_private(path: str | Path, mode: int) -> None:
    """Set ``mode`` on ``path`` through a descriptor opened without following a symlink (a link swapped in at
    ``path`` raises ``OSError`` instead of having its target's mode changed)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


# -- bounded reading ------------------------------------------------------------------------------------------------


def open_regular(path: str | Path, *, follow_symlinks: bool = True, what: str = "file") -> int:
    """An open read-only descriptor of ``path`` if it is a regular file; refused otherwise without blocking.

    Raises:
        InvalidInputError: ``path`` is a FIFO, a socket, a device or a folder.
        OSError: it cannot be opened (missing, no permission, a symlink when ``follow_symlinks`` is false).
    """
    flags = os.O_RDONLY | _NONBLOCK | (0 if follow_symlinks else _NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
                    "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
            msg = f"{what} {os.fspath(path)} is {kind}; only regular files are read"
            raise InvalidInputError(msg)
    except BaseException:
        os.close(fd)
        raise
    return fd


def require_regular_file(path: str | Path, *, what: str = "file") -> None:
    """Refuse, without reading or blocking, a ``path`` that is missing or is not a regular file.

    Raises:
        InvalidInputError: ``path`` is a FIFO, a device or a folder.
        OSError: it cannot be opened.
    """
    os.close(open_regular(path, what=what))


def _read_fd(fd: int, limit: int | None, name: str, what: str = "file") -> bytes:
    size = os.fstat(fd).st_size
    if limit is not None and size > limit:
        msg = f"{what} {name} has {size:,} bytes, over the limit of {limit:,}; not read"
        raise InputTooLargeError(msg)
    chunks, total = [], 0
    want = (limit + 1) if limit is not None else None
    while want is None or total < want:
        chunk = os.read(fd, (1 << 20) if want is None else min(1 << 20, want - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if limit is not None and total > limit:  # the file grew, or reports no size (/proc)
        msg = f"{what} {name} holds more than the limit of {limit:,} bytes; not read"
        raise InputTooLargeError(msg)
    return b"".join(chunks)


def read_bytes_limited(path: str | Path, limit: int, *, follow_symlinks: bool = True, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, if it holds at most ``limit``.

    Raises:
        InvalidInputError: not a regular file.
        InputTooLargeError: over ``limit`` bytes (checked from its size before any read, and again on the bytes
            read: at most ``limit + 1`` are).
        OSError: it cannot be opened or read.
    """
    fd = open_regular(path, follow_symlinks=follow_symlinks, what=what)
    try:
        return _read_fd(fd, limit, os.fspath(path), what)
    finally:
        os.close(fd)


def read_text_limited(path: str | Path, limit: int, *, follow_symlinks: bool = True, what: str = "file") -> str:
    """:func:`read_bytes_limited`, decoded as UTF-8 (``UnicodeDecodeError``, a ``ValueError``, if it is not)."""
    return read_bytes_limited(path, limit, follow_symlinks=follow_symlinks, what=what).decode("utf-8")


def read_stream_limited(stream: BinaryIO, limit: int, *, what: str = "stdin") -> bytes:
    """At most ``limit`` bytes of ``stream`` (stdin), read until its end.

    ``limit + 1`` bytes at most are read: a longer stream (``yes | ...``) is refused as soon as that many arrived.

    Raises:
        InputTooLargeError: the stream holds more than ``limit`` bytes.
    """
    chunks, total = [], 0
    while total <= limit:
        chunk = stream.read(min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        msg = f"{what} holds more than the limit of {limit:,} bytes; not read"
        raise InputTooLargeError(msg)
    return b"".join(chunks)


def iter_lines_limited(path: str | Path, max_line_bytes: int, *,
                       what: str = "file") -> Iterator[tuple[int, bytes | None]]:
    """``(number, line)`` for each line of the regular file ``path`` (numbered from 1, newline kept), streamed.

    A line over ``max_line_bytes`` comes as ``(number, None)``: it is skipped in chunks, never held whole.

    Raises:
        InvalidInputError: ``path`` is not a regular file (checked before any read, without blocking).
        OSError: it cannot be opened or read.
    """
    fd = open_regular(path, what=what)
    with os.fdopen(fd, "rb") as fh:
        yield from _limited_lines(fh, max_line_bytes)


def _limited_lines(fh: BinaryIO, max_line_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    number = 0
    while True:
        line = fh.readline(max_line_bytes + 1)
        if not line:
            return
        number += 1
        if len(line) > max_line_bytes and not line.endswith(b"\n"):  # the line goes on past the limit
            rest = line
            while rest and not rest.endswith(b"\n"):  # skip to its end in chunks, never holding it whole
                rest = fh.readline(_SKIP_CHUNK)
            yield number, None
            continue
        yield number, line


def files_in(folder: str | Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The files under ``folder`` (recursively) whose names end in one of ``suffixes``, in sorted order: links and
    hidden files and folders (a name starting with ".") left out. What ``audit``, ``bench`` and ``calibrate`` read
    of a folder they are given."""
    root = Path(folder)
    return sorted(f for f in root.rglob("*") if f.suffix in suffixes and not f.is_symlink()
                  and not any(part.startswith(".") for part in f.relative_to(root).parts))

