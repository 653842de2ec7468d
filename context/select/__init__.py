"""Select: score candidate packets against the query and pick whole ones under the budget.

Owns: lexical relevance with the index's analyzer (``relevance``), word-run proximity
(``proximity``), near-duplicates (``dedup``), history analysed once per conversation
(``turn_cache``), the query types' weights and shares (``profiles``), the scores (``scoring``),
the budgeted picking (``packing``) and the signals that lift particular turns (``signals``).
May import: ``context.packets``, ``context.errors``, ``context.stopping``, ``notes_store.analysis``,
``notes_store.bounded_cache``.
"""
