"""Every tool call reported to ``server.metrics``: one home for the kit's wrapper and the argument checks."""

from __future__ import annotations

import importlib
import logging
from typing import Any

log = logging.getLogger("ctxnotes.server")

_metrics: Any = None


def observe_call(name: str, seconds: float, is_error: bool) -> None:
    """Report a call to ``server.metrics`` (imported on first use: prometheus_client stays out of
    processes that never serve a call); a metrics failure never fails the call."""
    global _metrics
    if _metrics is None:
        try:
            _metrics = importlib.import_module("server.metrics")
        except ImportError:
            _metrics = False
    if _metrics is not False:
        try:
            _metrics.observe_tool_call(name, seconds, is_error)
        except Exception:
            log.debug("metrics.observe_tool_call failed", exc_info=True)
