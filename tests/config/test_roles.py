"""Who may do what: the roles file is the installation's and validated whole; who acts is the
operating-system account, or a name that account may act as; every refusal says who, what,
who may instead, and where to change it."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from pipeline.config.installation import INSTALLATION_ENV
from pipeline.config.roles import (
    ACTOR_ENV,
    DEFAULT_ROLES,
    Account,
    Action,
    Actor,
    NotAuthorizedError,
    RolesError,
    actor_from,
    add_account,
    authorize,
    load_roles,
    os_account,
    read_roles,
    scheduled_actor,
)

ME = pwd.getpwuid(os.geteuid()).pw_name
SITE = """
scheduled_actor = "nightly-controller"

[users]
nightly-controller = ["accountant"]
analyst-7 = ["analyst"]
analyst-9 = ["analyst"]
alice = ["accountant"]

[accounts]
pit3 = ["analyst-7", "analyst-9"]
baccarat = ["nightly-controller"]
"""


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "roles.toml"
    path.write_text(text)
    return path


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installation (as far as roles go: its roles.toml and a keyring file) in use."""
    root = tmp_path / "installation"
    root.mkdir()
    (root / "keyring.json").write_text("{}")
    (root / "roles.toml").write_text(SITE)
    monkeypatch.setenv(INSTALLATION_ENV, str(root))
    for name in (ACTOR_ENV, "SUDO_USER", "SUDO_UID", "BACCARAT_ROLES"):
        monkeypatch.delenv(name, raising=False)
    return root


def test_the_packaged_example_grants_each_role_its_duties_and_no_more() -> None:
    roles = read_roles(DEFAULT_ROLES)
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
    assert roles.scheduled_actor == "demo-controller"
    assert roles.accounts == {}  # nobody may act as a demo user until an installation says so


def test_the_packaged_example_trusts_no_proxy() -> None:
    roles = read_roles(DEFAULT_ROLES)
    assert roles.trusted_proxies == ()
    for address in ("127.0.0.1", "::1", "10.0.0.1"):
        assert not roles.trusts_proxy(address)


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
        authorize(Actor(actor, "command line"), action, read_roles(DEFAULT_ROLES))
    message = str(raised.value)
    assert message.startswith(f"{actor} (from command line) may not {action}: that needs the role")
    assert str(DEFAULT_ROLES) in message and "[users]" in message
    assert "no option or environment variable of a command replaces it" in message


def test_the_refusal_names_what_the_actor_holds() -> None:
    roles = read_roles(DEFAULT_ROLES)
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
erin = ["analyst"]

