"""The rules of N.J.A.C. 19:47 as pure functions over immutable values.

No clock, no I/O, no global state: the replay, the emulator's honest dealer, the odds oracle
and the tests share this one implementation. Money is integer cents (:data:`Cents`).
"""

from pipeline.rules.cards import Card, Point, Rank, Suit, card_value, cards, hand_points
from pipeline.rules.codes import RULE_CODES, RuleCode, rule
from pipeline.rules.config import (
    Cents,
    DisclosedCardProcedure,
    InvalidRulesError,
    Odds,
    Paytable,
    SettlementProcedure,
    ShuffleMethod,
    TableRules,
    rules_from_mapping,
)
from pipeline.rules.deal import Deal, InsufficientCardsError, Options, deal_round
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome, Winner, outcome_of
from pipeline.rules.settlement import Result, Settlement, Wager, settle, settle_seat

__all__ = [
    "RULE_CODES",
    "Card",
    "Cents",
    "Deal",
    "DisclosedCardProcedure",
    "Draw",
    "Game",
    "InsufficientCardsError",
    "InvalidRulesError",
    "Odds",
    "Options",
    "Paytable",
    "Point",
    "Rank",
    "Result",
    "RoundOutcome",
    "RuleCode",
    "Settlement",
    "SettlementProcedure",
    "ShuffleMethod",
    "Suit",
    "TableRules",
    "Wager",
    "Winner",
    "banker_rule",
    "card_value",
    "cards",
    "deal_round",
    "hand_points",
    "outcome_of",
    "player_rule",
    "rule",
    "rules_from_mapping",
    "settle",
    "settle_seat",
]
