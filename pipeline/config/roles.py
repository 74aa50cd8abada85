"""Who may do what: the roles the record's users need, which user holds which, and who is
acting.

The roles are fixed here, because separating the duties is their point:

- **analyst**: acknowledge, escalate and assign exceptions (surveillance);
- **accountant**: close and reopen gaming days, and close despite failed BLOCK data-quality
  expectations;
- **investigator**: export evidence bundles from the dashboards (reading is open to anyone
  who can reach the ledger; the dashboards without a signed-in user are read-only);
- **admin**: all of these, and re-signing a journal written before acknowledgements were
  authenticated.

The roles file is the installation's ``roles.toml`` (:mod:`pipeline.config.installation`),
and only that file: no option or environment variable of a command names another, so whoever
runs a command cannot grant themselves a role. It maps users to roles, operating-system
accounts to the named users they may act as, and names the proxies trusted to say who a
dashboard user is::

    trusted_proxies = ["10.0.0.1"]                # addresses or networks; none by default
    proxy_user_header = "X-Forwarded-User"        # the one header those proxies set
    scheduled_actor = "nightly-controller"        # who the scheduled nightly audit acts as

    [users]                                       # identities and their roles
    "alice" = ["accountant"]                      # an operating-system account
    "analyst-7" = ["analyst", "investigator"]     # a named user (dashboards, shared terminals)

    [accounts]                                    # who an operating-system account may act as
    "pit3" = ["analyst-7", "analyst-9"]           # a shared pit terminal's account
    "baccarat" = ["nightly-controller"]           # the service account runs the nightly audit

Who acts on the command line is the operating-system account running the command
(:func:`os_account`; through ``sudo -u baccarat``, the account that ran sudo). ``--actor
NAME`` or ``$BACCARAT_ACTOR`` name someone else only where ``[accounts]`` lets that account
act as ``NAME``. Every state-changing action names an :class:`Actor`: the name, and where it
came from (the operating-system account, ``--actor`` allowed by ``[accounts]``, a trusted
proxy's header, an OIDC sign-in), so the record shows how much the name can be believed.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import pwd
import stat
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pipeline.config.installation import (
    Installation,
    InstallationError,
    installation,
    installation_root,
)

DEFAULT_ROLES = Path(__file__).with_name("roles.toml")
"""The packaged example, which ``installation init`` copies when given no roles file."""
ACTOR_ENV = "BACCARAT_ACTOR"


class Action(StrEnum):
    """What a user may be allowed to do."""

    ACKNOWLEDGE = "acknowledge"
    ESCALATE = "escalate"
    ASSIGN = "assign"
    CLOSE = "close"
    REOPEN = "reopen"
    ACCEPT_QUALITY_FAILURES = "accept quality failures"
    EXPORT = "export bundles"
    RE_SIGN_JOURNAL = "re-sign an unkeyed acknowledgement journal"


ROLE_ACTIONS: Mapping[str, frozenset[Action]] = MappingProxyType(
    {
        "analyst": frozenset({Action.ACKNOWLEDGE, Action.ESCALATE, Action.ASSIGN}),
        "accountant": frozenset({Action.CLOSE, Action.REOPEN, Action.ACCEPT_QUALITY_FAILURES}),
        "investigator": frozenset({Action.EXPORT}),
        "admin": frozenset(Action),
    }
)
"""The actions of each role."""

_KEYS = frozenset({"trusted_proxies", "proxy_user_header", "scheduled_actor", "users", "accounts"})
DEFAULT_PROXY_USER_HEADER = "X-Forwarded-User"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class RolesError(ValueError):
    """A roles file that cannot be used; the message names the file and every bad entry."""


class ActorMissingError(ValueError):
    """Nobody can be named as acting (the operating-system account cannot be told)."""


class NotAuthorizedError(PermissionError):
    """The actor's roles do not allow the action, or the account may not act as the name
    given; the message says who may and where to change that."""


@dataclass(frozen=True, slots=True)
class Actor:
    name: str
    source: str
    """Where the name came from: "operating-system account alice via sudo as baccarat",
    "proxy header X-Forwarded-User from 10.0.0.1", "OIDC sign-in", ..."""


@dataclass(frozen=True, slots=True)
class Account:
    """The operating-system account running a command."""

    name: str
    source: str
    """"operating-system account alice", or "... alice via sudo as baccarat"."""


@dataclass(frozen=True, slots=True)
class Roles:
    path: Path
    sha256: str
    """The SHA-256 of the file's bytes as read (what a seal records as ``roles_sha256``)."""
    users: Mapping[str, frozenset[str]]
    accounts: Mapping[str, frozenset[str]]
    """Operating-system account -> the named users it may act as (``--actor``)."""
    trusted_proxies: tuple[Network, ...]
    proxy_user_header: str
    """The header naming the signed-in user that the trusted proxies set (and strip from
    what clients send); no other header is believed."""
    scheduled_actor: str | None

    def actions_of(self, name: str) -> frozenset[Action]:
        return frozenset(a for role in self.users.get(name, ()) for a in ROLE_ACTIONS[role])

    def may_act_as(self, account: str, name: str) -> bool:
        """Whether the operating-system ``account`` may act as ``name`` (itself, always)."""
        return name == account or name in self.accounts.get(account, ())

    def trusts_proxy(self, address: str) -> bool:
        """Whether a request from ``address`` comes from a configured proxy."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted_proxies)


def administered(path: Path) -> str:
    """Who administers the installation file ``path``, for error messages."""
    try:
        owner = _account_name(path.stat().st_uid)
    except OSError:
        owner = "the service account"
    return (
        f"the installation's roles file {path}, which its administrator changes as its owner "
        f"({owner}); no option or environment variable of a command replaces it"
    )


def load_roles() -> Roles:
    """The installation's roles file (``<installation>/roles.toml``), validated; every problem
    of every entry at once. Refused when the file (or its folder) can be changed by accounts
    other than its owner."""
    try:
        inst = installation()
    except InstallationError as err:
        raise RolesError(
            f"no roles file: {err} (the roles file is {installation_root() / 'roles.toml'})"
        ) from err
    unsafe = _unsafe(inst)
    if unsafe:
        raise RolesError(
            f"{inst.roles_path}: refused: "
            + "; ".join(unsafe)
            + f" ({administered(inst.roles_path)})"
        )
    return read_roles(inst.roles_path)


def _unsafe(inst: Installation) -> list[str]:
    problems = []
    for where in (inst.roles_path, inst.root):
        try:
            mode = stat.S_IMODE(where.stat().st_mode)
        except OSError:
            continue  # read_roles names a missing file
        if mode & 0o022:
            problems.append(
                f"{where} (mode {mode:04o}) can be changed by accounts other than its owner: "
                f"chmod go-w {where}"
            )
    return problems


def read_roles(path: Path) -> Roles:
    """A roles file at ``path``, validated (for :func:`load_roles`, and to check a candidate
    file before an administrator installs it); every problem of every entry at once."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise RolesError(
            f"{path}: cannot read the roles file ({err.strerror}); it is {administered(path)}"
        ) from err
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise RolesError(f"{path}: not valid TOML ({err})") from err
    problems = [
        f"unknown key {key!r} (expected {', '.join(sorted(_KEYS))})"
        for key in sorted(data.keys() - _KEYS)
    ]
    users = _users(data.get("users", {}), problems)
    accounts = _accounts(data.get("accounts", {}), users, problems)
    proxies = _proxies(data.get("trusted_proxies", []), problems)
    header = data.get("proxy_user_header", DEFAULT_PROXY_USER_HEADER)
    if not (isinstance(header, str) and header.strip()):
        problems.append("proxy_user_header must be a header name, e.g. X-Forwarded-User")
    scheduled = data.get("scheduled_actor")
    if scheduled is not None and not (isinstance(scheduled, str) and scheduled in users):
        problems.append(f"scheduled_actor {scheduled!r} is not a user in [users]")
    if problems:
        raise RolesError(f"{path}: " + "; ".join(problems))
    return Roles(
        path,
        hashlib.sha256(raw).hexdigest(),
        MappingProxyType(users),
        MappingProxyType(accounts),
        proxies,
        str(header).strip(),
        scheduled,
    )


