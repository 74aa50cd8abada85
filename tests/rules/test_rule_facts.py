"""Rule facts the emulator, the test builder, the replay and the dashboards read from one place:
the deal order (N.J.A.C. 19:47-3.7(c), 3.8(c)), the settlement order (3.10(b)), the
vigorish-rounding classification (3.3(c)1, 7.3(c)1), the explanation of each draw (3.9, 4.9)
and the per-game variants."""

from __future__ import annotations

import itertools
import random

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.rules.cards import RANKS, SUITS, Card, card_value
from pipeline.rules.codes import _BY_GAME, code_for, regulates, rule
from pipeline.rules.deal import FIRST_FOUR, deal_order, deal_order_problem, deal_round
from pipeline.rules.draw import Draw, draw_rulings
from pipeline.rules.games import Game
from pipeline.rules.settlement_order import settlement_order_problem, settlement_sequence
from pipeline.rules.variants import VARIANTS, games_where, variant
from pipeline.rules.vigorish import rounding_error

CATALOG = load_catalog()
BY_VALUE = {card_value(rank): Card(rank, SUITS[0]) for rank in RANKS}
"""A card of each value 0-9."""


@pytest.mark.rule("PB-3.7c-DEAL-ORDER", "PB-3.8c-THIRD-ORDER")
# ---------------------------------------------------------------------- deal order
@pytest.mark.parametrize(("player", "banker"), list(itertools.product((2, 3), repeat=2)))
def test_the_deal_order_is_legal(player: int, banker: int) -> None:
    """PB-3.7c-DEAL-ORDER, PB-3.8c-THIRD-ORDER: the order every dealer of the product uses is
    the one the replay accepts, and holds each hand's cards (N.J.A.C. 19:47-3.7(c), 3.8(c))."""
    order = deal_order(player, banker)
    assert order[:4] == FIRST_FOUR == ("PLAYER", "BANKER", "PLAYER", "BANKER")
    assert (order.count("PLAYER"), order.count("BANKER")) == (player, banker)
    assert deal_order_problem(order) is None


@pytest.mark.rule("PB-3.7c-DEAL-ORDER", "PB-3.8c-THIRD-ORDER")
@pytest.mark.parametrize(
    ("hands", "subject"),
    [
        ("PPBB", "deal_order"),
        ("BPBP", "deal_order"),
        ("PBP", "deal_order"),  # a Banker's Hand of one card
        ("PBPBBP", "third_order"),  # the Banker's third card before the Player's
        ("PBPBB", None),
        ("PBPBP", None),
    ],
)
def test_a_wrong_deal_order_names_the_rule(hands: str, subject: str | None) -> None:
    """PB-3.7c-DEAL-ORDER (the first four cards, N.J.A.C. 19:47-3.7(c)), PB-3.8c-THIRD-ORDER
    (third cards, 3.8(c))."""
    named = ["PLAYER" if h == "P" else "BANKER" for h in hands]
    assert deal_order_problem(named) == subject


@pytest.mark.rule("PB-3.10b-SETTLEMENT")
# ---------------------------------------------------------------------- settlement order
@pytest.mark.parametrize("procedure", [1, 2, 3, 4])
def test_the_settlement_sequence_is_the_order_the_replay_accepts(procedure: int) -> None:
    """PB-3.10b-SETTLEMENT: whatever seats are at the table, the order the emulator and the
    builder settle in is never a finding of the replay's judge (N.J.A.C. 19:47-3.10(b))."""
    rng = random.Random(procedure)
    for _ in range(200):
        seats = rng.sample(range(1, 13), rng.randint(0, 7))
        steps = [(k, s, "e") for k, s in settlement_sequence(procedure, seats) if k != "VOID"]
        assert settlement_order_problem(procedure, steps) is None


