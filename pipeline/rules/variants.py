"""What differs between the three games of N.J.A.C. 19:47, in one place.

Like python-chess's variants, a game is data plus a few named facts that the rules, the
replay, the emulator and the dashboards read, instead of comparing ``Game`` members wherever
a game behaves differently. The per-subject rule codes stay in :mod:`pipeline.rules.codes`
(``code_for``); this module holds the facts that are not one code per subject.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pipeline.rules.codes import code_for, regulates, rule_in
from pipeline.rules.draw_tables import (
    CHEMIN_DE_FER_PLAYER,
    TABLE_1,
    TABLE_2,
    TABLE_3,
    Draw,
    DrawTable,
)
from pipeline.rules.games import Game
from pipeline.rules.shuffle_methods import ShuffleMethod


@dataclass(frozen=True, slots=True)
class HandingProcedure:
    """The dealing procedure a casino may file that hands each hand's cards face down to a
    player, who views them and returns them face up: Punto Banco 3.7(d), Minibaccarat 7.7(c)3.
    Who is handed them is :func:`pipeline.rules.roles.seats_to_hand`."""

    closest_of_equal_wagers: bool
    """Of equally high wagers, the one closest to the dealer counterclockwise is handed the hand
    (3.7(d)5); the given text of 7.7(c)3 stops at (c)3ii and names no tie-break, so any of the
    equal wagers may be."""
    other_hand_when_unwagered: bool
    """With no wager on a hand, a player wagering on the other hand may turn it face up, at
    the casino's discretion (3.7(d)6); the given text of 7.7(c)3 says nothing of such a hand."""


