"""``python -m pipeline.events [check|register] [SCHEMA_DIR]``: the schema registry's tool."""

from pipeline.events.registry import main

raise SystemExit(main())
