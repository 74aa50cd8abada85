"""The long-lived local Prefect server: a missing server fails fast with a clear message; its
state is kept per installation; a started one is reused (no startup cost per run), serves a
UI that talks to its own API, and runs the nightly audit."""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from flows.server import (
    HOME_ENV,
    ServerUnavailableError,
    default_home,
    ensure_local_server,
    is_healthy,
    main,
    quiet_console,
    stop_local_server,
    using_server,
)

GAMING_DATE = date(2026, 11, 24)


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_missing_server_fails_fast_with_a_clear_message(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}/api"
    assert not is_healthy(url)
    started = time.monotonic()
    with (
        pytest.raises(ServerUnavailableError, match="no Prefect server answers"),
        using_server(url),
    ):
        pytest.fail("must not run without a server")
    assert time.monotonic() - started < 3


def test_a_port_taken_by_something_else_is_refused(tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        with pytest.raises(ServerUnavailableError, match="taken by another process"):
            ensure_local_server(tmp_path, port)


def test_the_server_state_belongs_to_the_installation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a source checkout (as ``make run`` installs it) the state is the checkout's own
    ``.prefect`` (git-ignored), not a per-user directory every checkout would share."""
    checkout = Path(__file__).resolve().parents[2]
    monkeypatch.delenv(HOME_ENV, raising=False)
    assert default_home() == checkout / ".prefect"
    assert "/.prefect/" in (checkout / ".gitignore").read_text().splitlines()
    assert not default_home().is_relative_to(Path.home() / ".cache")
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "elsewhere"))
    assert default_home() == tmp_path / "elsewhere"


def test_stopping_without_a_server_is_a_no_op(tmp_path: Path) -> None:
    assert stop_local_server(tmp_path) is False


def test_quiet_console_raises_only_the_console_handlers() -> None:
    import prefect  # noqa: F401  (configures Prefect's logging)

    handlers = [
        h for h in logging.getLogger().handlers if type(h).__name__ == "PrefectConsoleHandler"
    ]
    before = [h.level for h in handlers]
    with quiet_console():
        assert all(h.level == logging.WARNING for h in handlers)
    assert [h.level for h in handlers] == before


@pytest.fixture(scope="module")
def local_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    home = tmp_path_factory.mktemp("prefect-home")
    url = ensure_local_server(home)
    try:
        yield home, url
    finally:
        stop_local_server(home)


@pytest.mark.slow
@pytest.mark.xdist_group("local-server")
def test_the_ui_calls_the_api_the_server_serves(
    local_server: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``start --ui`` on a server started without the UI (as ``make run`` leaves it)
    restarts it with the UI, on the same port; the UI's settings name that API, not
    Prefect's default port 4200."""
    home, url = local_server
    ui_settings = url.removesuffix("/api") + "/ui-settings"
    state = home / "local-server.json"
    assert json.loads(state.read_text())["ui"] is False

    assert main(["start", "--home", str(home), "--ui"]) == 0

    assert capsys.readouterr().out.splitlines() == [url, f"UI: {url.removesuffix('/api')}"]
    with urllib.request.urlopen(ui_settings, timeout=5) as response:
        settings = json.load(response)
    assert settings["api_url"] == url
    assert json.loads(state.read_text())["ui"] is True
    with urllib.request.urlopen(url.removesuffix("/api"), timeout=5) as response:
        assert b"<html" in response.read(4096).lower()  # the UI itself, same port


@pytest.mark.slow
@pytest.mark.xdist_group("local-server")
def test_the_local_server_is_started_once_and_reused(
    local_server: tuple[Path, str], small_day: Path, tmp_path: Path
) -> None:
    home, url = local_server
    assert is_healthy(url)
    started = time.monotonic()
    assert ensure_local_server(home) == url  # reused, not restarted
    assert time.monotonic() - started < 1.0
    assert (home / "prefect.db").exists()

    # A fresh process, as the demo command is: one Prefect API per process (Prefect's
    # background threads keep the API they started with).
    script = (
        "import json, sys\n"
        "from datetime import date\n"
        "from pathlib import Path\n"
        "from flows.server import run_nightly_audit_via_server\n"
        "r = run_nightly_audit_via_server(Path(sys.argv[1]), Path(sys.argv[2]), "
        "date.fromisoformat(sys.argv[3]), Path(sys.argv[4]), url=sys.argv[5])\n"
        "print(json.dumps({'files': [str(p) for p in r.close.files], "
        "'quality': str(r.quality.result_file), 'deliveries': r.deliveries}))\n"
    )
    db, reports = tmp_path / "ledger.duckdb", tmp_path / "reports"
    run = subprocess.run(
        [sys.executable, "-c", script, str(small_day), str(db), "2026-11-24", str(reports), url],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["deliveries"] > 5000
    assert all(Path(p).exists() for p in result["files"])
    assert Path(result["quality"]).exists()
    assert "Beginning flow run" not in run.stderr  # quiet: the console shows warnings only
    assert stop_local_server(home) is True
    assert not is_healthy(url)
