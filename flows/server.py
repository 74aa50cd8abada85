"""A long-lived local Prefect server, so a command that runs a flow does not pay for a
temporary server (10-25 s) on every run.

:func:`ensure_local_server` starts ``prefect server start`` in the background (SQLite under
the given PREFECT_HOME, UI off unless asked for) when none answers on the recorded port, and
returns the API URL of the one that does. :func:`run_nightly_audit_via_server` runs the
``nightly_audit`` flow against it with ephemeral mode switched off, so a missing server is a
clear error instead of a silent temporary one.

``python -m flows.server start|status|stop [--home DIR]`` manages the server by hand;
``start --ui`` serves the Prefect UI too, on the same port as the API.

The server's state (database, log, port) lives in one directory per installation,
:func:`default_home`, so two checkouts never share run history nor a server.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.config.catalog import DEFAULT_CATALOG

if TYPE_CHECKING:
    from flows.steps import AuditResult

HOST = "127.0.0.1"
DEFAULT_PORT = 4210
"""Not Prefect's 4200, so the pipeline's server does not collide with a developer's own."""

STATE_FILE = "local-server.json"
LOG_FILE = "local-server.log"
HOME_ENV = "BACCARAT_PREFECT_HOME"

SERVER_SETTINGS: dict[str, str] = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
    # The task-run recorder writes each task-run event in its own SQLite transaction by
    # default; those writes collide with the tag-concurrency slot increments ("database is
    # locked", answered 503 and retried by the client after ~2 s). Batching them removes the
    # collisions; task runs still show up, within the flush interval.
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "1000",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "10",
}


class ServerUnavailableError(RuntimeError):
    """No Prefect server answers at the API URL; the message says how to start one."""


def default_home() -> Path:
    """``$BACCARAT_PREFECT_HOME``, else the installation's own directory: ``.prefect`` in the
    source checkout the package runs from (``make run``'s editable install; git-ignored),
    else ``var/baccarat-audit/prefect`` under the Python environment (``sys.prefix``) it is
    installed in. Never a per-user directory: two checkouts would share one server and its
    run history."""
    configured = os.environ.get(HOME_ENV)
    if configured:
        return Path(configured).expanduser()
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file():
        return checkout / ".prefect"
    return Path(sys.prefix) / "var" / "baccarat-audit" / "prefect"


def api_url(port: int, host: str = HOST) -> str:
    return f"http://{host}:{port}/api"


