"""A table's rule configuration: the choices N.J.A.C. 19:47 leaves to the casino, validated.

The casino chooses, for example, 4 % or 5 % vigorish (3.3(c)), whether to round it (3.3(c)1),
one of the no-vigorish variations (3.3(e)1, (e)2, (h)), the bonus paytable (3.3(g)), the tie
odds (at least 8 to 1, 3.3(b)), the dealing procedure that hands the cards to the players
(3.7(d), 7.7(c)3), the disclosed-card procedure (3.12(c)) and the settlement procedure
(3.10(b)). Nothing here is picked silently: every choice is a field, and
:func:`problems` lists every illegal combination at once, each naming its section.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from pipeline.rules.codes import code_for, rule
from pipeline.rules.games import Game
from pipeline.rules.shuffle_methods import ShuffleMethod
from pipeline.rules.symbol import Symbol
from pipeline.rules.variants import variant

Cents = int
"""Money is always an integer number of cents."""


def money(cents: Cents) -> str:
    """Cents as dollars for messages: ``1234`` -> ``$12.34``, ``-50`` -> ``-$0.50``."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


class Odds(NamedTuple):
    """Payout odds "to_win to stake", e.g. 3 to 2 is ``Odds(3, 2)``."""

    to_win: int
    stake: int

    def payout(self, stake_cents: Cents) -> Cents:
        """Winnings on a stake, stake excluded, rounded down to the cent.

        Odds such as 3 to 2 or 1 to 2 can produce half cents; the casino may not pay more
        than the posted odds, and a fraction of a cent cannot be paid, so it is dropped.
        """
        return stake_cents * self.to_win // self.stake

    def at_least(self, minimum: Odds) -> bool:
        """Whether these odds pay at least ``minimum``; odds with a zero side pay nothing
        sensible and never qualify."""
        if self.to_win <= 0 or self.stake <= 0:
            return False
        return self.to_win * minimum.stake >= minimum.to_win * self.stake

    def __str__(self) -> str:
        return f"{self.to_win} to {self.stake}"


class DisclosedCardProcedure(Symbol):
    """The procedure pre-selected for a card dealt in error and disclosed,
    N.J.A.C. 19:47-3.12(c), 4.12(h), 7.11(c)."""

    DISCARD_BY_VALUE = 1  # (c)1: the card plus as many cards as its value, face up
    DISCARD_ONE_FACE_DOWN = 2  # (c)2: the card plus one card face down
    SIMULATED_ROUND = 3  # (c)3: the card starts a simulated round without wagers


class SettlementProcedure(Symbol):
    """The order in which winning wagers are paid and vigorish marked, 19:47-3.10(b)1-4."""

    PAY_ALL_THEN_VIG = 1
    VIG_ALL_THEN_PAY = 2
    PAY_THEN_VIG_PER_SEAT = 3
    VIG_THEN_PAY_PER_SEAT = 4


class Paytable(Symbol):
    """Optional bonus wager paytables, N.J.A.C. 19:47-3.3(g)."""

    A = "A"
    B = "B"
    C = "C"


TIE_MINIMUM = Odds(8, 1)  # 3.3(b), 7.3(b)
DRAGON_7_MINIMUM = Odds(40, 1)  # 3.3(i)
MINIMUM_DECKS = 6  # 3.1(a), 4.1(a), 7.1(a)
MINIMUM_DECKS_TWO_BATCH = 12  # 7.1(d)


