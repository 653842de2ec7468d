"""Signals: one module per reason a history turn is lifted beyond plain relevance.

Each reads the turns (and the query) and returns scores or turn indexes that ``scoring``
weighs in: who a turn is about (``entities``, ``owners``, ``spelled``, ``coverage``, over the
question's stretches and the turns' statements of ``stretches``, read once per build), when it
happened (``stamps``, ``when``), what it continues (``links``, ``storyline``, ``hop``, ``days``)
and which words of a question only set the scene (``cues``, ``asides``). May import
``context.select.relevance`` and ``notes_store.analysis``, never ``scoring`` or ``packing``.
"""
