"""A reverse proxy on 127.0.0.1 that adds headers to the first request of every connection,
as the trusted proxy in front of the dashboards does in production.

Chromium (from version 150 at least) does not send the headers of DevTools'
``Network.setExtraHTTPHeaders`` with a WebSocket's handshake, and Streamlit reads a session's
headers (``st.context.headers``) from that handshake only. A browser opens a connection of its
own for each WebSocket, so its handshake is that connection's first request: adding the
headers there is what the sign-in needs, whatever the browser sends.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator, MutableMapping
from urllib.parse import urlsplit

HEAD_END = b"\r\n\r\n"


class HeaderProxy:
    """Forwards ``127.0.0.1:port`` to ``upstream``; ``headers`` (changed at will between
    page loads) go into each connection's first request head, replacing any the client
    sent under the same names."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.headers: MutableMapping[str, str] = {}
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        # OSError: the server has stopped or the browser hung up; either way the other
        # end sees its connection close
        with (
            client,
            contextlib.suppress(OSError),
            socket.create_connection(self.upstream) as upstream,
        ):
            self._forward(client, upstream)

    def _forward(self, client: socket.socket, upstream: socket.socket) -> None:
        head = b""
        while HEAD_END not in head:
            chunk = client.recv(65536)
            if not chunk:
                return
            head += chunk
        upstream.sendall(self._with_headers(head))
        back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
        back.start()
        _pump(client, upstream)
        back.join()

    def _with_headers(self, head: bytes) -> bytes:
        request_line, _, rest = head.partition(b"\r\n")
        lines, _, body = rest.partition(HEAD_END)
        replaced = {name.lower().encode() for name in self.headers}
        kept = [
            line
            for line in lines.split(b"\r\n")
            if line and line.split(b":", 1)[0].strip().lower() not in replaced
        ]
        added = [f"{name}: {value}".encode() for name, value in self.headers.items()]
        return b"\r\n".join([request_line, *kept, *added]) + HEAD_END + body


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until either end closes; then close the sink's writing."""
    with contextlib.suppress(OSError):
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def header_proxy(base: str) -> Iterator[tuple[str, HeaderProxy]]:
    """A :class:`HeaderProxy` in front of the server at ``base``: its own base URL and it."""
    where = urlsplit(base)
    proxy = HeaderProxy((where.hostname or "127.0.0.1", where.port or 80))
    try:
        yield f"http://127.0.0.1:{proxy.port}{where.path}", proxy
    finally:
        proxy.close()
