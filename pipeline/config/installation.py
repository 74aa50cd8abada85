"""The installation: the configuration a command cannot replace, and the keys operators do
not hold.

One folder, fixed per machine (``$BACCARAT_INSTALLATION``, else ``/etc/baccarat-audit``), set
up once by an administrator (``baccarat-audit installation init``) and owned by the
pipeline's service account:

- ``roles.toml``: who may do what (:mod:`pipeline.config.roles`); its SHA-256 is recorded in
  every seal, so the file a close was authorized by is on the record;
- ``private/``: one Ed25519 signing key per purpose (:data:`~pipeline.config.keys.PURPOSES`),
  readable by the service account only (folder 0700, files 0600): operators run the
  state-changing commands through the service account (``sudo -u baccarat``), so a seal or a
  journal line can be made only by the program, and nobody who can run ``close`` can read
  the key that signs it;
- ``keyring.json``: the public half of every key ever used, with the statements that rotated
  them; readable by everyone, so ``verify`` (an auditor, an investigator) needs no secret;
- ``witnesses.toml``: where each checkpoint of the record is sent, and each witness's public
  key (:mod:`pipeline.reports.witness`).

Nothing here is ever created implicitly: a missing installation, key or keyring is an error
that says who sets it up and how (a key created on the fly by whoever happened to run a
command is the silent forgery this layout exists to prevent).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

INSTALLATION_ENV = "BACCARAT_INSTALLATION"
DEFAULT_INSTALLATION = Path("/etc/baccarat-audit")


class InstallationError(RuntimeError):
    """The installation (or a file of it) is missing or unsafe; the message says which file,
    what is wrong and who fixes it how."""


@dataclass(frozen=True)
class Installation:
    root: Path

    @property
    def roles_path(self) -> Path:
        return self.root / "roles.toml"

    @property
    def private_dir(self) -> Path:
        return self.root / "private"

    @property
    def keyring_path(self) -> Path:
        return self.root / "keyring.json"

    @property
    def witnesses_path(self) -> Path:
        return self.root / "witnesses.toml"

    @property
    def label_path(self) -> Path:
        """A demo installation says so here (its keys are held by whoever ran the demo)."""
        return self.root / "DEMO"

    @property
    def is_demo(self) -> bool:
        return self.label_path.exists()

    def roles_sha256(self) -> str | None:
        """The SHA-256 of the roles file, as a seal records it (``None`` when absent)."""
        try:
            return hashlib.sha256(self.roles_path.read_bytes()).hexdigest()
        except FileNotFoundError:
            return None

    def private_key_path(self, purpose: str) -> Path:
        return self.private_dir / f"{purpose}.key"


def installation_root() -> Path:
    """Where the installation is: ``$BACCARAT_INSTALLATION``, else ``/etc/baccarat-audit``."""
    given = os.environ.get(INSTALLATION_ENV, "").strip()
    return Path(given) if given else DEFAULT_INSTALLATION


def installation() -> Installation:
    """The installation in use; :class:`InstallationError` when none was set up there."""
    root = installation_root()
    found = Installation(root)
    if not found.keyring_path.is_file():
        raise InstallationError(
            f"{root}: no baccarat-audit installation here (no {found.keyring_path.name}): an "
            f"administrator sets one up once, as the service account: baccarat-audit "
            f"installation init --dir {root} (or set {INSTALLATION_ENV} to the installation's "
            "folder)"
        )
    return found


def check_private(path: Path, what: str) -> None:
    """Refuse a secret that anyone but its owner could read or replace: ``path`` must be a
    regular file (no link) owned by this process's user, with no group or other access, in
    a folder with none either."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise InstallationError(
            f"{path}: {what} is missing: it is never created on the fly; the installation's "
            "administrator restores it from the key backup, or rotates to a new key "
            "(baccarat-audit keys rotate), as the service account"
        ) from None
    except PermissionError:
        raise InstallationError(
            f"{path}: {what} cannot be read by this account (uid {os.geteuid()}): run the "
            "command as the pipeline's service account (e.g. sudo -u baccarat baccarat-audit "
            "...), which alone holds the keys"
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise InstallationError(f"{path}: {what} is not a regular file (a link?): refused")
    folder = path.parent.stat()
    for where, mode, owner in (
        (path, info.st_mode, info.st_uid),
        (path.parent, folder.st_mode, folder.st_uid),
    ):
        if owner != os.geteuid():
            raise InstallationError(
                f"{where}: owned by uid {owner}, not by this account (uid {os.geteuid()}): "
                f"{what} must belong to the service account that uses it; refused"
            )
        if stat.S_IMODE(mode) & 0o077:
            raise InstallationError(
                f"{where}: mode {stat.S_IMODE(mode):04o} lets other accounts read or replace "
                f"{what}; refused: chmod go= {where} (and check who copied it)"
            )
