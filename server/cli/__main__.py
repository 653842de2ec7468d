"""``python -m server.cli``: the ``ctxnotes`` command (the package moved here from ``server/cli.py``)."""

import sys

from . import main

sys.exit(main())