@dataclass(frozen=True, slots=True)
class Variant:
    game: Game
    subchapter: int
    """The subchapter of N.J.A.C. 19:47 that governs the game (3, 4 or 7)."""
    code_prefix: str
    """The prefix of the game's own rule codes (``PB``, ``CF``, ``MB``)."""
    player_draws: Mapping[int, Draw]
    """What the Player's Hand does on its two-card count, naturals aside: Table 1 (3.9(b),
    7.9) or the Dominant Player's rule (4.9(a))."""
    banker_draws: DrawTable
    """What the Banker's Hand does by its count and the Player's third card: Table 2 (3.9(c),
    7.9) or Table 3 (4.9(c))."""
    draw_rules: str
    """Where every draw of the game is decided, as a report names it: 3.9 Tables 1 and 2,
    7.9 (which repeats them), or the Dominant Player's 4.9(a) and the Banker's Table 3."""
    player_table: str | None
    """The table of the Player's third-card rule, as messages name it: "Table 1" (3.9(b),
    7.9); Chemin de Fer's Dominant Player follows the text of 4.9(a), which has no table."""
    banker_table: str
    """The table of the Banker's third-card rule: "Table 2" (3.9(c), 7.9) or "Table 3"
    (4.9(c), with the Banker's options)."""
    participant_bank: bool
    """A participant holds the bank and the Dominant Player plays the Player's Hand
    (4.5-4.8, 4.11): Chemin de Fer. Its only wagers are the Banker's and the wagers against
    it (4.6(a), 4.7(a)); a card dealt after "Stay" follows 4.12(e)-(f)."""
    player_wager_code: str
    """The rule a wager on the Player's Hand is settled by: 3.2(a)2, 3.3(a) (Minibaccarat
    repeats it, cited there as 7.2(a)2, 7.3(a)) or, against the Chemin de Fer Banker, 4.7(g)."""
    settlement_order: bool
    """Whether the pit's settlement procedure of 3.10(b)1-4 orders the settlement (Punto
    Banco, and Minibaccarat, whose 7.10 refers to it); Chemin de Fer settles by 4.10(b)."""
    no_vig_code: str
    """The rule under which a winning Banker wager owes no vigorish at a table with a
    no-vigorish variation: 3.10(b)5 (3.3(e), (h)) or Minibaccarat's own 7.3(f)."""
    no_vig_term: str
    """What the game's text calls that: a "variation" (3.3(e), (h)) or an "option" (7.3(f))."""
    shuffle_options: Mapping[ShuffleMethod, str]
    """The shuffling options the game's subchapter offers, with the section offering each:
    3.5(a), 4.4(a), or Minibaccarat's 7.5(b), its two-batch shuffler (7.1(d)) and continuous
    shuffling device (7.12; 6.9 governs subchapter 6, not baccarat)."""
    choice_sections: Mapping[str, str]
    """Where the game regulates each choice a casino files for a table (shuffle, decks,
    vigorish, disclosed card, tie, the no-vigorish options), as ``validate-rules`` cites it."""
    vigorish_deferred: bool
    """Whether a winning Banker wager's vigorish may be deferred and marked (3.3(c)2,
    7.3(c)2); Chemin de Fer's is collected immediately after each round (4.10(c))."""
    vig_rounding_cents: int | None
    """The multiple rounded vigorish goes up to whatever the percentage: 5c at Minibaccarat
    (7.3(c)1); ``None`` where it follows the percentage, 25c at 5 % and 20c at 4 % (3.3(c)1,
    4.10(c))."""
    tie_wager: bool
    """Whether the game has a tie wager (3.2(a)3, 7.2(a)); Chemin de Fer voids the wagers on a
    stand off instead (4.7(g))."""
    punto_banco_options: bool
    """Whether the dragon 7 variation (3.3(h)) and the optional bonus wager (3.2(a)5) may be
    offered: they are sections of Punto Banco's subchapter only."""
    tie_vigorish_option: bool
    """Whether the 25 percent tie vigorish may be chosen: Minibaccarat's 7.3(d) only."""
    ten_value_discards: frozenset[int]
    """How many more cards a disclosed ten-value card may discard under the by-value procedure:
    one or ten as pre-selected (3.12(c)1, 4.12(h)1), or also zero at Minibaccarat, whose
    7.11(c)1 reads only "value" (3.1(b): zero)."""
    one_settlement_procedure_per_pit: bool
    """Whether every table of a pit must settle by the same procedure of 3.10(b)1-4: 3.10(c)1
    binds Punto Banco pits."""
    curator: bool
    """Whether a player may hold the shoe as curator and must offer and pass it (3.6(b),
    3.11(a)1): Punto Banco only."""
    hands_after_cut_card: int
    """How many hands are dealt from a shoe after the one in which the cutting card appears:
    one, the "last hand" (3.8(e), which Minibaccarat's rounds cite); none in Chemin de Fer,
    where that hand is the shoe's last (4.12(g), (j), (k))."""
    cards_handed: HandingProcedure | None
    """The dealing procedure that hands the cards to the players, where the game's subchapter
    offers one (3.7(d), 7.7(c)3); ``None`` at Chemin de Fer, whose Banker deals the cards in
    front of the Dominant Player and himself (4.8(d))."""
    form_fields: tuple[str, ...]
    """The entries a Complimentary Vigorish Form must carry besides the signatures: the
    current 3.3(c)3i names the gaming date, pit and table location (Chemin de Fer's 4.10(c)
    refers to it); the 7.3(c)3i that governs Minibaccarat names only the amount and patron."""

    @property
    def hand_options(self) -> bool:
        """Whether the hands may choose to draw or stay on some counts (an "Op." cell):
        Chemin de Fer's Dominant Player on 5 (4.9(a)2) and Banker (4.9(f))."""
        banker_cells = (cell for row in self.banker_draws.values() for cell in row.values())
        return Draw.OPTION in {*self.player_draws.values(), *banker_cells}

    @property
    def last_hand(self) -> bool:
        """Whether the cutting card brings a "last hand" (3.8(e)); Chemin de Fer's 4.12(g),
        (j), (k) know the cutting card only."""
        return regulates(self.game, "last_hand")

    def cite(self, subject: str) -> str:
        """The citation a message gives for the game's rule on ``subject``: its first
        section, naming the draw table where the rule is one (``N.J.A.C. 19:47-3.9(c) Table
        2``)."""
        ruled = rule_in(self.game, code_for(self.game, subject))
        first = ruled._replace(
            section=_first_section(ruled.section),
            mirrors=ruled.mirrors and _first_section(ruled.mirrors),
        )
        table = {"player_draw": self.player_table, "banker_draw": self.banker_table}.get(subject)
        return f"{first.citation} {table}" if table else first.citation


def _first_section(sections: str) -> str:
    """The first of a code's sections: ``3.3(c)2`` of ``3.3(c)2, (c)4``, ``3.9(c)`` of
    ``3.9(c)-(g)``."""
    return sections.split("-")[0].split(",")[0]


