"""Who may do what: the roles the record's users need, and which user holds which.

The roles are fixed here, because separating the duties is their point:

- **analyst**: acknowledge, escalate and assign exceptions (surveillance);
- **accountant**: close and reopen gaming days, and close despite failed BLOCK data-quality
  expectations;
- **investigator**: export evidence bundles from the dashboards (reading is open to anyone
  who can reach the ledger; the dashboards without a signed-in user are read-only);
- **admin**: all of these, and re-signing a journal written before acknowledgements were
  authenticated.

A TOML file maps users to roles and names the proxies trusted to say who the user is::

    trusted_proxies = ["10.0.0.1", "127.0.0.1"]   # addresses or networks
    proxy_user_header = "X-Forwarded-User"        # the one header those proxies set
    scheduled_actor = "nightly-controller"        # who the scheduled nightly audit acts as

    [users]
    "controller@casino.example" = ["accountant"]
    "analyst-7" = ["analyst", "investigator"]

The file used is ``--roles-file``, else ``$BACCARAT_ROLES``, else the packaged example
``roles.toml`` (the demo and the tests use it; a real installation sets its own).

Every state-changing action names an :class:`Actor`: the name, and where the name came from
(the command line, an environment variable, a trusted proxy's header, an OIDC sign-in), so
the record shows how much the name can be believed.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

DEFAULT_ROLES = Path(__file__).with_name("roles.toml")
ACTOR_ENV = "BACCARAT_ACTOR"
ROLES_ENV = "BACCARAT_ROLES"


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

_KEYS = frozenset({"trusted_proxies", "proxy_user_header", "scheduled_actor", "users"})
DEFAULT_PROXY_USER_HEADER = "X-Forwarded-User"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class RolesError(ValueError):
    """A roles file that cannot be used; the message names the file and every bad entry."""


class ActorMissingError(ValueError):
    """A state-changing command was given nobody to record as acting."""


class NotAuthorizedError(PermissionError):
    """The actor's roles do not allow the action; the message says who may and where to
    change that."""


@dataclass(frozen=True, slots=True)
class Actor:
    name: str
    source: str
    """Where the name came from: "command line", "environment BACCARAT_ACTOR", "proxy header
    X-Forwarded-User from 10.0.0.1", "OIDC sign-in", ..."""


@dataclass(frozen=True, slots=True)
class Roles:
    path: Path
    users: Mapping[str, frozenset[str]]
    trusted_proxies: tuple[Network, ...]
    proxy_user_header: str
    """The header naming the signed-in user that the trusted proxies set (and strip from
    what clients send); no other header is believed."""
    scheduled_actor: str | None

    def actions_of(self, name: str) -> frozenset[Action]:
        return frozenset(a for role in self.users.get(name, ()) for a in ROLE_ACTIONS[role])

    def trusts_proxy(self, address: str) -> bool:
        """Whether a request from ``address`` comes from a configured proxy."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted_proxies)


def roles_path(given: Path | None = None) -> Path:
    """The roles file in use: ``given``, else ``$BACCARAT_ROLES``, else the packaged one."""
    if given is not None:
        return given
    from_env = os.environ.get(ROLES_ENV)
    return Path(from_env) if from_env else DEFAULT_ROLES


def load_roles(path: Path | None = None) -> Roles:
    """The roles file (:func:`roles_path`), validated; every problem of every entry at once."""
    where = roles_path(path)
    try:
        data = tomllib.loads(where.read_text(encoding="utf-8"))
    except OSError as err:
        raise RolesError(
            f"{where}: cannot read the roles file ({err.strerror}); set {ROLES_ENV} or "
            "--roles-file to the file that maps users to roles"
        ) from err
    except tomllib.TOMLDecodeError as err:
        raise RolesError(f"{where}: not valid TOML ({err})") from err
    problems = [
        f"unknown key {key!r} (expected {', '.join(sorted(_KEYS))})"
        for key in sorted(data.keys() - _KEYS)
    ]
    users = _users(data.get("users", {}), problems)
    proxies = _proxies(data.get("trusted_proxies", []), problems)
    header = data.get("proxy_user_header", DEFAULT_PROXY_USER_HEADER)
    if not (isinstance(header, str) and header.strip()):
        problems.append("proxy_user_header must be a header name, e.g. X-Forwarded-User")
    scheduled = data.get("scheduled_actor")
    if scheduled is not None and not (isinstance(scheduled, str) and scheduled in users):
        problems.append(f"scheduled_actor {scheduled!r} is not a user in [users]")
    if problems:
        raise RolesError(f"{where}: " + "; ".join(problems))
    return Roles(where, MappingProxyType(users), proxies, str(header).strip(), scheduled)


def _users(table: Any, problems: list[str]) -> dict[str, frozenset[str]]:
    if not isinstance(table, dict):
        problems.append("[users] must be a table of user = [roles]")
        return {}
    users = {}
    for name, roles in table.items():
        if not name.strip() or name != name.strip():
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


def actor_from(given: str | None) -> Actor:
    """Who acts on a command line: ``--actor``, else ``$BACCARAT_ACTOR``; never a default
    (an operating-system user or a program name records nobody who answers for it)."""
    if given is not None and given.strip():
        return Actor(given.strip(), "command line")
    from_env = os.environ.get(ACTOR_ENV, "").strip()
    if from_env:
        return Actor(from_env, f"environment {ACTOR_ENV}")
    raise ActorMissingError(
        f"who acts is required and recorded: pass --actor NAME or set {ACTOR_ENV} (a user of "
        f"the roles file {roles_path()})"
    )


def scheduled_actor(roles: Roles) -> Actor:
    """Who the scheduled nightly audit acts as (``scheduled_actor`` of the roles file)."""
    if roles.scheduled_actor is None:
        raise RolesError(
            f"{roles.path}: no scheduled_actor: name the user the nightly audit closes the "
            'gaming day as, e.g. scheduled_actor = "nightly-controller" (an accountant)'
        )
    return Actor(roles.scheduled_actor, f"scheduled_actor of {roles.path}")


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
        f"{' or '.join(allowed)}, and {actor.name} {holding} in {roles.path}; an administrator "
        "of that file can grant it under [users]"
    )
