"""Prefect 3 orchestration of the nightly audit (see flows.audit), its local server
(flows.server) and deployments (flows.serve, prefect.yaml). The steps themselves are plain
functions in flows.steps, importable without Prefect."""

import os

# Prefect, on its first import in a terminal, prints a telemetry notice on stderr (between a
# command's progress and its results) and sends Prefect usage events; the local
# server's analytics are off (flows.server.SERVER_SETTINGS), and this is the client's switch,
# read at that import. A DO_NOT_TRACK the operator set (to anything but blank) is kept.
if not os.environ.get("DO_NOT_TRACK", "").strip():
    os.environ["DO_NOT_TRACK"] = "1"