def _usable(name: Any) -> bool:
    return isinstance(name, str) and bool(name.strip()) and name == name.strip()


def _users(table: Any, problems: list[str]) -> dict[str, frozenset[str]]:
    if not isinstance(table, dict):
        problems.append("[users] must be a table of user = [roles]")
        return {}
    users = {}
    for name, roles in table.items():
        if not _usable(name):
            problems.append(f"users: {name!r} is not a usable name (blank or padded)")
            continue
        if not isinstance(roles, list) or not roles:
            problems.append(f"users.{name}: must be a non-empty list of roles")
            continue
        unknown = [r for r in roles if r not in ROLE_ACTIONS]
        if unknown:
            problems.append(
                f"users.{name}: unknown role(s) {unknown} (roles: {', '.join(ROLE_ACTIONS)})"
            )
            continue
        users[name] = frozenset(roles)
    return users


def _accounts(
    table: Any, users: Mapping[str, frozenset[str]], problems: list[str]
) -> dict[str, frozenset[str]]:
    if not isinstance(table, dict):
        problems.append("[accounts] must be a table of account = [users it may act as]")
        return {}
    accounts = {}
    for account, names in table.items():
        if not _usable(account):
            problems.append(f"accounts: {account!r} is not a usable account name")
            continue
        if not isinstance(names, list) or not names or not all(_usable(n) for n in names):
            problems.append(f"accounts.{account}: must be a non-empty list of user names")
            continue
        unknown = [n for n in names if n not in users]
        if unknown:
            problems.append(f"accounts.{account}: {unknown} not user(s) in [users]")
            continue
        accounts[account] = frozenset(names)
    return accounts


