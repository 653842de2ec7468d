"""Gather: the caller's inputs and the workspace's evidence, each turned into a candidate ``Packet``.

Owns: input validation and packets for history, documents, task state, tools and tool results
(``inputs``), the ``EvidenceProvider`` interface (``sources``) and its workspace adapter
(``workspace``). May import: ``context.packets``, ``context.errors``, ``context.select.turn_cache``
(history analysed once), ``notes_store`` (errors, sessions, timestamps).
"""
