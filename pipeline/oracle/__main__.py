"""``python -m pipeline.oracle``: the odds oracle without the main CLI."""

from pipeline.oracle.cli import main

raise SystemExit(main())
