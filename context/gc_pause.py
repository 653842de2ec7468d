"""Pause Python's cyclic garbage collector while a build runs.

A build over a long history makes thousands of short-lived tuples, sets and lists. They live long
enough to be promoted into the oldest generation, and every few builds that triggers a full
collection that walks every object of the process (the caches included): measured over a growing
5,000-turn session, one build in five took ~60 ms more (p95 136 ms, p50 60 ms). Reference counting
frees those temporaries at the end of the build anyway, so the collector is paused for its duration
and resumed after; overlapping builds in threads share one pause, and a process that turned the
collector off itself is left as it is.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["collector_paused", "without_collector"]

_lock = threading.Lock()
_active = 0
_resume = False  # whether the collector was on when the first overlapping build paused it

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic cyclic collection inside the block (nesting and threads are counted)."""
    global _active, _resume
    with _lock:
        if _active == 0:
            _resume = gc.isenabled()
            gc.disable()
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _resume:
                gc.enable()


def without_collector(func: Callable[P, R]) -> Callable[P, R]:
    """Decorator form of ``collector_paused``."""
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with collector_paused():
            return func(*args, **kwargs)
    return wrapper