def is_healthy(url: str, timeout: float = 1.0) -> bool:
    """Whether a Prefect API answers ``true`` on ``<url>/health``."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/health", timeout=timeout) as response:
            return bool(response.status == 200 and response.read().strip() == b"true")
    except (OSError, urllib.error.URLError, ValueError):
        return False


def _port_free(port: int, host: str = HOST) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _free_port(host: str = HOST) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _prefect_command() -> list[str]:
    beside = Path(sys.executable).with_name("prefect")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("prefect")
    return [found] if found else [sys.executable, "-m", "prefect"]


def _read_state(home: Path) -> dict[str, Any]:
    try:
        data = json.loads((home / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    """One process at a time checks for and starts the server of a PREFECT_HOME."""
    with (home / "local-server.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def server_env(home: Path, port: int, *, ui: bool = False) -> dict[str, str]:
    """The environment of the server of ``home`` listening on ``port``.

    The UI's API URL is set explicitly: Prefect derives it from ``PREFECT_API_URL`` (removed
    here, it may point at another server) or else from ``PREFECT_SERVER_API_PORT`` (4200 by
    default, whatever ``--port`` says), and the UI would then call an API that is not there
    ("Can't connect to Server API")."""
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_PROFILE")}
    env.update(SERVER_SETTINGS)
    env["PREFECT_HOME"] = str(home)
    env["PREFECT_SERVER_DATABASE_CONNECTION_URL"] = f"sqlite+aiosqlite:///{home / 'prefect.db'}"
    env["PREFECT_SERVER_UI_ENABLED"] = "true" if ui else "false"
    env["PREFECT_SERVER_UI_API_URL"] = api_url(port)
    return env


def ui_url(api: str) -> str:
    """The address of the UI a server with the API ``api`` serves (same host and port)."""
    return api.removesuffix("/").removesuffix("/api")


def ensure_local_server(
    home: Path,
    port: int | None = None,
    *,
    ui: bool = False,
    timeout: float = 90.0,
) -> str:
    """The API URL of a healthy local Prefect server for ``home``, starting one if needed.

    The server runs detached (it outlives this process; stop it with
    :func:`stop_local_server`), keeps its SQLite database under ``home`` and listens on
    ``port`` (default: the last port used for ``home``, else 4210, else a free one). With
    ``ui``, a running server of ``home`` without the UI is restarted with it.
    """
    home = home.expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    with _locked(home):
        state = _read_state(home)
        if state.get("url") and _alive(state.get("pid")) and is_healthy(str(state["url"])):
            if state.get("ui") or not ui:
                return str(state["url"])
            stop_local_server(home)
        chosen = port or int(state.get("port") or DEFAULT_PORT)
        if not _port_free(chosen):
            # Taken, by another home's server or by something else: never adopt a server
            # whose database is not under ``home``.
            if port:
                raise ServerUnavailableError(
                    f"port {port} is taken by another process; choose another port"
                )
            chosen = _free_port()
        log = (home / LOG_FILE).open("ab")
        try:
            process = subprocess.Popen(
                [
                    *_prefect_command(),
                    "server",
                    "start",
                    "--host",
                    HOST,
                    "--port",
                    str(chosen),
                    "--ui" if ui else "--no-ui",
                    "--analytics-off",
                ],
                env=server_env(home, chosen, ui=ui),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=home,
            )
        finally:
            log.close()
        _write_state(home, chosen, process.pid, ui=ui)
        url = api_url(chosen)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if is_healthy(url):
                return url
            if process.poll() is not None:
                raise ServerUnavailableError(
                    f"prefect server exited with code {process.returncode} before answering; "
                    f"last lines of {home / LOG_FILE}:\n{_tail(home / LOG_FILE)}"
                )
            time.sleep(0.2)
        raise ServerUnavailableError(
            f"prefect server (pid {process.pid}) did not answer on {url} within {timeout:g} s; "
            f"see {home / LOG_FILE}"
        )


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_state(home: Path, port: int, pid: int, *, ui: bool) -> None:
    (home / STATE_FILE).write_text(
        json.dumps({"url": api_url(port), "port": port, "pid": pid, "ui": ui}, indent=2) + "\n"
    )


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def stop_local_server(home: Path, timeout: float = 20.0) -> bool:
    """Stop the server :func:`ensure_local_server` started for ``home`` (by its recorded
    process id); return whether one was running."""
    home = home.expanduser().resolve()
    state = _read_state(home)
    pid = state.get("pid")
    if not pid:
        return False
    try:
        os.kill(int(pid), signal.SIGTERM)
    except ProcessLookupError:
        (home / STATE_FILE).unlink(missing_ok=True)
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            break
        with contextlib.suppress(ChildProcessError):
            os.waitpid(int(pid), os.WNOHANG)
        time.sleep(0.2)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    (home / STATE_FILE).unlink(missing_ok=True)
    return True


@contextlib.contextmanager
def using_server(url: str, *, heartbeats: bool = False) -> Iterator[None]:
    """Point Prefect at ``url`` for the duration, with ephemeral mode off: if the server is
    not there, fail now with a message instead of starting a temporary one.

    Flow-run heartbeats (for detecting crashed runs of deployments) are off by default: a
    foreground run reports its own crash, and each flow run would otherwise wait up to 1 s
    for its heartbeat thread to stop.

    Use one Prefect API per process: Prefect's background threads keep the settings they
    started with. When Prefect is not imported yet, ``PREFECT_API_URL`` is also set in the
    environment so that they start with this one.
    """
    if not is_healthy(url):
        raise ServerUnavailableError(
            f"no Prefect server answers at {url}. Start one with `python -m flows.server "
            f"start` (or `prefect server start`), or unset PREFECT_API_URL to let "
            f"run_nightly_audit_via_server start its own."
        )
    if "prefect" not in sys.modules:
        # Prefect's background threads (event loop, log and event workers) read the
        # process-wide settings made at import: make them point here from the start.
        os.environ["PREFECT_API_URL"] = url
        os.environ["PREFECT_SERVER_ALLOW_EPHEMERAL_MODE"] = "false"
    import prefect.settings as ps

    updates: dict[Any, Any] = {
        ps.PREFECT_API_URL: url,
        ps.PREFECT_SERVER_ALLOW_EPHEMERAL_MODE: False,
    }
    if not heartbeats:
        updates[ps.PREFECT_FLOWS_HEARTBEAT_FREQUENCY] = None
    with ps.temporary_settings(updates=updates):
        try:
            yield
        finally:
            _drain_to_api()


def _drain_to_api(timeout: float = 5.0) -> None:
    """Send the logs and events still queued for this API before the settings change (or
    the server stops)."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (APILogWorker, EventsWorker):
        with contextlib.suppress(Exception):
            worker.drain_all(timeout=timeout)


