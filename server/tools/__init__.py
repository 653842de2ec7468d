"""The MCP tools: one module per tool group over the libraries, and the kit they all use.

Owns: registration, argument checks and bounded results (``kit``), the published parameter and
result shapes (``models``), the ``note_*``, ``memory_*``, session and ``build_context`` tools, and
the rolling log of builds (``build_log``). May import: ``context``, ``notes_store``,
``server.state``; never ``server.cli`` nor ``server.app``.
"""
