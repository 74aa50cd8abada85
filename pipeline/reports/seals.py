"""The seal log's anchors and witnesses: how each new head of the seal log
(:mod:`pipeline.ledger.seal_record`, where the log, its entries and the digests of the sealed
rows are kept) is filed outside the ledger, so deleting the newest entries, which leaves a valid
shorter log, is found.

Each new head is sent, as it is made, to the installation's witnesses as a signed checkpoint
(:mod:`pipeline.witness.record`), and appended to an anchor file beside the reports
(``seal-anchors.jsonl``, named in the entry relative to the ledger's folder) and printed in the
close report for filing elsewhere; ``verify`` checks the log against every checkpoint a witness
holds, and against the anchors.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.config.keys import Keyring
from pipeline.ledger.seal_record import SealEntry
from pipeline.witness.record import LogState

ANCHOR_FILE = "seal-anchors.jsonl"


def seal_time() -> datetime:
    """The time a seal is made (UTC, naive as the ledger stores it). The only clock a close
    report depends on: it is stored in the entry and the reports are rendered from there."""
    return datetime.now(UTC).replace(tzinfo=None)


# ---------------------------------------------------------------------- the anchor file
def default_anchor_path(log: Sequence[SealEntry], ledger_path: Path) -> Path:
    """Where the anchors are: the file the newest close recorded (relative to the ledger's
    folder), else ``reports/`` beside the ledger (the close's default output)."""
    for entry in reversed(log):
        if entry.anchor_path:
            return ledger_path.parent / entry.anchor_path
    return ledger_path.parent / "reports" / ANCHOR_FILE


def anchor_reference(anchor_path: Path, ledger_path: Path) -> Path:
    """How an entry names its anchor file: relative to the ledger's folder (a copy of the
    ledger and its reports elsewhere then names its own file)."""
    return Path(os.path.relpath(anchor_path.resolve(), ledger_path.resolve().parent))


def log_state(log: Sequence[SealEntry], ledger_id: str, ledger_path: Path) -> LogState:
    """The seal log as its witnesses see it."""
    return LogState(
        "seal",
        ledger_id,
        str(ledger_path.resolve()),
        [e.link for e in log],
        [e.content_digest for e in log],
    )


def append_anchors(path: Path, entries: Iterable[SealEntry]) -> None:
    """Append each entry's link to the anchor file, one JSON line each, flushed to disk."""
    lines = "".join(json.dumps(e.anchor_line(), sort_keys=True) + "\n" for e in entries)
    if not lines:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fo:
        fo.write(lines)
        fo.flush()
        os.fsync(fo.fileno())


def read_anchors(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The anchor lines of ``path`` and the problems reading them (line numbers named)."""
    anchors: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            line = json.loads(text)
            anchors.append({k: line[k] for k in ("seq", "gaming_date", "action", "link")})
        except (ValueError, TypeError, KeyError):
            problems.append(f"{path} line {number}: not a seal anchor ({text[:80]!r})")
    return anchors, problems


def unanchored(
    log: Sequence[SealEntry], anchors: Sequence[dict[str, Any]], keyring: Keyring
) -> list[SealEntry]:
    """The newest entries the anchor file lacks, when it is a true prefix of the log (a close
    that stopped between its commit and its anchor); empty otherwise."""
    if len(anchors) >= len(log):
        return []
    if any(a != e.anchor_line() for a, e in zip(anchors, log, strict=False)):
        return []
    return [e for e in log[len(anchors) :] if e.authentic(keyring)]