def _proxies(values: Any, problems: list[str]) -> tuple[Network, ...]:
    if not isinstance(values, list):
        problems.append("trusted_proxies must be a list of addresses or networks")
        return ()
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(str(value)))
        except ValueError:
            problems.append(f"trusted_proxies: {value!r} is not an IP address or network")
    return tuple(networks)


def _account_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def os_account(root: Path | None = None) -> Account:
    """The operating-system account running this command: the effective user's; but when
    sudo ran it as the installation's service account (the owner of the installation folder
    ``root``, by default :func:`~pipeline.config.installation.installation_root`), the
    account that ran sudo (``SUDO_USER``, checked against ``SUDO_UID``).

    ``SUDO_USER`` is believed only there: an account running the command as itself could
    set it to anyone; sudo sets it for the service account, whose shell operators do not
    get (README: deployment)."""
    uid = os.geteuid()
    effective = _account_name(uid)
    if effective.startswith("uid "):
        raise ActorMissingError(
            f"this process's user ({effective}) has no account name, so nobody can be recorded "
            "as acting: run the command under a named account"
        )
    caller = os.environ.get("SUDO_USER", "").strip()
    if caller and caller != effective and _sudo_consistent(caller) and _service_uid(root) == uid:
        return Account(caller, f"operating-system account {caller} via sudo as {effective}")
    return Account(effective, f"operating-system account {effective}")


def _sudo_consistent(caller: str) -> bool:
    try:
        return str(pwd.getpwnam(caller).pw_uid) == os.environ.get("SUDO_UID", "").strip()
    except KeyError:
        return False


def _service_uid(root: Path | None) -> int | None:
    try:
        return (root if root is not None else installation_root()).stat().st_uid
    except OSError:
        return None


