"""Agent memories (working, episodic, semantic) as Markdown files: the model and its store.

Owns: the memory data types, file format and scoring (``model``), the store behind the
``memory_*`` tools (``store``), and recall statistics kept out of the tracked files
(``access_stats``). May import: ``files``, ``index``, ``analysis``, ``validation``, ``workspace``.
"""

from .model import MEMORY_TYPES as MEMORY_TYPES
from .store import MemoryStore as MemoryStore

__all__ = ["MEMORY_TYPES", "MemoryStore"]
