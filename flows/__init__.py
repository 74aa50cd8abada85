"""Prefect 3 orchestration of the nightly audit (see flows.audit), its local server
(flows.server) and deployments (flows.serve, prefect.yaml). The steps themselves are plain
functions in flows.steps, importable without Prefect."""
