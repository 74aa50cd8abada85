"""The exact odds report: published values, partitions, house edges against closed forms,
and the vigorish rounding note (N.J.A.C. 19:47-3.2, 3.3, 7.3(d), 4.10(c))."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import pytest

from pipeline.oracle import odds
from pipeline.oracle.report import (
    COVERED_BANKER,
    PARTITIONS,
    OddsReport,
    edge_at_stake,
    exact_edge,
    variant_rules,
)
from pipeline.rules.config import Odds, Paytable, TableRules
from pipeline.rules.deal import Options
from pipeline.rules.games import Game
from pipeline.rules.settlement import PAYTABLES, Wager
from pipeline.rules.vigorish import vigorish_on_win

DEFAULT = TableRules("default", Game.PUNTO_BANCO)
EIGHT_DECK_TOTAL = 416 * 415 * 414 * 413 * 412 * 411
SIX_DECK_TOTAL = 312 * 311 * 310 * 309 * 308 * 307


@pytest.fixture(scope="module")
def eight() -> OddsReport:
    return odds(8, DEFAULT)


@pytest.fixture(scope="module")
def six() -> OddsReport:
    return odds(6, DEFAULT)


def _p(report: OddsReport, name: str) -> float:
    return float(report.probability(name))


def test_published_eight_deck_probabilities(eight: OddsReport) -> None:
    """Published 8-deck values (standard Tables 1 and 2 of 3.9): Banker 0.458597, Player
    0.446247, tie 0.095156, to six decimals."""
    assert eight.total == EIGHT_DECK_TOTAL
    assert abs(_p(eight, "banker_win") - 0.458597) < 1e-6
    assert abs(_p(eight, "player_win") - 0.446247) < 1e-6
    assert abs(_p(eight, "tie") - 0.095156) < 1e-6


def test_published_eight_deck_house_edges(eight: OddsReport) -> None:
    """Banker with 5 % vigorish (3.3(c)) 1.0579 %, Player (3.3(a)) 1.2351 %, tie at 8 to 1
    (3.3(b)) 14.3596 %."""
    edge = {w: float(e) * 100 for w, e in eight.house_edge.items()}
    assert set(edge) == {"BANKER", "PLAYER", "TIE"}  # 3.2(b): only what the rules offer
    assert round(edge["BANKER"], 4) == 1.0579
    assert round(edge["PLAYER"], 4) == 1.2351
    assert round(edge["TIE"], 4) == 14.3596


@pytest.mark.parametrize("fixture", ["eight", "six"])
def test_counts_partition_the_total(fixture: str, request: pytest.FixtureRequest) -> None:
    report: OddsReport = request.getfixturevalue(fixture)
    assert report.total == {"eight": EIGHT_DECK_TOTAL, "six": SIX_DECK_TOTAL}[fixture]
    assert sum(report.outcomes.values()) == report.total
    for name, members in PARTITIONS:
        assert sum(report.counts[m] for m in members) == report.total, name
    assert all(isinstance(n, int) and n >= 0 for n in report.counts.values())


def test_named_counts_are_consistent(eight: OddsReport) -> None:
    c = eight.counts
    # The first four cards are exchangeable, so both hands are naturals equally often (3.9(a)).
    assert c["player_natural_8"] == c["banker_natural_8"]
    assert c["player_natural_9"] == c["banker_natural_9"]
    assert c["player_win_natural"] == c["banker_win_natural"]
    # A natural ties only a natural of the same count: the bonus void line (3.2(a)5iii).
    assert c["natural_tie"] == c["player_bonus_natural_tie"] == c["banker_bonus_natural_tie"]
    assert c["banker_win_6"] == c["banker_win_6_two_cards"] + c["banker_win_6_three_cards"]
    for w in ("banker_win", "player_win", "tie"):
        assert sum(c[f"{w}_cards_{k}"] for k in (4, 5, 6)) == c[w]
    # Naturals end the deal after four cards (3.9(a)).
    assert c["natural"] <= c["cards_4"]


def test_edges_match_closed_forms_from_counts(eight: OddsReport) -> None:
    """The settle()-based exact edges equal the textbook formulas on the named counts."""
    c, t = eight.counts, eight.total
    bw, pw, tie = c["banker_win"], c["player_win"], c["tie"]
    assert eight.house_edge["BANKER"] == Fraction(pw, t) - Fraction(95, 100) * Fraction(bw, t)
    assert eight.house_edge["PLAYER"] == Fraction(bw - pw, t)
    assert eight.house_edge["TIE"] == Fraction(bw + pw - 8 * tie, t)


def _edges(rules: TableRules, decks: int = 8) -> dict[str, Fraction]:
    return odds(decks, rules).house_edge


def test_banker_six_pays_one_to_two_without_vigorish() -> None:
    """3.3(e)1: no vigorish, a winning Banker 6 pays 1 to 2."""
    report = odds(8, replace(DEFAULT, no_vig_banker_six=True))
    c, t = report.counts, report.total
    expected = Fraction(c["player_win"] - c["banker_win_not_6"], t) - Fraction(
        c["banker_win_6"], 2 * t
    )
    assert report.house_edge["BANKER"] == expected
    assert round(float(expected) * 100, 2) == 1.46


def test_dragon_7_variation_matches_published_ez_baccarat() -> None:
    """3.3(h): no vigorish, a winning three-card 7 pushes; 3.3(i): the dragon 7 wager at 40 to
    1. Published 8-deck values: Banker 1.0183 %, dragon 7 7.6113 %."""
    report = odds(8, replace(DEFAULT, dragon_7=True))
    c, t = report.counts, report.total
    assert report.house_edge["BANKER"] == Fraction(
        c["player_win"] - c["banker_win_not_dragon_7"], t
    )
    assert report.house_edge["DRAGON_7"] == Fraction(t - c["dragon_7"] - 40 * c["dragon_7"], t)
    assert round(float(report.house_edge["BANKER"]) * 100, 4) == 1.0183
    assert round(float(report.house_edge["DRAGON_7"]) * 100, 4) == 7.6113


def test_dragon_7_odds_above_minimum() -> None:
    """3.3(i) allows better than 40 to 1; 45 to 1 lowers the edge by 5 * P(dragon 7)."""
    base = odds(8, replace(DEFAULT, dragon_7=True))
    better = _edges(replace(DEFAULT, dragon_7=True, dragon_7_odds=Odds(45, 1)))
    assert better["DRAGON_7"] == base.house_edge["DRAGON_7"] - 5 * base.probability("dragon_7")


def test_minibaccarat_quarter_tie_vigorish() -> None:
    """7.3(d): no vigorish on a win, 25 % of the Banker wager on a tie."""
    rules = TableRules("mini", Game.MINIBACCARAT, tie_vig_quarter=True, vig_deferral=False)
    report = odds(8, rules)
    c, t = report.counts, report.total
    assert report.house_edge["BANKER"] == Fraction(c["player_win"] - c["banker_win"], t) + Fraction(
        c["tie"], 4 * t
    )


def test_total_card_wagers() -> None:
    """3.3(f): four cards pay 3 to 2, five and six cards 2 to 1."""
    report = odds(8, replace(DEFAULT, total_card_wagers=True))
    c, t = report.counts, report.total
    assert report.house_edge["CARDS_4"] == Fraction(t - c["cards_4"], t) - Fraction(
        3 * c["cards_4"], 2 * t
    )
    for k in (5, 6):
        assert report.house_edge[f"CARDS_{k}"] == Fraction(t - 3 * c[f"cards_{k}"], t)


@pytest.mark.parametrize("table", list(Paytable), ids=lambda p: p.value)
def test_bonus_edges_from_line_counts(table: Paytable) -> None:
    """3.2(a)5 and 3.3(g): natural winner 1 to 1, equal naturals void, non-natural wins by 4-9
    by the paytable, everything else loses."""
    report = odds(8, replace(DEFAULT, bonus_paytable=table))
    c, t = report.counts, report.total
    pay = PAYTABLES[table]
    for side in ("player", "banker"):
        net = Fraction(c[f"{side}_bonus_natural_win"])
        for m in range(4, 10):
            net += Fraction(pay[m].to_win, pay[m].stake) * c[f"{side}_bonus_win_{m}"]
        net -= c[f"{side}_bonus_natural_lose"] + c[f"{side}_bonus_lose"]
        assert report.house_edge[f"{side.upper()}_BONUS"] == -net / t


def test_paytable_a_matches_published_dragon_bonus() -> None:
    """Paytable A is the widely published "Dragon Bonus": about 2.65 % on the Player side and
    9.37 % on the Banker side with eight decks."""
    edges = _edges(replace(DEFAULT, bonus_paytable=Paytable.A))
    assert round(float(edges["PLAYER_BONUS"]) * 100, 2) == 2.65
    assert round(float(edges["BANKER_BONUS"]) * 100, 2) == 9.37


def test_total_card_cover_is_not_a_single_number_edge() -> None:
    """3.3(e)2: no vigorish when the seat's total-card wagers cover the Banker wager."""
    rules = replace(DEFAULT, total_card_wagers=True, no_vig_total_card_cover=True)
    report = odds(8, rules)
    c, t = report.counts, report.total
    standard = odds(8, DEFAULT).house_edge["BANKER"]
    assert report.house_edge["BANKER"] == standard
    assert report.house_edge[COVERED_BANKER] == Fraction(c["player_win"] - c["banker_win"], t)
    assert any("not a single-number edge" in n for n in report.notes)


