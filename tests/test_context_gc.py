"""build_context pauses the cyclic collector for its duration and leaves it as it found it."""

from __future__ import annotations

import gc
import threading

from context import build_context
from context.gc_pause import collector_paused

HISTORY = [{"role": "user", "content": f"Turn {i}: the deploy of service {i % 7} went fine."} for i in range(50)]


def test_collector_is_paused_during_a_build_and_resumed_after() -> None:
    seen: list[bool] = []
    assert gc.isenabled()
    build_context("How did the deploy of service 3 go?", history=HISTORY, max_tokens=500,
                  progress=lambda *_args: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_process_stays_off() -> None:
    gc.disable()
    try:
        build_context("deploy", history=HISTORY, max_tokens=500)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_pauses_resume_only_when_the_last_ends() -> None:
    inside = threading.Event()
    release = threading.Event()

    def other() -> None:
        with collector_paused():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(5)
    with collector_paused():
        pass
    assert not gc.isenabled()  # the other pause is still running
    release.set()
    t.join(5)
    assert gc.isenabled()


def test_an_error_inside_a_build_still_resumes_the_collector() -> None:
    try:
        build_context("", history=HISTORY)
    except ValueError:
        pass
    assert gc.isenabled()
