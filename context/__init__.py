"""ctxnotes context builder: Gather → Select → Structure → Compress.

A pure library (no MCP, no server imports). ``build_context`` packs the most
useful system instructions, task state, notes, memories, documents, tool results
and conversation history for a query into a hard token budget and reports what
was dropped, compressed and why.
"""

from .builder import build_context
from .errors import ContextCancelled, ContextError
from .result import ContextResult
from .gather.sources import Evidence, EvidenceProvider
from .structure import MESSAGE_OVERHEAD_TOKENS, messages_tokens
from .tokens import TokenCounter, count_tokens, get_encoding

__all__ = ["build_context", "ContextCancelled", "ContextError", "ContextResult", "Evidence", "EvidenceProvider",
           "MESSAGE_OVERHEAD_TOKENS", "messages_tokens", "TokenCounter", "count_tokens", "get_encoding"]
