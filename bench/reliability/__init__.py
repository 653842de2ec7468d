"""Reliability harness: long fuzz runs against the real MCP server (``python -m bench.reliability.fuzz``).

The pieces here (workspace snapshots, a synchronous MCP client, the note/memory model)
are shared with ``tests/test_fuzz_stateful.py`` and ``tests/test_security.py``.
"""