@pytest.mark.rule("PB-3.10b-SETTLEMENT")
@pytest.mark.parametrize(
    ("procedure", "expected"),
    [
        (1, "LOSE 7, LOSE 3, VOID 7, VOID 3, PAY 7, PAY 3, VIG 7, VIG 3"),
        (2, "LOSE 7, LOSE 3, VOID 7, VOID 3, VIG 7, VIG 3, PAY 7, PAY 3"),
        (3, "LOSE 7, LOSE 3, VOID 7, VOID 3, PAY 7, VIG 7, PAY 3, VIG 3"),
        (4, "LOSE 7, LOSE 3, VOID 7, VOID 3, VIG 7, PAY 7, VIG 3, PAY 3"),
    ],
)
def test_settlement_sequence_by_procedure(procedure: int, expected: str) -> None:
    """PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.10(b)1-4: losing wagers first, then payments and
    vigorish as the pit's procedure says, seats from the highest down (given in any order,
    each once)."""
    steps = settlement_sequence(procedure, [3, 7, 3])
    assert ", ".join(f"{k} {s}" for k, s in steps) == expected


@pytest.mark.rule("PB-3.10b-SETTLEMENT")
@pytest.mark.parametrize(
    ("procedure", "recorded", "problem"),
    [
        (1, "LOSE 7, LOSE 3, PAY 7, PAY 3", None),
        (
            1,
            "LOSE 7, PAY 7, LOSE 3, PAY 3",
            "A losing wager was collected after winners were paid or vigorish taken",
        ),
        (
            4,
            "VIG 7, LOSE 3",
            "A losing wager was collected after winners were paid or vigorish taken",
        ),
        (1, "LOSE 9, VIG 7, PAY 3", "Every pay step comes before any vig step"),
        (2, "PAY 7, VIG 3", "Every vig step comes before any pay step"),
        (
            1,
            "PAY 3, PAY 7, VIG 7, VIG 3",
            "Seats are settled from the highest numbered position down",
        ),
        (
            2,
            "VIG 7, VIG 3, PAY 3, PAY 7",
            "Seats are settled from the highest numbered position down",
        ),
        (
            3,
            "PAY 3, VIG 3, PAY 7, VIG 7",
            "Seats are settled one by one from the highest numbered position down",
        ),
        (3, "PAY 7, VIG 7, VIG 3, PAY 3", "Seat 3: pay comes first at each position"),
        (4, "PAY 7, VIG 7, VIG 3, PAY 3", "Seat 7: vig comes first at each position"),
        (3, "PAY 7, PAY 3, VIG 3", None),
    ],
)
def test_a_settlement_out_of_order_is_named(
    procedure: int, recorded: str, problem: str | None
) -> None:
    """PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.10(b): every losing wager is collected before any
    winner is paid or vigorish taken; under (b)1 every payment then every vigorish, under (b)2
    the reverse, each from the highest numbered seat down; under (b)3 payment then vigorish
    seat by seat, (b)4 the reverse, the seats from the highest down. Each slip is named."""
    steps = [(kind, int(seat), "e") for kind, seat in (s.split() for s in recorded.split(", "))]
    assert settlement_order_problem(procedure, steps) == problem


@pytest.mark.rule("PB-3.3c1-VIG-ROUNDING", "MB-7.3c1-VIG-ROUNDING")
# ---------------------------------------------------------------------- vigorish rounding
@pytest.mark.parametrize(
    ("rules_id", "stake", "charged", "rounding"),
    [
        ("pb-5-classic", 10_000, 476, True),  # 5 % of $100 is 500c: 24c off is rounding
        ("pb-5-classic", 10_000, 475, False),  # a whole 25c step off is not
        ("pb-5-classic", 10_000, 490, True),
        ("pb-5-classic", 10_000, 400, False),  # 4 %: the wrong percentage
        ("pb-5-classic", 10_000, 0, False),  # nothing collected
        ("pb-5-classic", 1_010, 75, True),  # 50.5c exact, 75c is within one 25c step
        ("mb-5-rounded", 1_010, 55, True),  # 7.3(c)1: 5c steps
        ("mb-5-rounded", 1_010, 60, False),
    ],
)
def test_rounding_error_is_within_one_increment(
    rules_id: str, stake: int, charged: int, rounding: bool
) -> None:
    """PB-3.3c1-VIG-ROUNDING, MB-7.3c1-VIG-ROUNDING (N.J.A.C. 19:47-3.3(c)1, 7.3(c)1): a wrong
    vigorish within one rounding increment of the exact percentage got the rounding wrong,
    not the percentage."""
    assert rounding_error(CATALOG[rules_id], stake, charged) is rounding