@contextlib.contextmanager
def quiet_console(level: int = logging.WARNING) -> Iterator[None]:
    """Raise the level of Prefect's console log handlers only (the API still gets every
    record, so the UI shows full run logs)."""
    changed: list[tuple[logging.Handler, int]] = []
    for logger in (logging.getLogger(), logging.getLogger("prefect")):
        for handler in logger.handlers:
            if type(handler).__name__ == "PrefectConsoleHandler":
                changed.append((handler, handler.level))
                handler.setLevel(level)
    try:
        yield
    finally:
        for handler, old in changed:
            handler.setLevel(old)


def run_nightly_audit_via_server(
    events_dir: Path,
    db: Path,
    gaming_date: date,
    reports_dir: Path | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
    *,
    home: Path | None = None,
    url: str | None = None,
    force_replay: bool = False,
    reopen_reason: str | None = None,
    quiet: bool = True,
) -> AuditResult:
    """Run the ``nightly_audit`` flow on a warm local server and return its result, also
    when the day was sealed with blocking exceptions (a run the UI shows as "Blocked").

    The server is ``url``, else ``$PREFECT_API_URL``, else the one :func:`ensure_local_server`
    keeps for ``home`` (default :func:`default_home`). The writer concurrency limit is
    created if missing. With ``quiet`` Prefect's console logging shows errors only: the
    caller reports the result (the demo prints the failing expectations itself), and the API,
    hence the UI, still gets every record.
    """
    target = url or os.environ.get("PREFECT_API_URL") or ensure_local_server(home or default_home())
    with using_server(target):
        from flows.audit import close_outcome, ensure_writer_limit, nightly_audit

        ensure_writer_limit()
        with quiet_console(logging.ERROR) if quiet else contextlib.nullcontext():
            return close_outcome(
                nightly_audit(
                    events_dir,
                    db,
                    gaming_date,
                    reports_dir,
                    catalog_path,
                    force_replay,
                    reopen_reason,
                    return_state=True,
                )
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flows.server", description="Manage the local Prefect server."
    )
    parser.add_argument("action", choices=("start", "status", "stop"))
    parser.add_argument(
        "--home",
        type=Path,
        default=default_home(),
        help=f"the server's state directory (default: %(default)s, from ${HOME_ENV} when "
        "set, else the installation's own)",
    )
    parser.add_argument("--port", type=int)
    parser.add_argument(
        "--ui",
        action="store_true",
        help="serve the Prefect UI too, at the API's address without /api (a running server "
        "without the UI is restarted with it)",
    )
    args = parser.parse_args(argv)
    if args.action == "start":
        url = ensure_local_server(args.home, args.port, ui=args.ui)
        print(url)
        if args.ui:
            print(f"UI: {ui_url(url)}")
        return 0
    if args.action == "stop":
        print("stopped" if stop_local_server(args.home) else "not running")
        return 0
    state = _read_state(args.home.expanduser().resolve())
    url = str(state.get("url") or "")
    healthy = bool(url) and is_healthy(url)
    print(f"{url or 'no server recorded'}: {'healthy' if healthy else 'not answering'}")
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
