"""``python -m pipeline``: the ``baccarat-audit`` command line, without the installed script."""

from pipeline.cli import main

raise SystemExit(main())
