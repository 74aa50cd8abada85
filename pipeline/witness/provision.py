"""Setting up an installation (:mod:`pipeline.config.installation`) and a witness.

A production installation is set up once by an administrator, as the service account::

    sudo -u baccarat baccarat-audit installation init --dir /etc/baccarat-audit --roles roles.toml
    # on the witness's machine, under an account the operators cannot use:
    baccarat-audit witness init --dir /var/lib/baccarat-witness --keyring keyring.json
    baccarat-audit witness serve --dir /var/lib/baccarat-witness --port 8470
    sudo -u baccarat baccarat-audit installation add-witness --name regulator \\
        --url http://witness.example:8470 --public-key KEY

A demo installation (``baccarat-audit demo``, the tests) puts all of it in one folder, with a
directory witness inside it, and says so in a ``DEMO`` file: whoever ran it holds every key,
so it shows the mechanism and defends against nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.config.installation import Installation, InstallationError
from pipeline.config.keys import create_keys, load_keyring, read_keyring
from pipeline.config.roles import DEFAULT_ROLES, add_account, os_account, read_roles
from pipeline.witness.client import Witness, add_witness
from pipeline.witness.store import WitnessStore

DEMO_NOTICE = (
    "A DEMO installation: its signing keys, its roles file and its witness are all in this\n"
    "folder, held by whoever ran the demo. It shows how seals are signed and witnessed; it\n"
    "defends against nobody. A production installation keeps private/ to the service\n"
    "account and runs its witness elsewhere (README: deployment).\n"
)


def init_installation(root: Path, roles: Path | None = None) -> Installation:
    """A new installation at ``root``: the roles file (``roles``, else the packaged
    example) and a first key per purpose. Refused where one exists, or when the roles file
    does not validate (:class:`~pipeline.config.roles.RolesError`)."""
    inst = Installation(root)
    if inst.keyring_path.exists():
        raise InstallationError(f"{root}: an installation exists here already")
    read_roles(roles or DEFAULT_ROLES)
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    shutil.copyfile(roles or DEFAULT_ROLES, inst.roles_path)
    inst.roles_path.chmod(0o644)
    create_keys(inst)
    return inst


def init_witness(root: Path, keyring: Path) -> WitnessStore:
    """A new witness at ``root`` pinning the installation keyring at ``keyring``."""
    return WitnessStore.create(root, read_keyring(keyring))


def init_demo_installation(root: Path) -> Installation:
    """A labelled demo installation with a directory witness inside it; the account that
    made it may act as every user of the packaged example (``--actor demo-analyst``) and
    run the scheduled audit."""
    inst = init_installation(root)
    demo_users = read_roles(inst.roles_path).users
    add_account(inst.roles_path, os_account(root).name, sorted(demo_users))
    inst.label_path.write_text(DEMO_NOTICE, encoding="utf-8")
    store = WitnessStore.create(root / "demo-witness", load_keyring(inst))
    # named relative to the installation, so a copy of the folder brings its witness along
    add_witness(inst, Witness("demo-witness", store.public_key, directory=Path("demo-witness")))
    return inst