def actor_from(given: str | None, roles: Roles, account: Account | None = None) -> Actor:
    """Who acts on a command line: the operating-system account (:func:`os_account`), or the
    user named by ``given`` (``--actor``), else ``$BACCARAT_ACTOR``, when the roles file's
    ``[accounts]`` lets that account act as them; :class:`NotAuthorizedError` otherwise."""
    account = account if account is not None else os_account()
    if given is not None and given.strip():
        name, how = given.strip(), "--actor"
    else:
        name, how = os.environ.get(ACTOR_ENV, "").strip(), f"environment {ACTOR_ENV}"
    if not name or name == account.name:
        return Actor(account.name, account.source)
    if roles.may_act_as(account.name, name):
        return Actor(name, f"{how} on {account.source}, allowed by [accounts] of {roles.path}")
    allowed = sorted(roles.accounts.get(account.name, ()))
    may = f"may act only as {', '.join(allowed)}" if allowed else "has no [accounts] entry"
    raise NotAuthorizedError(
        f"{account.source} may not act as {name} (from {how}): the account {may} in "
        f"{administered(roles.path)}; run the command without {how} to act as "
        f"{account.name}, or ask that administrator to add {name!r} to accounts.{account.name}"
    )


def scheduled_actor(roles: Roles, account: Account | None = None) -> Actor:
    """Who the scheduled nightly audit acts as: the roles file's ``scheduled_actor``, when
    the operating-system account running it may act as that user (``[accounts]``: the
    service account the scheduler runs as)."""
    if roles.scheduled_actor is None:
        raise RolesError(
            f"{roles.path}: no scheduled_actor: name the user the nightly audit closes the "
            'gaming day as, e.g. scheduled_actor = "nightly-controller" (an accountant), and '
            'let the service account act as it: [accounts] baccarat = ["nightly-controller"]'
        )
    account = account if account is not None else os_account()
    name = roles.scheduled_actor
    if not roles.may_act_as(account.name, name):
        raise NotAuthorizedError(
            f"{account.source} may not run the scheduled audit as {name} (the scheduled_actor): "
            f"the account is not allowed to act as {name} under [accounts] in "
            f"{administered(roles.path)}; the scheduler runs as the service account, which "
            f'its administrator lists there (e.g. baccarat = ["{name}"])'
        )
    return Actor(name, f"scheduled_actor of {roles.path}, run by {account.source}")


def authorize(actor: Actor, action: Action, roles: Roles) -> None:
    """Return if ``actor`` may do ``action``; else raise :class:`NotAuthorizedError` naming
    the actor, the action, the roles that may, and the file to change."""
    if action in roles.actions_of(actor.name):
        return
    allowed = [role for role, actions in ROLE_ACTIONS.items() if action in actions]
    held = sorted(roles.users.get(actor.name, ()))
    holding = f"holds {', '.join(held)}" if held else "is not a user"
    raise NotAuthorizedError(
        f"{actor.name} (from {actor.source}) may not {action}: that needs the role "
        f"{' or '.join(allowed)}, and {actor.name} {holding} in {administered(roles.path)}; "
        "that administrator can grant it under [users]"
    )


def authorized(
    given: str | None, actions: Iterable[Action], roles: Roles, account: Account | None = None
) -> Actor:
    """Who acts (:func:`actor_from`: ``account`` or the user ``given`` it may act as),
    allowed every one of ``actions`` (:func:`authorize`); the errors say why not."""
    actor = actor_from(given, roles, account)
    for action in actions:
        authorize(actor, action, roles)
    return actor


def add_account(path: Path, account: str, names: Iterable[str]) -> None:
    """Let the operating-system ``account`` act as ``names``: an ``[accounts]`` table
    appended to the roles file at ``path``, which must have none yet (a demo installation's
    copy of the packaged example). Checked by reading the file back."""
    text = path.read_text(encoding="utf-8")
    if "accounts" in tomllib.loads(text):
        raise RolesError(f"{path}: has an [accounts] table already: edit it by hand")
    listed = ", ".join(_quoted(n) for n in names)
    path.write_text(
        f"{text.rstrip()}\n\n[accounts]\n{_quoted(account)} = [{listed}]\n", encoding="utf-8"
    )
    read_roles(path)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
