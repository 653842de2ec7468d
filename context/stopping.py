"""Stop a long build part-way once its caller has gone: long loops check every few hundred items.

``build_context`` checks ``should_stop`` between stages, but one stage over a 20,000-turn history
(analysing every turn, counting its tokens) is most of a second of CPU. The loops that grow with the
history iterate through :func:`checked`, which calls the check installed for this thread by
:func:`stopping`. A thread-local, not a parameter: the loops sit several calls below the builder,
in caches shared with other callers that have no check to pass.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar, cast

from .errors import ContextCancelled

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")
STRIDE = 256  # items between two checks: a few ms of analysis, a few µs of checking

_local = threading.local()


@contextmanager
def stopping(check: Callable[[], None]) -> Iterator[None]:
    """Within the block, :func:`checked` loops in this thread call ``check`` (which raises to stop)."""
    previous = getattr(_local, "check", None)
    _local.check = check
    try:
        yield
    finally:
        _local.check = previous


def current_check() -> Callable[[], None]:
    """This thread's installed stop check (:func:`stopping`), or one that never stops."""
    check: Callable[[], None] | None = getattr(_local, "check", None)
    return check if check is not None else _never


def _never() -> None:
    return None


def checked(items: Iterable[T]) -> Iterator[T]:
    """``items`` as they are, calling this thread's stop check before every STRIDE-th one."""
    check: Callable[[], None] | None = getattr(_local, "check", None)
    if check is None:
        yield from items
        return
    for i, item in enumerate(items):
        if not i % STRIDE:
            check()
        yield item


def stop_check(should_stop: Callable[[], bool] | None) -> Callable[[], None]:
    """A function that raises ContextCancelled once ``should_stop()`` is true."""
    def check() -> None:
        if should_stop is not None and should_stop():
            raise ContextCancelled("build_context stopped: the caller asked to stop")
    return check


def stoppable(func: Callable[P, R]) -> Callable[P, R]:
    """Decorator: a call given ``should_stop=`` (keyword) runs with that check installed (:func:`stopping`)."""
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        should_stop = cast("Callable[[], bool] | None", kwargs.get("should_stop"))
        if should_stop is None:
            return func(*args, **kwargs)
        with stopping(stop_check(should_stop)):
            return func(*args, **kwargs)
    return wrapper