@pytest.mark.rule("PB-3.9b-TABLE1", "PB-3.9c-TABLE2", "CF-4.9c-TABLE3")
# ---------------------------------------------------------------------- draw explanations
@pytest.mark.parametrize("game", list(Game))
def test_every_honest_deal_follows_its_rulings(game: Game) -> None:
    """PB-3.9b-TABLE1, PB-3.9c-TABLE2, CF-4.9c-TABLE3: for every start of four card values
    and every fifth and sixth card, the hands the honest dealer deals agree with the rulings
    the replay and the round reconstruction explain them by (N.J.A.C. 19:47-3.9, 4.9)."""
    for start in itertools.product(range(10), repeat=4):
        for fifth, sixth in ((0, 9), (5, 3), (9, 6)):
            shoe = [BY_VALUE[v] for v in (*start, fifth, sixth)]
            deal = deal_round(game, shoe)
            player = [card_value(c.rank) for c in deal.player]
            banker = [card_value(c.rank) for c in deal.banker]
            rulings = draw_rulings(game, player, banker)
            assert all(r.agrees for r in rulings), (start, fifth, sixth, rulings)


@pytest.mark.rule("PB-3.9c-TABLE2", "PB-3.9a-NATURAL")
def test_a_ruling_explains_the_cell_and_the_slip() -> None:
    """PB-3.9c-TABLE2, N.J.A.C. 19:47-3.9(c): Banker 5 against a Player's third card of 4
    draws; a Banker who stood broke Table 2; a natural decides both hands (PB-3.9a-NATURAL)."""
    player, banker = draw_rulings(Game.PUNTO_BANCO, [2, 3, 4], [5, 0])
    assert (player.subject, player.cell, player.agrees) == ("player_draw", Draw.DRAW, True)
    assert (banker.subject, banker.cell, banker.player_third) == ("banker_draw", Draw.DRAW, 4)
    assert not banker.agrees
    assert not (player.natural or banker.natural)
    natural = draw_rulings(Game.PUNTO_BANCO, [9, 0], [3, 3, 1])
    assert [(r.subject, r.cell, r.agrees, r.natural) for r in natural] == [
        ("natural", Draw.STAY, True, True),
        ("natural", Draw.STAY, False, True),
    ]


@pytest.mark.rule("PB-3.9b-TABLE1", "PB-3.9c-TABLE2")
def test_a_ruling_names_its_hand_and_the_counts_its_table_is_read_by() -> None:
    """PB-3.9b-TABLE1, PB-3.9c-TABLE2: Table 1 is read by the Player's two-card count and
    Table 2 by the Banker's two-card count and the value of the Player's third card
    (N.J.A.C. 19:47-3.9(b), (c), (e)); a count is the right digit of the total (3.1(c)). Player
    7+8 counts 5 and draws a 6; Banker 9+7 counts 6 and must draw against a 6."""
    player, banker = draw_rulings(Game.PUNTO_BANCO, [7, 8, 6], [9, 7, 3])
    assert (player.hand, player.player_points, player.banker_points) == ("PLAYER", 5, 6)
    assert (player.cell, player.player_third, player.agrees) == (Draw.DRAW, None, True)
    assert (banker.hand, banker.player_points, banker.banker_points) == ("BANKER", 5, 6)
    assert (banker.cell, banker.player_third, banker.agrees) == (Draw.DRAW, 6, True)


