"""Text analysis shared by the index and the context builder: pure functions, no search engine.

Owns: tokenising, folding, stemming, CJK bigrams (``analyzer``), irregular English forms
(``english_forms``) and BM25's constants (``bm25``). May import: the standard library, PyStemmer.
Never imports Whoosh nor any other part of ``notes_store``; ``index.whoosh_analyzer`` adapts it.
"""
