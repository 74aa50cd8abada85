"""Deployments: ``flows.serve`` schedules the nightly audit at the gaming-day boundary, and the
work-pool deployments of ``prefect.yaml`` name real flows with valid parameters."""

from __future__ import annotations

from datetime import time
from pathlib import Path
from typing import Any

import yaml

from flows.serve import deployments, nightly_cron

ROOT = Path(__file__).resolve().parents[2]


def test_the_nightly_run_is_at_the_gaming_day_boundary() -> None:
    assert nightly_cron(time(6, 0)) == "0 6 * * *"
    assert nightly_cron(time(7, 30)) == "30 7 * * *"


def test_served_deployments(tmp_path: Path) -> None:
    from flows.audit import ingest, nightly_audit

    nightly, on_demand = deployments(tmp_path / "events", tmp_path / "ledger.duckdb")

    assert nightly.name == "nightly-audit"
    (schedule,) = nightly.schedules
    assert schedule.schedule.cron == "0 6 * * *"
    assert schedule.schedule.timezone == "America/New_York"  # the catalog's [gaming_day]
    assert nightly.concurrency_limit == 1
    assert nightly.parameters["reports_dir"] == str((tmp_path / "reports").resolve())
    nightly_audit.validate_parameters(nightly.parameters)
    assert on_demand.name == "ingest" and not on_demand.schedules
    ingest.validate_parameters(on_demand.parameters)


def _templated(value: Any, env: dict[str, str]) -> Any:
    if isinstance(value, str):
        for name, replacement in env.items():
            value = value.replace("{{ $" + name + " }}", replacement)
        return value
    if isinstance(value, list):
        return [_templated(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _templated(v, env) for k, v in value.items()}
    return value


def test_prefect_yaml_deploys_the_flows_to_a_process_pool(tmp_path: Path) -> None:
    from prefect.flows import Flow, load_flow_from_entrypoint

    spec = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    by_name = {d["name"]: d for d in spec["deployments"]}

    assert set(by_name) == {"nightly-audit", "ingest"}
    for deployment in by_name.values():
        assert deployment["work_pool"]["name"] == "baccarat-process"
        flow: Flow[Any, Any] = load_flow_from_entrypoint(str(ROOT / deployment["entrypoint"]))
        assert flow.name == deployment["name"]
        params = _templated(deployment["parameters"], {"BACCARAT_DATA": str(tmp_path)})
        flow.validate_parameters(params)
    (schedule,) = by_name["nightly-audit"]["schedules"]
    assert (schedule["cron"], schedule["timezone"]) == ("0 6 * * *", "America/New_York")
    assert by_name["nightly-audit"]["concurrency_limit"] == 1
    assert "ingest" in by_name and "schedules" not in by_name["ingest"]