@pytest.mark.rule("PB-3.8e-LAST-HAND", "CF-4.9c-TABLE3", "MB-7.3c-VIG")
# ---------------------------------------------------------------------- variants
@pytest.mark.parametrize("game", list(Game))
def test_a_variant_agrees_with_the_rule_code_table(game: Game) -> None:
    """PB-3.8e-LAST-HAND, CF-4.9c-TABLE3, MB-7.3c-VIG: a game's variant names its subchapter
    and code prefix as its own codes do, and "last hand" exactly where the code table has
    a rule for it (N.J.A.C. 19:47-3.8(e), 4.9(c), 7.3(c))."""
    v = variant(game)
    assert v.game is game and VARIANTS[game] is v
    own = [code_for(game, subject) for subject in _BY_GAME if regulates(game, subject)]
    assert {c.split("-")[0] for c in own} <= {v.code_prefix, "PB"}
    assert rule(code_for(game, "vig")).section.startswith(f"{v.subchapter}.")
    assert v.last_hand is (game is not Game.CHEMIN_DE_FER)
    # Only Chemin de Fer's hands may choose: the Dominant Player on 5 (4.9(a)) and the Banker
    # on the two "Op." cells of Table 3 (4.9(f)); Tables 1 and 2 have none.
    assert v.hand_options is (game is Game.CHEMIN_DE_FER)


@pytest.mark.rule("PB-3.9c-TABLE2", "CF-4.9c-TABLE3")
@pytest.mark.parametrize(
    ("game", "subject", "cited"),
    [
        (Game.PUNTO_BANCO, "banker_draw", "N.J.A.C. 19:47-3.9(c) Table 2"),
        (Game.PUNTO_BANCO, "player_draw", "N.J.A.C. 19:47-3.9(b) Table 1"),
        (Game.MINIBACCARAT, "banker_draw", "N.J.A.C. 19:47-3.9(c) Table 2"),
        (Game.CHEMIN_DE_FER, "banker_draw", "N.J.A.C. 19:47-4.9(c) Table 3"),
        (Game.CHEMIN_DE_FER, "player_draw", "N.J.A.C. 19:47-4.9(a)"),
        (Game.PUNTO_BANCO, "no_more_bets", "N.J.A.C. 19:47-3.2(d)"),
        (Game.CHEMIN_DE_FER, "vig", "N.J.A.C. 19:47-4.10(c)"),
        # Rules of two sections ("3.3(c)2, (c)3", "4.6(a), 4.7(a)") cite the first.
        (Game.PUNTO_BANCO, "form_deferred", "N.J.A.C. 19:47-3.3(c)2"),
        (Game.MINIBACCARAT, "form_deferred", "N.J.A.C. 19:47-7.3(c)2"),
        (Game.CHEMIN_DE_FER, "wager_offered", "N.J.A.C. 19:47-4.6(a)"),
    ],
)
def test_variant_cites_the_first_section_and_its_table(
    game: Game, subject: str, cited: str
) -> None:
    """PB-3.9c-TABLE2, CF-4.9c-TABLE3: a message cites the first section of the game's rule,
    from the code table, with the draw table the rule is (N.J.A.C. 19:47-3.9(c), 4.9(c))."""
    assert variant(game).cite(subject) == cited


@pytest.mark.rule("PB-3.6b-CURATOR", "CF-4.5b-BANKER-BID")
def test_checks_pick_their_games_by_a_variant_fact() -> None:
    """N.J.A.C. 19:47-3.6(b), 4.5(b): the replay's checks of the curator and of the
    participants' bank choose their games by asking the variants, in the order of the games:
    only Punto Banco passes the shoe to a curator, only Chemin de Fer has a participant as
    Banker (PB-3.6b-CURATOR, CF-4.5b-BANKER-BID)."""
    assert games_where(lambda v: v.curator) == (Game.PUNTO_BANCO,)
    assert games_where(lambda v: v.participant_bank) == (Game.CHEMIN_DE_FER,)
    assert games_where(lambda v: True) == tuple(Game)
