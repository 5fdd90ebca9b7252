import os

import pytest

from halguard import LocalVerifier


def pytest_configure(config):
    # The suite proves the model loads from the wheel's path: the hub must never be needed.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # No network in tests: never let a developer's LangSmith settings switch tracing on.
    for var in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
        os.environ[var] = "false"


@pytest.fixture(scope="session")
def verifier() -> LocalVerifier:
    v = LocalVerifier()
    v.warm_up()
    return v


@pytest.fixture
def eiffel_context() -> list[tuple[str, str]]:
    return [
        ("tower", "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair in Paris."),
        ("design", "The tower was designed and built by the engineering company of Gustave Eiffel."),
        ("visits", "About 6 million people visit the Eiffel Tower every year, making it a popular monument."),
    ]