@dataclass(frozen=True, slots=True)
class TableRules:
    """One named, versioned rule configuration; every table plays exactly one per gaming day."""

    rules_id: str
    game: Game
    decks: int = 8
    shuffle_method: ShuffleMethod = ShuffleMethod.MANUAL_LACE
    vig_percent: int = 5
    vig_rounding: bool = False
    vig_deferral: bool = True
    tie_odds: Odds = TIE_MINIMUM
    total_card_wagers: bool = False
    bonus_paytable: Paytable | None = None
    bonus_requires_base_wager: bool = False
    no_vig_banker_six: bool = False
    no_vig_total_card_cover: bool = False
    dragon_7: bool = False
    dragon_7_odds: Odds = DRAGON_7_MINIMUM
    tie_vig_quarter: bool = False
    cards_handed_to_players: bool = False
    """Whether the dealer hands each hand's cards face down to a player to view and return
    (Punto Banco 3.7(d) in lieu of 3.7(c); Minibaccarat's option 7.7(c)3); ``False``: the cards
    are turned face up by the dealer (3.7(c), 7.7(c)1-2)."""
    disclosed_card_procedure: DisclosedCardProcedure = DisclosedCardProcedure.DISCARD_BY_VALUE
    disclosed_ten_value_discards: int = 10
    settlement_procedure: SettlementProcedure = SettlementProcedure.PAY_ALL_THEN_VIG
    min_wager_cents: Cents = 2_500
    max_wager_cents: Cents = 1_000_000
    records_no_more_bets: bool = False
    """Whether the table's pit terminal records "No More Bets" (BettingClosed) in every round
    it deals: the dealer announces it at the commencement of each round (3.7(b), 4.7(d)-(e),
    7.7(b)), but a device that sends no record cannot be told from a dealer who did not
    announce; only where it does is a round without the record a finding."""
    records_declined_offers: bool = False
    """Whether the table's pit terminal records every offer declined in turn (OfferDeclined):
    Chemin de Fer's cut (4.4(c)) and relinquished bank (4.11(b)-(c)) are offered round the
    table until one accepts, and only where each decline is on record is a participant passed
    over without one a finding."""

    def __hash__(self) -> int:
        # Settlement looks the rules up (offered wagers) for every wager; hashing the id alone
        # keeps that lookup cheap, and rules with equal fields have equal ids.
        return hash(self.rules_id)

    @property
    def vig_increment_cents(self) -> Cents:
        """The multiple vigorish is rounded up to when rounding is chosen, or 1 (no rounding).

        Punto Banco 3.3(c)1 and Chemin de Fer 4.10(c): 25c for 5 %, 20c for 4 %.
        Minibaccarat 7.3(c)1: 5c whatever the percentage.
        """
        if not self.vig_rounding:
            return 1
        fixed = variant(self.game).vig_rounding_cents
        if fixed is not None:
            return fixed
        return 25 if self.vig_percent == 5 else 20

    @property
    def charges_banker_vig(self) -> bool:
        """Whether a winning Banker wager pays vigorish at all under the chosen variation."""
        return not (self.dragon_7 or self.no_vig_banker_six or self.tie_vig_quarter)


class ConfigProblem(NamedTuple):
    field: str
    section: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message} ({self.section})"


class InvalidRulesError(ValueError):
    """A rule configuration the regulations do not allow; lists every problem at once."""

    def __init__(self, rules_id: str, found: list[ConfigProblem]) -> None:
        self.rules_id = rules_id
        self.problems = found
        lines = "\n".join(f"  - {p}" for p in found)
        super().__init__(
            f"rule configuration {rules_id!r} is not allowed by N.J.A.C. 19:47:\n{lines}\n"
            "Fix these fields in the rules file and run again."
        )


