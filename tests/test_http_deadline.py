"""The body-read deadline of BodyBudgetMiddleware (``http_security._Deadline``) on a real asyncio loop."""

from __future__ import annotations

import asyncio

import pytest

from server.http_security import _Deadline


def test_an_expired_deadline_ends_the_block_and_nothing_after_it():
    async def main() -> None:
        with _Deadline(0.05) as d:
            await asyncio.sleep(5)
        assert d.expired
        await asyncio.sleep(0.01)  # the task carries no cancellation out of the block
        with _Deadline(5) as d2:
            await asyncio.sleep(0.01)
        assert not d2.expired
    asyncio.run(asyncio.wait_for(main(), 10))


def test_another_cancellation_passes_through():
    async def inner(started: asyncio.Event) -> None:
        with _Deadline(5):
            started.set()
            await asyncio.sleep(5)

    async def main() -> None:
        started = asyncio.Event()
        task = asyncio.create_task(inner(started))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    asyncio.run(asyncio.wait_for(main(), 10))
