"""``python -m pipeline.events [check|register|payloads] [SCHEMA_DIR]``: the registry's tool."""

from pipeline.events.registry import main

raise SystemExit(main())