def problems(rules: TableRules) -> list[ConfigProblem]:
    """Every way ``rules`` breaks N.J.A.C. 19:47, in field order. Empty means legal."""
    found: list[ConfigProblem] = []
    game = rules.game
    rulebook = variant(game)
    sec = rulebook.choice_sections

    def bad(field_name: str, section: str, message: str) -> None:
        found.append(ConfigProblem(field_name, f"N.J.A.C. 19:47-{section}", message))

    offered_shuffles = rulebook.shuffle_options
    if rules.shuffle_method not in offered_shuffles:
        choices = ", ".join(f"{m.name} ({sec})" for m, sec in offered_shuffles.items())
        bad(
            "shuffle_method",
            sec["shuffle"],
            f"{rules.shuffle_method.name} is not a shuffling option of {game.value}; it offers "
            f"{choices}",
        )
    if rules.shuffle_method is ShuffleMethod.AUTOMATED_BATCH:
        if rules.decks < MINIMUM_DECKS_TWO_BATCH or rules.decks % 2:
            bad(
                "decks",
                "7.1(d)",
                f"an automated shuffler needs at least {MINIMUM_DECKS_TWO_BATCH} decks in two "
                f"equal batches, got {rules.decks}",
            )
    elif rules.decks < MINIMUM_DECKS:
        bad(
            "decks", sec["decks"], f"at least {MINIMUM_DECKS} decks are required, got {rules.decks}"
        )

    if rules.vig_percent not in (4, 5):
        bad("vig_percent", sec["vig"], f"vigorish is 4 or 5 percent, got {rules.vig_percent}")
    if not rulebook.vigorish_deferred and rules.vig_deferral:
        bad(
            "vig_deferral",
            "4.10(c)",
            "Chemin de Fer vigorish is collected immediately after each round the Banker wins",
        )

    if rulebook.tie_wager and not rules.tie_odds.at_least(TIE_MINIMUM):
        bad("tie_odds", sec["tie"], f"a tie pays at least {TIE_MINIMUM}, got {rules.tie_odds}")
    if not rulebook.tie_wager and rules.tie_odds != TIE_MINIMUM:
        bad(
            "tie_odds",
            "4.7(g)",
            f"Chemin de Fer has no tie bet (wagers are void on a stand off), got tie odds "
            f"{rules.tie_odds}",
        )

    if rules.no_vig_banker_six and rules.no_vig_total_card_cover:
        bad(
            "no_vig_banker_six",
            sec["no_vig"],
            "offer one, but not both, of the no-vigorish options (e)1 and (e)2",
        )
    if rules.no_vig_total_card_cover and not rules.total_card_wagers:
        bad(
            "no_vig_total_card_cover",
            sec["no_vig_2"],
            "the (e)2 option needs the total-card wagers of 3.2(a)4 to be offered",
        )

    if rules.dragon_7:
        if not rulebook.punto_banco_options:
            bad("dragon_7", "3.3(h)", "the dragon 7 variation is a Punto Banco rule")
        if rules.total_card_wagers or rules.bonus_paytable is not None:
            bad(
                "dragon_7",
                "3.2(a)6iii",
                "the dragon 7 wager shall not be offered with the total-card or bonus wagers",
            )
        if rules.no_vig_banker_six or rules.no_vig_total_card_cover:
            bad(
                "dragon_7",
                "3.3(e), (h)",
                "the dragon 7 variation already waives vigorish; it cannot be combined with a "
                "3.3(e) option",
            )
        if not rules.dragon_7_odds.at_least(DRAGON_7_MINIMUM):
            bad(
                "dragon_7_odds",
                "3.3(i)",
                f"a dragon 7 wager pays at least {DRAGON_7_MINIMUM}, got {rules.dragon_7_odds}",
            )
    elif rules.dragon_7_odds != DRAGON_7_MINIMUM:
        bad(
            "dragon_7_odds",
            "3.3(i)",
            f"dragon 7 odds of {rules.dragon_7_odds} are set but the table does not offer the "
            "dragon 7 variation of 3.3(h)",
        )

    if rules.bonus_paytable is not None and not rulebook.punto_banco_options:
        bad("bonus_paytable", "3.2(a)5", "the optional bonus wager is a Punto Banco rule")
    if rules.bonus_requires_base_wager and rules.bonus_paytable is None:
        bad(
            "bonus_requires_base_wager",
            "3.2(b)",
            "the base-wager requirement applies to the optional bonus wager of 3.2(a)5, which "
            "this table does not offer",
        )

    if rules.tie_vig_quarter:
        if not rulebook.tie_vigorish_option:
            bad("tie_vig_quarter", "7.3(d)", "the 25 percent tie vigorish is a Minibaccarat rule")
        if rules.no_vig_banker_six or rules.no_vig_total_card_cover:
            bad(
                "tie_vig_quarter",
                "7.3(d), (f)",
                "choose either the 25 percent tie vigorish or a no-vigorish option of 7.3(f)",
            )
        if rules.vig_deferral:
            bad(
                "vig_deferral",
                "7.3(d)",
                "the 25 percent tie vigorish is collected before the next round's first card",
            )

    if rulebook.participant_bank and (
        rules.total_card_wagers or rules.no_vig_banker_six or rules.no_vig_total_card_cover
    ):
        bad("total_card_wagers", "4.7", "Chemin de Fer has only wagers for and against the Banker")

    if rules.cards_handed_to_players and rulebook.cards_handed is None:
        bad(
            "cards_handed_to_players",
            "4.8(d)",
            "at Chemin de Fer the Banker deals the Player's Hand face down in front of the "
            "Dominant Player and the Banker's Hand in front of himself; no procedure hands the "
            "cards to the players (3.7(d) and 7.7(c)3 are Punto Banco and Minibaccarat options)",
        )

    allowed_ten = rulebook.ten_value_discards
    if rules.disclosed_ten_value_discards not in allowed_ten:
        bad(
            "disclosed_ten_value_discards",
            sec["disclosed"],
            f"a disclosed ten-value card discards one of {sorted(allowed_ten)} more cards, "
            f"got {rules.disclosed_ten_value_discards}",
        )

    if rules.min_wager_cents <= 0 or rules.max_wager_cents < rules.min_wager_cents:
        bad(
            "min_wager_cents",
            "8.2",
            f"table limits must satisfy 0 < minimum <= maximum, got {rules.min_wager_cents} "
            f"and {rules.max_wager_cents}",
        )
    return found


def validated(rules: TableRules) -> TableRules:
    """``rules`` itself when legal; otherwise :class:`InvalidRulesError` listing every problem."""
    found = problems(rules)
    if found:
        raise InvalidRulesError(rules.rules_id, found)
    return rules


_ENUM_FIELDS: Mapping[str, type[enum.Enum]] = {
    "game": Game,
    "shuffle_method": ShuffleMethod,
    "bonus_paytable": Paytable,
    "disclosed_card_procedure": DisclosedCardProcedure,
    "settlement_procedure": SettlementProcedure,
}
_ODDS_FIELDS = {"tie_odds", "dragon_7_odds"}


