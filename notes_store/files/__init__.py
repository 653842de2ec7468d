"""The Markdown files that are the workspace's truth: read them safely, write them durably.

Owns: front matter parsing and byte-stable writing (``front_matter``), bounded reads that never
block on a FIFO or follow a link out (``safe_read``), atomic writes and the workspace lock
(``durable``), one lock hold and one folder fsync for concurrent writes (``group_commit``), the
workspace's folders and ``.gitignore`` (``layout``), and the item-file layer notes and memories
share (``items``, which names the index's entry type for annotations only). May import:
``errors``, ``settings``, ``validation``, ``timestamps``. Never imports the index or a store.
"""
