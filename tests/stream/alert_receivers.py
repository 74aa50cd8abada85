"""Local receivers for the alert tests: a webhook (http.server) and a minimal SMTP server
(socketserver; aiosmtpd is not installed), each on a free loopback port, each able to fail
its first ``fail`` deliveries the way a receiver that is down or restarting does."""

from __future__ import annotations

import email
import email.policy
import socketserver
import threading
from dataclasses import dataclass
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Post:
    body: bytes
    headers: dict[str, str]


class _Receiver:
    server: socketserver.BaseServer

    def __init__(self, fail: int = 0) -> None:
        self.fail = fail
        self.attempts = 0
        self.lock = threading.Lock()

    def failing(self) -> bool:
        """Count an attempt; whether it is one of the first ``fail``."""
        with self.lock:
            self.attempts += 1
            return self.attempts <= self.fail

    def __enter__(self) -> Any:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.server.shutdown()
        self.server.server_close()


class WebhookReceiver(_Receiver):
    """Collects POSTs in ``bodies``; answers 503 to the first ``fail`` of them."""

    def __init__(self, fail: int = 0) -> None:
        super().__init__(fail)
        self.bodies: list[Post] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if receiver.failing():
                    self.send_response(503)
                else:
                    receiver.bodies.append(Post(body, dict(self.headers.items())))
                    self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/alerts"


class SmtpReceiver(_Receiver):
    """Collects e-mails in ``messages`` (with their envelope recipients in ``recipients``);
    answers 421 (service not available) to the first ``fail`` connections."""

    def __init__(self, fail: int = 0) -> None:
        super().__init__(fail)
        self.messages: list[EmailMessage] = []
        self.recipients: list[list[str]] = []
        receiver = self

        class Handler(socketserver.StreamRequestHandler):
            def reply(self, line: str) -> None:
                self.wfile.write(line.encode() + b"\r\n")

            def handle(self) -> None:
                if receiver.failing():
                    self.reply("421 try again later")
                    return
                self.reply("220 test ESMTP")
                recipients: list[str] = []
                while line := self.rfile.readline():
                    verb = line[:4].decode().upper()
                    if verb in ("HELO", "EHLO"):
                        self.reply("250 test")
                    elif verb == "RCPT":
                        recipients.append(line.decode().split(":", 1)[1].strip().strip("<>"))
                        self.reply("250 ok")
                    elif verb == "DATA":
                        self.reply("354 end with .")
                        data = b""
                        while (part := self.rfile.readline()) not in (b".\r\n", b""):
                            data += part[1:] if part.startswith(b"..") else part
                        message = email.message_from_bytes(data, policy=email.policy.default)
                        assert isinstance(message, EmailMessage)
                        receiver.messages.append(message)
                        receiver.recipients.append(recipients)
                        self.reply("250 queued")
                    elif verb == "QUIT":
                        self.reply("221 bye")
                        return
                    else:  # MAIL, RSET, NOOP
                        self.reply("250 ok")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
