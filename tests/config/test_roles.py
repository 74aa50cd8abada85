"""Who may do what: the roles file is validated whole, and every refusal says who, what, who
may instead, and where to change it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config.roles import (
    ACTOR_ENV,
    DEFAULT_ROLES,
    ROLES_ENV,
    Action,
    Actor,
    ActorMissingError,
    NotAuthorizedError,
    RolesError,
    actor_from,
    authorize,
    load_roles,
    roles_path,
    scheduled_actor,
)


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "roles.toml"
    path.write_text(text)
    return path


def test_the_packaged_example_grants_each_role_its_duties_and_no_more() -> None:
    roles = load_roles(DEFAULT_ROLES)
    assert roles.actions_of("demo-analyst") == {Action.ACKNOWLEDGE, Action.ESCALATE, Action.ASSIGN}
    assert roles.actions_of("demo-controller") == {
        Action.CLOSE,
        Action.REOPEN,
        Action.ACCEPT_QUALITY_FAILURES,
    }
    assert roles.actions_of("demo-investigator") == {Action.EXPORT}
    assert roles.actions_of("demo-admin") == set(Action)
    assert roles.actions_of("nobody-checked") == frozenset()
    assert roles.proxy_user_header == "X-Forwarded-User"
    assert roles.trusts_proxy("127.0.0.1") and not roles.trusts_proxy("10.0.0.1")
    assert scheduled_actor(roles).name == "demo-controller"
    assert Action.CLOSE in roles.actions_of(scheduled_actor(roles).name)


@pytest.mark.parametrize(
    ("actor", "action"),
    [
        ("nobody-checked", Action.REOPEN),
        ("demo-analyst", Action.CLOSE),
        ("demo-analyst", Action.ACCEPT_QUALITY_FAILURES),
        ("demo-controller", Action.ACKNOWLEDGE),
        ("demo-investigator", Action.ESCALATE),
        ("demo-controller", Action.RE_SIGN_JOURNAL),
        ("Demo-Analyst", Action.ACKNOWLEDGE),  # names are exact: no case folding into a role
    ],
)
def test_an_action_outside_the_actors_roles_is_refused(actor: str, action: Action) -> None:
    with pytest.raises(NotAuthorizedError) as raised:
        authorize(Actor(actor, "command line"), action, load_roles(DEFAULT_ROLES))
    message = str(raised.value)
    assert message.startswith(f"{actor} (from command line) may not {action}: that needs the role")
    assert str(DEFAULT_ROLES) in message and "[users]" in message


def test_the_refusal_names_what_the_actor_holds() -> None:
    roles = load_roles(DEFAULT_ROLES)
    with pytest.raises(
        NotAuthorizedError,
        match="needs the role accountant or admin, and demo-analyst holds analyst in",
    ):
        authorize(Actor("demo-analyst", "x"), Action.REOPEN, roles)
    with pytest.raises(NotAuthorizedError, match="nobody-checked is not a user in"):
        authorize(Actor("nobody-checked", "x"), Action.REOPEN, roles)
    authorize(Actor("demo-admin", "x"), Action.REOPEN, roles)  # no exception: allowed


def test_every_problem_of_a_roles_file_is_named_at_once(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        """
trusted_proxies = ["10.0.0.1", "proxy.example", "10.1.0.0/16"]
proxy_user_header = " "
scheduled_actor = "ghost"
colour = "blue"

[users]
alice = ["analyst", "superuser"]
bob = []
" carol" = ["admin"]
dave = "accountant"
""",
    )
    with pytest.raises(RolesError) as raised:
        load_roles(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: ")
    for expected in (
        "unknown key 'colour'",
        "users.alice: unknown role(s) ['superuser']",
        "users.bob: must be a non-empty list of roles",
        "users: ' carol' is not a usable name",
        "users.dave: must be a non-empty list of roles",
        "trusted_proxies: 'proxy.example' is not an IP address or network",
        "scheduled_actor 'ghost' is not a user in [users]",
        "proxy_user_header must be a header name",
    ):
        assert expected in message


def test_an_unreadable_or_broken_roles_file_names_itself(tmp_path: Path) -> None:
    with pytest.raises(RolesError, match=f"{tmp_path / 'none.toml'}: cannot read the roles"):
        load_roles(tmp_path / "none.toml")
    with pytest.raises(RolesError, match="not valid TOML"):
        load_roles(_file(tmp_path, "[users\n"))


def test_proxies_are_trusted_by_address_or_network(tmp_path: Path) -> None:
    roles = load_roles(_file(tmp_path, 'trusted_proxies = ["10.0.0.1", "192.168.5.0/24"]\n'))
    assert roles.trusts_proxy("10.0.0.1")
    assert roles.trusts_proxy("192.168.5.77")
    assert not roles.trusts_proxy("10.0.0.2")
    assert not roles.trusts_proxy("127.0.0.1")
    assert not roles.trusts_proxy("10.0.0.1, 10.0.0.2")  # a forwarded list is not an address
    assert not roles.trusts_proxy("")


def test_a_file_without_a_scheduled_actor_says_how_to_name_one(tmp_path: Path) -> None:
    roles = load_roles(_file(tmp_path, '[users]\nalice = ["accountant"]\n'))
    with pytest.raises(RolesError, match='scheduled_actor = "nightly-controller"'):
        scheduled_actor(roles)


def test_the_actor_comes_from_the_command_line_or_the_environment_never_a_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ACTOR_ENV, raising=False)
    monkeypatch.setenv("USER", "root")
    with pytest.raises(ActorMissingError, match="--actor NAME or set BACCARAT_ACTOR"):
        actor_from(None)
    with pytest.raises(ActorMissingError):
        actor_from("   ")
    monkeypatch.setenv(ACTOR_ENV, " demo-analyst ")
    assert actor_from(None) == Actor("demo-analyst", "environment BACCARAT_ACTOR")
    assert actor_from("demo-admin") == Actor("demo-admin", "command line")


def test_the_roles_file_comes_from_the_argument_the_environment_or_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ROLES_ENV, raising=False)
    assert roles_path() == DEFAULT_ROLES
    monkeypatch.setenv(ROLES_ENV, str(tmp_path / "site.toml"))
    assert roles_path() == tmp_path / "site.toml"
    assert roles_path(tmp_path / "given.toml") == tmp_path / "given.toml"
