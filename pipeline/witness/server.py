"""The witness process: a small HTTP service over a :class:`~pipeline.witness.store.WitnessStore`.

Run it on a machine (or under an account) the ledger's operators cannot write to::

    baccarat-audit witness serve --dir /var/lib/baccarat-witness --port 8470

- ``POST /checkpoints`` with ``{"checkpoint": {...}, "proof": [...], "keys": [...]}``: 200
  and the countersigned record when accepted; 409 and the countersigned refusal when the
  checkpoint does not extend what the witness holds; 400 when the body is not a checkpoint;
- ``GET /checkpoints?ledger_id=ID&ledger=PLACE``: every record about that ledger;
- ``GET /heads?ledger_id=ID&log=LOG``: the size of the latest checkpoint it accepted of that
  log (``{"size": N}``), which a new checkpoint's proof starts after.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pipeline.witness.checkpoint import Checkpoint
from pipeline.witness.store import CheckpointRefusedError, WitnessStore

MAX_BODY = 16 * 1024 * 1024
"""The largest request accepted: a proof of about 200,000 entries."""


def handler_for(store: WitnessStore) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "baccarat-witness"

        def log_message(self, format: str, *args: Any) -> None:
            return  # the store is the record; the console stays quiet

        def _reply(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body, sort_keys=True).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path == "/heads":
                latest = store.latest(query.get("ledger_id", [""])[0], query.get("log", [""])[0])
                self._reply(200, {"size": latest.size if latest is not None else 0})
                return
            if url.path != "/checkpoints":
                self._reply(404, {"error": "the witness serves /checkpoints and /heads"})
                return
            records = store.about(query.get("ledger_id", [None])[0], query.get("ledger", [None])[0])
            self._reply(200, {"records": [asdict(r) for r in records]})

        def do_POST(self) -> None:
            if urlsplit(self.path).path != "/checkpoints":
                self._reply(404, {"error": "checkpoints are posted to /checkpoints"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY:
                self._reply(400, {"error": f"a body of 1 to {MAX_BODY} bytes is expected"})
                return
            try:
                body = json.loads(self.rfile.read(length))
                checkpoint = Checkpoint.from_json(body["checkpoint"])
                proof = [str(d) for d in body.get("proof", [])]
                keys = [k for k in body.get("keys", []) if isinstance(k, dict)]
            except (ValueError, KeyError, TypeError) as err:
                self._reply(400, {"error": f"not a checkpoint submission: {err}"})
                return
            try:
                record = store.submit(checkpoint, proof, keys)
            except CheckpointRefusedError as err:
                refusal = store.about(checkpoint.ledger_id)[-1]
                self._reply(409, {"error": str(err), "record": asdict(refusal)})
                return
            self._reply(200, {"record": asdict(record)})

    return Handler


def serve(store: WitnessStore, host: str, port: int) -> ThreadingHTTPServer:
    """A server bound to ``host:port`` (not yet serving: call ``serve_forever``)."""
    return ThreadingHTTPServer((host, port), handler_for(store))
