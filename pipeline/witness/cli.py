"""``baccarat-audit installation``, ``keys`` and ``witness``: setting up where the keys and the
roles live, rotating keys, running a witness and catching a witness up.

Wire into :func:`pipeline.cli.build_parser` with ``add_installation_parsers(sub)``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pipeline.options import add_db_option


def add_installation_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "installation",
        help="set up the installation: roles, signing keys, witnesses (administrators)",
    )
    inner = p.add_subparsers(dest="installation_command", required=True, help="what to do")
    q = inner.add_parser("init", help="a new installation: roles file and first keys")
    q.add_argument("--dir", type=Path, required=True, help="the installation's folder")
    q.add_argument("--roles", type=Path, help="roles file to install (default: the example)")
    q.add_argument(
        "--demo",
        action="store_true",
        help="a labelled demo installation with a directory witness inside it",
    )
    q.set_defaults(func=cmd_installation_init)
    q = inner.add_parser("add-witness", help="send every checkpoint to one more witness")
    q.add_argument("--name", required=True, help="how problems name the witness")
    where = q.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a witness process, e.g. http://witness:8470")
    where.add_argument("--directory", type=Path, help="a witness folder (write-once share)")
    q.add_argument("--public-key", required=True, help="the witness's key (witness.json)")
    q.set_defaults(func=cmd_add_witness)

    p = sub.add_parser("keys", help="the installation's signing keys: list or rotate")
    inner = p.add_subparsers(dest="keys_command", required=True, help="what to do")
    q = inner.add_parser("list", help="every key of the keyring, retired ones included")
    q.set_defaults(func=cmd_keys_list)
    q = inner.add_parser("rotate", help="replace a purpose's key (the old key signs the new)")
    q.add_argument(
        "--purpose",
        required=True,
        choices=("seal", "journal", "webhook"),
        help="which key: the seal log's, the journal's or the webhooks'",
    )
    q.set_defaults(func=cmd_keys_rotate)

    p = sub.add_parser("witness", help="run a witness, or send it the checkpoints it lacks")
    inner = p.add_subparsers(dest="witness_command", required=True, help="what to do")
    q = inner.add_parser("init", help="a new witness pinning an installation's keyring")
    q.add_argument("--dir", type=Path, required=True, help="the witness's folder")
    q.add_argument("--keyring", type=Path, required=True, help="the installation's keyring")
    q.set_defaults(func=cmd_witness_init)
    q = inner.add_parser("serve", help="serve a witness over HTTP")
    q.add_argument("--dir", type=Path, required=True, help="the witness's folder")
    q.add_argument("--host", default="127.0.0.1", help="address to listen on")
    q.add_argument("--port", type=int, default=8470, help="TCP port to listen on")
    q.set_defaults(func=cmd_witness_serve)
    q = inner.add_parser("sync", help="send the ledger's current heads to every witness")
    add_db_option(q, "the ledger whose logs to witness")
    q.set_defaults(func=cmd_witness_sync)


def cmd_installation_init(args: argparse.Namespace) -> int:
    from pipeline.witness.provision import init_demo_installation, init_installation

    if args.demo:
        inst = init_demo_installation(args.dir)
    else:
        inst = init_installation(args.dir, args.roles)
    print(f"installation at {inst.root}: roles {inst.roles_path}, keyring {inst.keyring_path}")
    if not args.demo:
        print("next: set up a witness elsewhere and add it (installation add-witness)")
    return 0


def cmd_add_witness(args: argparse.Namespace) -> int:
    from pipeline.config.installation import installation
    from pipeline.witness.client import Witness, add_witness, load_witnesses

    inst = installation()
    add_witness(inst, Witness(args.name, args.public_key, args.url, args.directory))
    load_witnesses(inst)  # refuses what it wrote if it is not usable
    print(f"witness {args.name} added to {inst.witnesses_path}")
    return 0


def cmd_keys_list(args: argparse.Namespace) -> int:
    from pipeline.config.keys import load_keyring

    ring = load_keyring()
    for key in ring.keys:
        state = f"retired {key.retired}" if key.retired else "current"
        print(f"{key.purpose:8} {key.key_id}  created {key.created}  {state}")
    for problem in ring.problems():
        print(problem)
    return 1 if ring.problems() else 0


def cmd_keys_rotate(args: argparse.Namespace) -> int:
    from pipeline.config.keys import rotate

    key = rotate(args.purpose)
    print(f"{args.purpose} key {key.key_id} follows {key.follows} (signed by it)")
    print("the witnesses learn the new key with the next checkpoint")
    return 0


def cmd_witness_init(args: argparse.Namespace) -> int:
    from pipeline.witness.provision import init_witness

    store = init_witness(args.dir, args.keyring)
    print(json.dumps({"witness": str(store.root), "public_key": store.public_key}))
    return 0


def cmd_witness_serve(args: argparse.Namespace) -> int:
    from pipeline.witness.server import serve
    from pipeline.witness.store import WitnessStore

    server = serve(WitnessStore(args.dir), args.host, args.port)
    print(f"witness {args.dir} on http://{args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def cmd_witness_sync(args: argparse.Namespace) -> int:
    from pipeline.bundle.acks import AckJournal
    from pipeline.config.installation import installation
    from pipeline.ledger.seal_record import seal_log
    from pipeline.ledger.store import Ledger, LedgerError
    from pipeline.reports.seals import log_state
    from pipeline.witness.record import publish

    inst = installation()
    with Ledger(args.db, read_only=True) as ledger:
        if ledger.ledger_id is None:
            raise LedgerError(
                f"{ledger.path}: the ledger has no identity (a ledger from before migration "
                "17 that no writer opened since, or its ledger_identity was deleted)"
            )
        journal = AckJournal.for_ledger(ledger.path, ledger.ledger_id, inst)
        states = [
            log_state(seal_log(ledger), ledger.ledger_id, ledger.path),
            journal.log_state(journal.records(), ledger.ledger_id),
        ]
    for state in states:
        publish(state, inst)
        print(f"{state.log} log: {len(state.links)} entries witnessed")
    return 0
