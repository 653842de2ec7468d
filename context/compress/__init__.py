"""Compress: shorten what does not fit, visibly (whole items or honest summaries, never a silent cut).

Owns: summaries of single packets (``summaries``) and the tiers that keep recent history verbatim
and condense the middle (``tiers``). May import: ``context.packets``, ``context.tokens``,
``context.select.relevance`` (which sentences matter).
"""
