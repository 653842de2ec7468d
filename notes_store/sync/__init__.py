"""Keeping up with changes made outside the process: folder watching and Git.

Owns: inotify reading (``inotify``), which files changed and how to find out cheaply
(``folders``), applying them to a workspace's catalogue and index, the rebuild and the watching
thread (``refresh``), opening the index and the saved catalogue (``saved_catalogue``), Git init /
auto-commit / history (``git``) and merge-conflict markers in note files (``git_conflicts``).
May import: ``files``, ``index``, ``errors``, ``settings``, ``validation``, ``listeners``.
``refresh`` and ``saved_catalogue`` work on a ``workspace``'s state under its locks and name
``Workspace`` for types only; ``git`` opens a workspace (a late import) to initialise one.
"""