def test_chemin_de_fer_offers_banker_and_player_only() -> None:
    """4.6-4.7: wagers for and against the Banker; 4.10(c) vigorish on Banker winnings."""
    rules = TableRules("cf", Game.CHEMIN_DE_FER, vig_deferral=False)
    report = odds(8, rules, options=Options(player_draws_on_5=False))
    assert set(report.house_edge) == {"BANKER", "PLAYER"}
    assert report.to_json()["options"] == {
        "player_draws_on_5": False,
        "banker_draws_on_option": True,
    }
    c, t = report.counts, report.total
    assert report.house_edge["PLAYER"] == Fraction(c["banker_win"] - c["player_win"], t)


@pytest.mark.parametrize("rules", list(variant_rules().values()), ids=lambda r: r.rules_id)
def test_exact_edges_equal_settlement_at_an_exact_stake(rules: TableRules) -> None:
    """At $20.00 every payout and 4 or 5 % vigorish is a whole number of cents, so settling
    with the real settle() at that stake gives exactly the exact-percentage edge."""
    report = odds(8, rules)
    for wager in report.house_edge:
        if wager == COVERED_BANKER:
            continue
        assert (
            edge_at_stake(report.outcomes, rules, Wager(wager), 2_000) == report.house_edge[wager]
        )


