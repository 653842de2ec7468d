"""Keeping up with changes made outside the process: folder watching and Git.

Owns: inotify reading (``inotify``), which files changed and how to find out cheaply
(``folders``), Git init / auto-commit / history (``git``) and merge-conflict markers in note
files (``git_conflicts``). May import: ``files``, ``errors``, ``settings``, ``validation``;
``git`` alone reaches up to ``workspace`` (it commits what a store wrote).
"""
