"""Shared fixtures: real workspaces in temporary folders."""

from __future__ import annotations

import pytest

from notes_store import open_workspace


class FakeClock:
    """A settable clock for tests that move time without sleeping."""

    def __init__(self, start: float = 1_764_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def ws(tmp_path):
    workspace = open_workspace(tmp_path / "ws")
    yield workspace
    workspace.close()


@pytest.fixture
def anyio_backend():
    return "asyncio"