def _parse_odds(name: str, value: Any) -> Odds:
    """Odds written as ``"8 to 1"`` or ``[8, 1]``."""
    if isinstance(value, str):
        left, sep, right = value.partition(" to ")
        if sep and left.strip().isdigit() and right.strip().isdigit():
            odds = Odds(int(left), int(right))
            if odds.to_win > 0 and odds.stake > 0:
                return odds
    elif isinstance(value, list | tuple) and len(value) == 2:
        odds = Odds(int(value[0]), int(value[1]))
        if odds.to_win > 0 and odds.stake > 0:
            return odds
    raise ValueError(
        f'{name}: odds are written like "8 to 1" with both sides positive, got {value!r}'
    )


def rules_from_mapping(data: Mapping[str, Any]) -> TableRules:
    """Build and validate rules from parsed TOML/JSON. Unknown keys are an error, not ignored."""
    known = {f.name for f in fields(TableRules)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown rule setting(s) {unknown}; known settings are {sorted(known)}")
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        if name in _ENUM_FIELDS and value is not None:
            enum_type = _ENUM_FIELDS[name]
            try:
                by_name = isinstance(value, str) and value in enum_type.__members__
                kwargs[name] = enum_type[value] if by_name else enum_type(value)
            except ValueError:
                choices = ", ".join(enum_type.__members__)
                raise ValueError(f"{name}: {value!r} is not one of {choices}") from None
        elif name in _ODDS_FIELDS:
            kwargs[name] = _parse_odds(name, value)
        else:
            kwargs[name] = value
    if "rules_id" not in kwargs or "game" not in kwargs:
        raise ValueError("a rule configuration needs at least 'rules_id' and 'game'")
    return validated(TableRules(**kwargs))


def rules_to_mapping(rules: TableRules) -> dict[str, Any]:
    """The inverse of :func:`rules_from_mapping`, for storing the configuration with the data."""
    out: dict[str, Any] = {}
    for f in fields(rules):
        value = getattr(rules, f.name)
        if isinstance(value, enum.Enum):
            value = value.name
        elif isinstance(value, Odds):
            value = str(value)
        out[f.name] = value
    return out


class TableAssignment(NamedTuple):
    table_id: str
    pit: str
    rules: TableRules


def floor_problems(assignments: Iterable[TableAssignment]) -> list[ConfigProblem]:
    """Rules that bind several tables together for one gaming day.

    - One vigorish percentage per table (3.3(d), 4.10(d)): a table listed twice must agree.
    - One settlement procedure per pit for Punto Banco (3.10(c)1).
    - One shuffling option per pit (3.5(b), 4.4(b), 7.5(c)), whatever game each table deals:
      the sections bind "all tables within a pit".
    """
    found: list[ConfigProblem] = []
    by_table: dict[str, TableAssignment] = {}
    by_pit: dict[str, TableAssignment] = {}
    for a in assignments:
        first = by_table.setdefault(a.table_id, a)
        if first.rules.vig_percent != a.rules.vig_percent:
            found.append(
                ConfigProblem(
                    "vig_percent",
                    "N.J.A.C. 19:47-3.3(d)",
                    f"table {a.table_id} mixes {first.rules.vig_percent} % and "
                    f"{a.rules.vig_percent} % vigorish; one percentage applies to all its players",
                )
            )
        pit_first = by_pit.setdefault(a.pit, a)
        bound = all(variant(t.rules.game).one_settlement_procedure_per_pit for t in (pit_first, a))
        if bound and pit_first.rules.settlement_procedure != a.rules.settlement_procedure:
            found.append(
                ConfigProblem(
                    "settlement_procedure",
                    "N.J.A.C. 19:47-3.10(c)1",
                    f"pit {a.pit}: table {a.table_id} uses procedure "
                    f"{a.rules.settlement_procedure.value} but table {pit_first.table_id} uses "
                    f"{pit_first.rules.settlement_procedure.value}",
                )
            )
        if pit_first.rules.shuffle_method != a.rules.shuffle_method:
            found.append(
                ConfigProblem(
                    "shuffle_method",
                    rule(code_for(a.rules.game, "shuffle_pit")).citation,
                    f"pit {a.pit}: table {a.table_id} uses {a.rules.shuffle_method.name} but table "
                    f"{pit_first.table_id} uses {pit_first.rules.shuffle_method.name}",
                )
            )
    return found


__all__ = [
    "Cents",
    "ConfigProblem",
    "DisclosedCardProcedure",
    "InvalidRulesError",
    "Odds",
    "Paytable",
    "SettlementProcedure",
    "ShuffleMethod",
    "TableAssignment",
    "TableRules",
    "floor_problems",
    "problems",
    "rules_from_mapping",
    "rules_to_mapping",
    "validated",
]
