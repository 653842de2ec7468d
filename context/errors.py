"""Errors raised by the context builder."""

from __future__ import annotations


class ContextError(ValueError):
    """Bad input to ``build_context``: the message says what was wrong and how to fix it.

    A ``ValueError`` subclass so callers that validate generically still catch it.
    """


class ContextCancelled(Exception):
    """The caller's ``should_stop`` said to stop (the client went away): no result is built."""