VARIANTS: dict[Game, Variant] = {
    Game.PUNTO_BANCO: Variant(
        Game.PUNTO_BANCO,
        subchapter=3,
        code_prefix="PB",
        player_draws=TABLE_1,
        banker_draws=TABLE_2,
        draw_rules="N.J.A.C. 19:47-3.9 Tables 1 and 2",
        player_table="Table 1",
        banker_table="Table 2",
        participant_bank=False,
        player_wager_code="PB-3.3a-PLAYER",
        settlement_order=True,
        no_vig_code="PB-3.10b5-NO-VIG-MARKED",
        no_vig_term="variation",
        shuffle_options={
            ShuffleMethod.MANUAL_LACE: "3.5(a)1",
            ShuffleMethod.MANUAL_WASH: "3.5(a)2",
        },
        choice_sections={
            "shuffle": "3.5(a)",
            "decks": "3.1(a)",
            "vig": "3.3(c)",
            "disclosed": "3.12(c)1",
            "tie": "3.3(b)",
            "no_vig": "3.3(e)",
            "no_vig_2": "3.3(e)2",
        },
        vigorish_deferred=True,
        vig_rounding_cents=None,
        tie_wager=True,
        punto_banco_options=True,
        tie_vigorish_option=False,
        ten_value_discards=frozenset({1, 10}),
        one_settlement_procedure_per_pit=True,
        curator=True,
        hands_after_cut_card=1,
        cards_handed=HandingProcedure(closest_of_equal_wagers=True, other_hand_when_unwagered=True),
        form_fields=("amount_cents", "gaming_date", "pit", "table_location", "patron_name"),
    ),
    Game.CHEMIN_DE_FER: Variant(
        Game.CHEMIN_DE_FER,
        subchapter=4,
        code_prefix="CF",
        player_draws=CHEMIN_DE_FER_PLAYER,
        banker_draws=TABLE_3,
        draw_rules="N.J.A.C. 19:47-4.9(a) and Table 3",
        player_table=None,
        banker_table="Table 3",
        participant_bank=True,
        player_wager_code="CF-4.7g-PLAYER",
        settlement_order=False,
        no_vig_code="PB-3.10b5-NO-VIG-MARKED",
        no_vig_term="variation",
        shuffle_options={
            ShuffleMethod.MANUAL_LACE: "4.4(a)1",
            ShuffleMethod.MANUAL_WASH: "4.4(a)2",
        },
        choice_sections={
            "shuffle": "4.4(a)",
            "decks": "4.1(a)",
            "vig": "4.10(c)",
            "disclosed": "4.12(h)1",
            "tie": "4.7(g)",
            "no_vig": "4.10(c)",
            "no_vig_2": "4.10(c)",
        },
        vigorish_deferred=False,
        vig_rounding_cents=None,
        tie_wager=False,
        punto_banco_options=False,
        tie_vigorish_option=False,
        ten_value_discards=frozenset({1, 10}),
        one_settlement_procedure_per_pit=False,
        curator=False,
        hands_after_cut_card=0,
        cards_handed=None,
        form_fields=("amount_cents", "gaming_date", "pit", "table_location", "patron_name"),
    ),
    Game.MINIBACCARAT: Variant(
        Game.MINIBACCARAT,
        subchapter=7,
        code_prefix="MB",
        player_draws=TABLE_1,
        banker_draws=TABLE_2,
        draw_rules="N.J.A.C. 19:47-7.9 Tables 1 and 2",
        player_table="Table 1",
        banker_table="Table 2",
        participant_bank=False,
        player_wager_code="PB-3.3a-PLAYER",
        settlement_order=True,
        no_vig_code="MB-7.3f-NO-VIG",
        no_vig_term="option",
        shuffle_options={
            ShuffleMethod.FEATHERED: "7.5(b)1",
            ShuffleMethod.MANUAL_LACE: "7.5(b)2",
            ShuffleMethod.AUTOMATED_BATCH: "7.1(d)",
            ShuffleMethod.CONTINUOUS: "7.12",
        },
        choice_sections={
            "shuffle": "7.5(b)",
            "decks": "7.1(a)",
            "vig": "7.3(c)",
            "disclosed": "7.11(c)1",
            "tie": "7.3(b)",
            "no_vig": "7.3(f)",
            "no_vig_2": "7.3(f)2",
        },
        vigorish_deferred=True,
        vig_rounding_cents=5,
        tie_wager=True,
        punto_banco_options=False,
        tie_vigorish_option=True,
        ten_value_discards=frozenset({0, 1, 10}),
        one_settlement_procedure_per_pit=False,
        curator=False,
        hands_after_cut_card=1,
        cards_handed=HandingProcedure(
            closest_of_equal_wagers=False, other_hand_when_unwagered=False
        ),
        form_fields=("amount_cents", "patron_name"),
    ),
}


def variant(game: Game) -> Variant:
    """The variant of ``game``."""
    return VARIANTS[game]


def games_where(fact: Callable[[Variant], bool]) -> tuple[Game, ...]:
    """The games whose variant has ``fact``, e.g. ``games_where(lambda v: v.curator)``."""
    return tuple(game for game, v in VARIANTS.items() if fact(v))


__all__ = ["VARIANTS", "HandingProcedure", "Variant", "games_where", "variant"]