@pytest.mark.parametrize(
    ("stake", "vig_percent", "vig"),
    [(2_500, 5, 125), (1_000, 5, 50), (3_000, 5, 150), (1_500, 5, 75), (1_500, 4, 60)],
)
def test_rounding_keeps_whole_multiples(
    eight: OddsReport, stake: int, vig_percent: int, vig: int
) -> None:
    """3.3(c)1: 5 % of $25 = $1.25, of $10 = 50c, of $30 = $1.50, of $15 = 75c, and 4 % of $15
    = 60c are already multiples of 25c/20c, so rounding changes nothing."""
    rules = replace(DEFAULT, vig_percent=vig_percent)
    note = odds(8, rules, bet_cents=stake).bet
    assert note.vig_cents_rounded == note.vig_cents_unrounded == vig == note.exact_vig_cents
    assert vigorish_on_win(replace(rules, vig_rounding=True), stake) == vig
    assert note.banker_edge_rounded == note.banker_edge_unrounded == note.banker_edge_exact
    assert "with or without the rounding option" in note.note


def test_rounding_raises_the_edge_on_an_odd_bet(eight: OddsReport) -> None:
    """5 % of $11.00 is 55c; rounded up to a 25c multiple (3.3(c)1) it is 75c."""
    note = odds(8, DEFAULT, bet_cents=1_100).bet
    assert note.exact_vig_cents == 55
    assert note.vig_cents_unrounded == 55
    assert note.vig_cents_rounded == 75
    c, t = eight.counts, eight.total
    assert note.banker_edge_rounded == Fraction(c["player_win"] - c["banker_win"], t) + Fraction(
        75 * c["banker_win"], 1_100 * t
    )
    assert note.banker_edge_rounded > note.banker_edge_exact
    assert "$0.75" in note.note and "1.0579%" in note.note


