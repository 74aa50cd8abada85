"""A ledger's logs and their witnesses: sending a checkpoint as each entry is made, and
checking a log against every checkpoint the witnesses hold.

A log is given as its entries' ``(link, content digest)`` pairs, oldest first; each link
chains the one before (:func:`pipeline.witness.checkpoint.chain_link`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime

from pipeline.config.installation import Installation, InstallationError
from pipeline.config.keys import Signer, load_keyring, signer
from pipeline.witness.checkpoint import GENESIS, LOGS, Checkpoint
from pipeline.witness.client import Witness, WitnessUnavailableError, load_witnesses
from pipeline.witness.store import ACCEPTED, CheckpointRefusedError, WitnessRecord


@dataclass(frozen=True)
class LogState:
    """One log of one ledger, as the ledger holds it now."""

    log: str
    ledger_id: str
    ledger: str
    """The ledger's place, as the checkpoints name it."""
    links: Sequence[str]
    digests: Sequence[str]
    """Each entry's content digest, in the order of ``links``."""


class NotWitnessedError(RuntimeError):
    """A checkpoint was not accepted by every witness; the entry is made and the message
    says which witness, why, and how to witness it later."""


def signed_checkpoint(state: LogState, key: Signer, made_at: datetime | None = None) -> Checkpoint:
    """A checkpoint of ``state`` (its size and head now), signed with ``key``."""
    unsigned = Checkpoint(
        state.ledger_id,
        state.ledger,
        state.log,
        len(state.links),
        state.links[-1] if state.links else GENESIS,
        (made_at or datetime.now(UTC)).isoformat(timespec="microseconds"),
        key.key_id,
        "",
    )
    return replace(unsigned, signature=key.sign(unsigned.signed_content()))


def publish(state: LogState, inst: Installation) -> list[WitnessRecord]:
    """Sign a checkpoint of ``state`` with the installation's key of its log and hand it to
    every witness, with the content digests of the entries each witness has not seen.
    :class:`NotWitnessedError` names every witness that refused or could not be reached
    (the others kept it)."""
    witnesses = load_witnesses(inst)
    if not witnesses:
        raise NotWitnessedError(
            f"{inst.witnesses_path}: the installation names no witness, so nothing outside "
            "this machine holds the record's head: an administrator adds one "
            "(baccarat-audit installation add-witness)"
        )
    checkpoint = signed_checkpoint(state, signer(LOGS[state.log], inst))
    keys = [asdict(k) for k in load_keyring(inst).keys]
    kept, failures = [], []
    for witness in witnesses:
        try:
            seen = witness.seen(state.ledger_id, state.log)
            proof = state.digests[seen:] if seen <= len(state.links) else []
            kept.append(witness.submit(checkpoint, proof, keys))
        except (CheckpointRefusedError, WitnessUnavailableError, InstallationError) as err:
            failures.append(f"{witness.name}: {err}")
    if failures:
        raise NotWitnessedError(
            f"the {state.log} log's checkpoint ({checkpoint.describe()}) was not witnessed by "
            + "; ".join(failures)
            + ". Once the witness is reachable, witness it: baccarat-audit witness sync --db "
            f"{state.ledger}"
        )
    return kept


def problems_against_witnesses(state: LogState, inst: Installation) -> list[str]:
    """Everything the witnesses hold that this log no longer matches: a witnessed size
    larger than the log (cut short, or rolled back), a witnessed head that is not the link at
    its size (rewritten, or forked), refusals the witnesses recorded (a rollback or fork
    tried), records whose countersignature fails (the witness's store edited), checkpoints
    of another ledger kept at this ledger's place (replaced), and entries no witness holds
    yet."""
    witnesses = load_witnesses(inst)
    where = f"{state.log} log"
    if not witnesses:
        return [
            f"{where}: no witness is configured in {inst.witnesses_path}: nothing can show "
            "that the record was not cut short or rolled back"
        ]
    problems = []
    for witness in witnesses:
        try:
            records = witness.about(state.ledger_id, state.ledger)
        except WitnessUnavailableError as err:
            problems.append(f"{where}: {err}: the log cannot be checked against it")
            continue
        problems += _against(state, witness, records)
    return problems


def _against(state: LogState, witness: Witness, records: Sequence[WitnessRecord]) -> list[str]:
    where = f"{state.log} log (witness {witness.name})"
    problems = []
    largest = 0
    for record in records:
        if record.checkpoint.get("log") != state.log:
            continue
        if not record.authentic(witness.public_key):
            problems.append(
                f"{where}: a record at {record.witnessed_at} is not countersigned by the "
                "witness: its store was edited"
            )
            continue
        try:
            checkpoint = Checkpoint.from_json(record.checkpoint)
        except ValueError as err:
            problems.append(f"{where}: a record at {record.witnessed_at}: {err}")
            continue
        if checkpoint.ledger_id != state.ledger_id:
            problems.append(
                f"{where}: the witness holds checkpoints of another ledger at this place "
                f"(id {checkpoint.ledger_id}, {checkpoint.describe()}): this ledger "
                f"(id {state.ledger_id}) replaced it"
            )
            continue
        if record.kind != ACCEPTED:
            problems.append(
                f"{where}: the witness refused a checkpoint at {record.witnessed_at}: "
                f"{record.reason}"
            )
            continue
        largest = max(largest, checkpoint.size)
        if checkpoint.size > len(state.links):
            problems.append(
                f"{where}: cut short or rolled back: the witness holds a checkpoint of "
                f"{checkpoint.size} entries ({checkpoint.describe()}), the ledger has "
                f"{len(state.links)}: entries {len(state.links) + 1}-{checkpoint.size} were "
                "deleted, or an older copy was restored"
            )
        elif checkpoint.size and state.links[checkpoint.size - 1] != checkpoint.head:
            problems.append(
                f"{where}: rewritten or forked: entry {checkpoint.size} is not the one "
                f"witnessed ({checkpoint.describe()}): the log was rewritten from there, or "
                "this is another history of the ledger"
            )
    unwitnessed = len(state.links) - largest
    if unwitnessed > 0:
        problems.append(
            f"{where}: entries {largest + 1}-{len(state.links)} are not witnessed: witness "
            f"them (baccarat-audit witness sync --db {state.ledger})"
        )
    return problems
