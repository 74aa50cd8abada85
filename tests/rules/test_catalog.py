"""The filed rule catalog (pipeline/config/rules_catalog.toml): every choice N.J.A.C. 19:47
leaves to the casino is stated, never defaulted, including those another choice opens: tie odds
where a tie bet is offered (3.3(b), 7.3(b)), dragon 7 odds with the dragon 7 variation (3.3(i))
and the base-wager requirement with the bonus wager (3.2(b))."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config.catalog import (
    CHOICE_SECTIONS,
    CHOICES_OPENED_BY,
    CHOICES_TO_STATE,
    CatalogError,
    choices_to_state,
    load_catalog,
)
from pipeline.rules.config import Odds, rules_to_mapping

STATED = {
    "decks": 8,
    "shuffle_method": "MANUAL_LACE",
    "vig_percent": 5,
    "vig_rounding": False,
    "vig_deferral": True,
    "disclosed_card_procedure": "DISCARD_BY_VALUE",
    "disclosed_ten_value_discards": 10,
    "settlement_procedure": "PAY_ALL_THEN_VIG",
    "min_wager_cents": 2_500,
    "max_wager_cents": 500_000,
}
GAMING_DAY = '[gaming_day]\nstarts = "06:00"\ntime_zone = "America/New_York"\n'


def write(tmp_path: Path, **entry: object) -> Path:
    lines = [GAMING_DAY, "[t]"]
    for name, value in {**STATED, **entry}.items():
        if value is None:
            continue  # left unstated
        rendered = str(value).lower() if isinstance(value, bool) else repr(value)
        lines.append(f"{name} = {rendered}".replace("'", '"'))
    path = tmp_path / "catalog.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3i-DRAGON-7", "PB-3.3g-BONUS")
@pytest.mark.parametrize(
    ("entry", "missing", "section"),
    [
        ({"game": "PUNTO_BANCO"}, ["tie_odds"], "tie_odds (N.J.A.C. 19:47-3.3(b))"),
        (
            {"game": "MINIBACCARAT", "shuffle_method": "FEATHERED"},
            ["tie_odds"],
            "tie_odds (N.J.A.C. 19:47-7.3(b))",
        ),
        (
            {"game": "PUNTO_BANCO", "tie_odds": "8 to 1", "dragon_7": True},
            ["dragon_7_odds"],
            "dragon_7_odds (N.J.A.C. 19:47-3.3(i))",
        ),
        (
            {"game": "PUNTO_BANCO", "tie_odds": "8 to 1", "bonus_paytable": "C"},
            ["bonus_requires_base_wager"],
            "bonus_requires_base_wager (N.J.A.C. 19:47-3.2(b))",
        ),
        (
            {"game": "PUNTO_BANCO", "tie_odds": "8 to 1", "settlement_procedure": None},
            ["settlement_procedure"],
            "settlement_procedure (N.J.A.C. 19:47-3.10(b))",
        ),
        (
            {"game": "CHEMIN_DE_FER", "decks": None, "shuffle_method": None, "vig_deferral": False},
            ["decks", "shuffle_method"],
            "decks (N.J.A.C. 19:47-4.1(a)); shuffle_method (N.J.A.C. 19:47-4.4(a))",
        ),
        (
            {"tie_odds": "8 to 1"},
            ["game"],
            "game (N.J.A.C. 19:47-3, 4, 7)",
        ),
    ],
)
def test_a_choice_left_unstated_is_refused(
    tmp_path: Path, entry: dict[str, object], missing: list[str], section: str
) -> None:
    """PB-3.3b-TIE, PB-3.3i-DRAGON-7, PB-3.3g-BONUS: N.J.A.C. 19:47-3.3(b), 7.3(b) (tie odds
    "at least" 8 to 1), 3.3(i) (dragon 7 "at least" 40 to 1) and 3.2(b) (whether a bonus wager
    needs a regular wager is "within the discretion of the casino licensee") are choices, as
    are the settlement procedure (3.10(b)), the decks and the shuffle; a configuration that
    leaves one out is refused, naming the configuration, the choice and the section of its
    game that leaves it to the casino."""
    with pytest.raises(CatalogError) as err:
        load_catalog(write(tmp_path, **entry))
    assert (
        f"[t] must state {missing!r}; these are the casino's choice: {section}\n"
        in f"{err.value}\n"
    )


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3i-DRAGON-7", "PB-3.10b-SETTLEMENT")
def test_every_choice_to_state_has_its_sections() -> None:
    """PB-3.3b-TIE, PB-3.3i-DRAGON-7, PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.3(b), (i),
    3.10(b): every choice a configuration may have to state names where each game leaves it to
    the casino, so no refusal lacks its section."""
    assert set(CHOICE_SECTIONS) == set(CHOICES_TO_STATE) | set(CHOICES_OPENED_BY)


@pytest.mark.rule("CF-4.7g-PLAYER")
def test_chemin_de_fer_needs_no_tie_odds(tmp_path: Path) -> None:
    """CF-4.7g-PLAYER, N.J.A.C. 19:47-4.7(g): Chemin de Fer has no tie bet, so it states no tie
    odds; its choices are only those its subchapter opens."""
    entry = {
        "game": "CHEMIN_DE_FER",
        "decks": 6,
        "shuffle_method": "MANUAL_WASH",
        "vig_deferral": False,
    }
    assert "tie_odds" not in choices_to_state(entry)
    (rules,) = load_catalog(write(tmp_path, **entry)).values()
    assert rules.tie_odds == Odds(8, 1)  # unused: no tie bet is offered


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3i-DRAGON-7")
def test_the_packaged_catalog_states_every_choice_it_opens() -> None:
    """PB-3.3b-TIE, PB-3.3i-DRAGON-7: N.J.A.C. 19:47-3.3(b), (i), 3.2(b): every filed
    configuration states every choice it opens."""
    catalog = load_catalog()
    assert catalog
    for rules_id, rules in catalog.items():
        stated = rules_to_mapping(rules)
        assert choices_to_state(stated) <= set(stated), rules_id
    assert {r.rules_id for r in catalog.values() if r.bonus_requires_base_wager} == {"pb-4-banker6"}


@pytest.mark.rule("PB-3.7b-NO-MORE-BETS-CALLED")
@pytest.mark.parametrize(("stated", "expected"), [(None, False), (False, False), (True, True)])
def test_records_no_more_bets_is_false_unless_stated(
    tmp_path: Path, stated: bool | None, expected: bool
) -> None:
    """PB-3.7b-NO-MORE-BETS-CALLED, N.J.A.C. 19:47-3.7(b): whether a table's pit terminal
    records "No More Bets" in every round is the catalog's ``records_no_more_bets``; left out,
    it is false, so catalogs written before it keep every table as they were."""
    entry = {"game": "PUNTO_BANCO", "tie_odds": "8 to 1", "records_no_more_bets": stated}
    (rules,) = load_catalog(write(tmp_path, **entry)).values()
    assert rules.records_no_more_bets is expected
    assert not any(r.records_no_more_bets for r in load_catalog().values())


@pytest.mark.rule("PB-3.7b-NO-MORE-BETS-CALLED")
def test_records_no_more_bets_must_be_true_or_false(tmp_path: Path) -> None:
    """PB-3.7b-NO-MORE-BETS-CALLED, N.J.A.C. 19:47-3.7(b): ``records_no_more_bets = "yes"`` is
    refused, naming the entry, the value and what to write."""
    entry = {"game": "PUNTO_BANCO", "tie_odds": "8 to 1", "records_no_more_bets": "yes"}
    path = write(tmp_path, **entry)
    with pytest.raises(CatalogError) as refused:
        load_catalog(path)
    assert str(refused.value) == (
        f"{path}:\n[t] records_no_more_bets = 'yes': write true when the pit terminal records "
        '"No More Bets" (BettingClosed) in every round it deals, false (the default) when it '
        "may not"
    )