def test_unrounded_vigorish_drops_a_fraction_of_a_cent() -> None:
    """Without rounding, 5 % of $25.10 = $1.255 is collected as $1.25 (pipeline.rules.vigorish)."""
    note = odds(8, DEFAULT, bet_cents=2_510).bet
    assert note.exact_vig_cents == Fraction(2_510 * 5, 100)
    assert (note.vig_cents_unrounded, note.vig_cents_rounded) == (125, 150)
    assert note.banker_edge_unrounded < note.banker_edge_exact < note.banker_edge_rounded


def test_minibaccarat_rounds_to_five_cents() -> None:
    """7.3(c)1: Minibaccarat rounds vigorish to 5c multiples."""
    rules = TableRules("mini", Game.MINIBACCARAT, vig_rounding=True)
    note = odds(8, rules, bet_cents=2_510).bet
    assert (note.increment_cents, note.vig_cents_rounded) == (5, 130)
    assert note.house_edge_at_bet["BANKER"] == note.banker_edge_rounded  # as configured


def test_no_vigorish_variations_say_rounding_does_not_apply() -> None:
    for rules in (replace(DEFAULT, dragon_7=True), replace(DEFAULT, no_vig_banker_six=True)):
        note = odds(8, rules, bet_cents=1_100).bet
        assert not note.charges_vig
        assert "does not apply" in note.note


def test_json_shape(eight: OddsReport) -> None:
    doc = json.loads(json.dumps(eight.to_json()))
    assert doc["decks"] == 8
    assert doc["total"] == EIGHT_DECK_TOTAL
    for key in ("banker_win", "player_win", "tie", "cards_4", "cards_5", "cards_6", "dragon_7",
                "banker_win_6", "player_natural_8", "player_natural_9", "banker_natural_8",
                "banker_natural_9", "natural_tie"):  # fmt: skip
        assert isinstance(doc["counts"][key], int), key
    assert set(doc["house_edge"]) == {"BANKER", "PLAYER", "TIE"}
    assert all(isinstance(v, float) for v in doc["house_edge"].values())
    assert Fraction(doc["house_edge_exact"]["BANKER"]) == eight.house_edge["BANKER"]
    assert doc["bet_size"]["stake_cents"] == 2_500
    assert sum(o["count"] for o in doc["outcomes"]) == EIGHT_DECK_TOTAL
    assert doc["total_formula"] == "416·415·414·413·412·411"


def test_text_rendering(eight: OddsReport) -> None:
    text = eight.render_text()
    assert "416·415·414·413·412·411 = 4,998,398,275,503,360" in text
    assert "1.0579%" in text and "14.3596%" in text
    assert "N.J.A.C. 19:47-3.9" in text
    assert "(N-k)!/(N-6)!" in text


def test_variants_are_legal_and_reported() -> None:
    report = odds(8, DEFAULT, variants=True)
    names = list(report.variants)
    assert any("dragon 7" in n for n in names)
    assert any("Paytable C" in n for n in names)
    assert "variants" in report.to_json()
    assert "Other rule configurations" in report.render_text()


def test_small_shoes_are_flagged_off_regulation() -> None:
    """3.1(a) requires six decks; smaller shoes are allowed for cross-checking only."""
    assert "for cross-checking only" in odds(1, DEFAULT).render_text()


def test_exact_edge_detects_non_proportional_settlement(eight: OddsReport) -> None:
    """The exactness check is real: every offered wager settles proportionally at the unit."""
    for wager in (Wager.BANKER, Wager.PLAYER, Wager.TIE):
        assert exact_edge(eight.outcomes, DEFAULT, wager) == eight.house_edge[wager.value]
