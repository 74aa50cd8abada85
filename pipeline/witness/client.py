"""The installation's witnesses (``witnesses.toml``), and talking to them.

::

    [[witness]]
    name = "regulator"                       # how problems name it
    url = "https://witness.example:8470"     # a witness process (pipeline.witness.server)
    public_key = "9f1c..."                   # its key, from its witness.json

    [[witness]]
    name = "worm-share"
    directory = "/mnt/worm/baccarat-witness"  # a witness folder this machine writes through
                                              # (relative: inside the installation's folder)
    public_key = "..."

A record a witness returns counts only when its countersignature verifies with the public key
configured here, so an operator who edits a witness's file, or answers in its place, is
found out.
"""

from __future__ import annotations

import json
import tomllib
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from pipeline.config.installation import Installation, InstallationError
from pipeline.witness.checkpoint import Checkpoint
from pipeline.witness.store import CheckpointRefusedError, WitnessRecord, WitnessStore

TIMEOUT_SECONDS = 10.0
"""How long a witness is waited for, per request."""


class WitnessUnavailableError(RuntimeError):
    """A witness could not be reached or answered nonsense; the message names it."""


@dataclass(frozen=True)
class Witness:
    name: str
    public_key: str
    url: str | None = None
    directory: Path | None = None

    def submit(
        self, checkpoint: Checkpoint, proof: Sequence[str], keys: Sequence[dict[str, Any]]
    ) -> WitnessRecord:
        """Hand ``checkpoint`` to the witness; its record, or :class:`CheckpointRefusedError`
        / :class:`WitnessUnavailableError`."""
        if self.directory is not None:
            return WitnessStore(self.directory).submit(checkpoint, proof, keys)
        body = json.dumps(
            {"checkpoint": asdict(checkpoint), "proof": list(proof), "keys": list(keys)}
        ).encode()
        request = urllib.request.Request(
            f"{self.url}/checkpoints",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as err:
            if err.code == 409:
                raise CheckpointRefusedError(
                    f"witness {self.name}: {json.loads(err.read()).get('error')}"
                ) from None
            raise WitnessUnavailableError(f"witness {self.name} ({self.url}): {err}") from err
        except (OSError, ValueError) as err:
            raise WitnessUnavailableError(f"witness {self.name} ({self.url}): {err}") from err
        return WitnessRecord.from_json(answer["record"])

    def seen(self, ledger_id: str, log: str) -> int:
        """How many entries of ``ledger_id``'s ``log`` the witness has accepted a checkpoint
        of (what a new checkpoint's proof starts after)."""
        if self.directory is not None:
            try:
                latest = WitnessStore(self.directory).latest(ledger_id, log)
            except (OSError, ValueError) as err:
                raise WitnessUnavailableError(
                    f"witness {self.name} ({self.directory}): cannot read its store ({err})"
                ) from err
            return latest.size if latest is not None else 0
        query = urlencode({"ledger_id": ledger_id, "log": log})
        try:
            with urllib.request.urlopen(
                f"{self.url}/heads?{query}", timeout=TIMEOUT_SECONDS
            ) as response:
                return int(json.loads(response.read())["size"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise WitnessUnavailableError(f"witness {self.name} ({self.url}): {err}") from err

    def about(self, ledger_id: str | None, ledger: str | None) -> list[WitnessRecord]:
        """What the witness holds about the ledger (see :meth:`WitnessStore.about`)."""
        if self.directory is not None:
            try:
                return WitnessStore(self.directory).about(ledger_id, ledger)
            except (OSError, ValueError) as err:
                raise WitnessUnavailableError(
                    f"witness {self.name} ({self.directory}): cannot read its store ({err})"
                ) from err
        query = urlencode({k: v for k, v in (("ledger_id", ledger_id), ("ledger", ledger)) if v})
        try:
            with urllib.request.urlopen(
                f"{self.url}/checkpoints?{query}", timeout=TIMEOUT_SECONDS
            ) as response:
                return [WitnessRecord.from_json(r) for r in json.loads(response.read())["records"]]
        except (OSError, ValueError, KeyError) as err:
            raise WitnessUnavailableError(f"witness {self.name} ({self.url}): {err}") from err


def load_witnesses(inst: Installation) -> list[Witness]:
    """The installation's witnesses; every problem of the file at once."""
    path = inst.witnesses_path
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise InstallationError(f"{path}: cannot read the witnesses ({err})") from err
    witnesses, problems = [], []
    for number, item in enumerate(data.get("witness", []), 1):
        name = item.get("name") or f"witness {number}"
        url, directory, key = item.get("url"), item.get("directory"), item.get("public_key")
        if (url is None) == (directory is None):
            problems.append(f"{name}: give exactly one of url and directory")
            continue
        if not (isinstance(key, str) and len(key) == 64):
            problems.append(f"{name}: public_key must be the witness's key (64 hex digits)")
            continue
        witnesses.append(
            Witness(
                str(name),
                key,
                str(url).rstrip("/") if url else None,
                inst.root / directory if directory else None,
            )
        )
    if problems:
        raise InstallationError(f"{path}: " + "; ".join(problems))
    return witnesses


def add_witness(inst: Installation, witness: Witness) -> None:
    """Append a witness to the installation's ``witnesses.toml``."""
    # JSON strings are TOML basic strings: a name cannot break out of its quotes
    where = (
        f"url = {json.dumps(witness.url)}"
        if witness.url
        else f"directory = {json.dumps(str(witness.directory))}"
    )
    with inst.witnesses_path.open("a", encoding="utf-8") as fo:
        fo.write(
            f"\n[[witness]]\nname = {json.dumps(witness.name)}\n{where}\n"
            f"public_key = {json.dumps(witness.public_key)}\n"
        )