[accounts]
pit3 = ["erin", "zed"]
" pit4" = ["alice"]
pit5 = []
""",
    )
    with pytest.raises(RolesError) as raised:
        read_roles(path)
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
        "accounts.pit3: ['zed'] not user(s) in [users]",
        "accounts: ' pit4' is not a usable account name",
        "accounts.pit5: must be a non-empty list of user names",
    ):
        assert expected in message


def test_an_unreadable_or_broken_roles_file_names_itself(tmp_path: Path) -> None:
    with pytest.raises(RolesError, match=f"{tmp_path / 'none.toml'}: cannot read the roles"):
        read_roles(tmp_path / "none.toml")
    with pytest.raises(RolesError, match="not valid TOML"):
        read_roles(_file(tmp_path, "[users\n"))


def test_proxies_are_trusted_by_address_or_network(tmp_path: Path) -> None:
    roles = read_roles(_file(tmp_path, 'trusted_proxies = ["10.0.0.1", "192.168.5.0/24"]\n'))
    assert roles.trusts_proxy("10.0.0.1")
    assert roles.trusts_proxy("192.168.5.77")
    assert not roles.trusts_proxy("10.0.0.2")
    assert not roles.trusts_proxy("127.0.0.1")
    assert not roles.trusts_proxy("10.0.0.1, 10.0.0.2")  # a forwarded list is not an address
    assert not roles.trusts_proxy("")


def test_a_file_without_a_scheduled_actor_says_how_to_name_one(tmp_path: Path) -> None:
    roles = read_roles(_file(tmp_path, '[users]\nalice = ["accountant"]\n'))
    with pytest.raises(RolesError, match='scheduled_actor = "nightly-controller"'):
        scheduled_actor(roles, Account("baccarat", "operating-system account baccarat"))


def test_the_scheduled_actor_needs_an_account_allowed_to_act_as_it(site: Path) -> None:
    roles = load_roles()
    service = Account("baccarat", "operating-system account baccarat")
    assert scheduled_actor(roles, service) == Actor(
        "nightly-controller",
        f"scheduled_actor of {site / 'roles.toml'}, run by operating-system account baccarat",
    )
    with pytest.raises(NotAuthorizedError) as raised:
        scheduled_actor(roles, Account("alice", "operating-system account alice"))
    assert str(raised.value).startswith(
        "operating-system account alice may not run the scheduled audit as nightly-controller"
    )


# ---------------------------------------------------------------------- the file in use
def test_the_roles_file_is_the_installations_and_no_environment_replaces_it(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = _file(tmp_path, f'[users]\n"{ME}" = ["admin"]\n')
    monkeypatch.setenv("BACCARAT_ROLES", str(mine))  # the variable of old: ignored
    roles = load_roles()
    assert roles.path == site / "roles.toml"
    assert roles.actions_of(ME) == frozenset()
    assert roles.sha256 == __import__("hashlib").sha256(SITE.encode()).hexdigest()


def test_without_an_installation_the_roles_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(INSTALLATION_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(RolesError) as raised:
        load_roles()
    message = str(raised.value)
    assert f"the roles file is {tmp_path / 'nowhere' / 'roles.toml'}" in message
    assert "installation init" in message


def test_a_roles_file_others_could_change_is_refused(site: Path) -> None:
    (site / "roles.toml").chmod(0o666)
    with pytest.raises(RolesError, match=r"mode 0666\) can be changed by accounts other than"):
        load_roles()
    (site / "roles.toml").chmod(0o644)
    site.chmod(0o777)
    with pytest.raises(RolesError, match="chmod go-w"):
        load_roles()
    site.chmod(0o755)
    load_roles()


# ---------------------------------------------------------------------- who acts
def test_the_actor_is_the_operating_system_account_by_default(site: Path) -> None:
    roles = load_roles()
    assert os_account() == Account(ME, f"operating-system account {ME}")
    assert actor_from(None, roles) == Actor(ME, f"operating-system account {ME}")
    assert actor_from("  ", roles) == Actor(ME, f"operating-system account {ME}")
    assert actor_from(ME, roles) == Actor(ME, f"operating-system account {ME}")


def test_sudo_names_the_account_that_ran_it_only_as_the_installations_owner(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = next(p for p in pwd.getpwall() if p.pw_uid != os.geteuid())
    monkeypatch.setenv("SUDO_USER", other.pw_name)
    monkeypatch.setenv("SUDO_UID", str(other.pw_uid))
    # this process owns the installation: it is the service account sudo switched to
    assert os_account() == Account(
        other.pw_name, f"operating-system account {other.pw_name} via sudo as {ME}"
    )
    # a SUDO_UID that does not match SUDO_USER: sudo did not set them
    monkeypatch.setenv("SUDO_UID", str(other.pw_uid + 1000))
    assert os_account().name == ME
    monkeypatch.setenv("SUDO_UID", str(other.pw_uid))
    # an account that is not the installation's owner set them itself: ignored
    if os.geteuid() == 0:
        os.chown(site, other.pw_uid, -1)
        assert os_account() == Account(ME, f"operating-system account {ME}")


def test_an_account_acts_as_another_name_only_where_accounts_allows_it(site: Path) -> None:
    roles = load_roles()
    pit3 = Account("pit3", "operating-system account pit3")
    assert actor_from("analyst-7", roles, pit3) == Actor(
        "analyst-7",
        f"--actor on operating-system account pit3, allowed by [accounts] of {roles.path}",
    )
    with pytest.raises(NotAuthorizedError) as raised:
        actor_from("alice", roles, pit3)
    message = str(raised.value)
    assert message.startswith(
        "operating-system account pit3 may not act as alice (from --actor): the account may "
        "act only as analyst-7, analyst-9 in the installation's roles file"
    )
    alice = Account("alice", "operating-system account alice")
    with pytest.raises(NotAuthorizedError, match="the account has no \\[accounts\\] entry"):
        actor_from("nightly-controller", roles, alice)


def test_the_environment_names_a_user_under_the_same_rule(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roles = load_roles()
    pit3 = Account("pit3", "operating-system account pit3")
    monkeypatch.setenv(ACTOR_ENV, "analyst-9")
    assert actor_from(None, roles, pit3).source.startswith(
        "environment BACCARAT_ACTOR on operating-system account pit3, allowed by [accounts]"
    )
    monkeypatch.setenv(ACTOR_ENV, "mallory")
    with pytest.raises(NotAuthorizedError, match="may not act as mallory"):
        actor_from(None, roles, pit3)


def test_a_demo_installation_lets_its_maker_act_as_the_demo_users(tmp_path: Path) -> None:
    path = tmp_path / "roles.toml"
    path.write_bytes(DEFAULT_ROLES.read_bytes())
    add_account(path, "pit 3", ["demo-analyst", "demo-admin"])
    roles = read_roles(path)
    assert roles.accounts == {"pit 3": {"demo-analyst", "demo-admin"}}
    with pytest.raises(RolesError, match="has an \\[accounts\\] table already"):
        add_account(path, "other", ["demo-analyst"])
