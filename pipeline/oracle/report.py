"""The exact odds oracle: counts, probabilities and house edges of every offered wager.

:func:`odds` enumerates every deal from a full shoe without replacement
(:mod:`pipeline.oracle.enumeration`), then settles each distinct final outcome through the
rules layer's own :func:`~pipeline.rules.settlement.settle`, so the numbers prove the rules the
replay uses, not a second copy of them.

Counts are numbers of ordered six-card sequences. A deal that ends after ``k`` cards is weighted
by the ``(N-k)!/(N-6)!`` ways to fill the six minus ``k`` positions it does not look at, so
every partition of the outcomes adds up to ``N (N-1) (N-2) (N-3) (N-4) (N-5)`` with ``N = 52 *
decks`` (416·415·414·413·412·411 for eight decks, 312·311·310·309·308·307 for six).

House edge means the patron's expected loss per unit staked, ``-E[net] / stake``, over every
round including those in which the wager is void (a Banker or Player wager on a tie,
N.J.A.C. 19:47-3.2(a)1iii, 2iii). The headline edges are exact fractions with vigorish an exact
percentage of the amount won (3.3(c)) and odds paid exactly (3.3(a)-(i)): they are computed by
settling at a stake where no rule has to drop a fraction of a cent, and that exactness is
checked, not assumed. What rounding does at a real bet size is reported separately (3.3(c)1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from pipeline.oracle.enumeration import (
    CARDS_PER_ROUND_MAX,
    OutcomeCounts,
    outcome_counts,
    shoe_counts,
    total_sequences,
)
from pipeline.rules.codes import code_for, rule
from pipeline.rules.config import MINIMUM_DECKS, Cents, Paytable, TableRules, validated
from pipeline.rules.deal import Options
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome, Winner
from pipeline.rules.settlement import (
    BANKER_SIX_ODDS,
    EVEN_MONEY,
    PAYTABLES,
    TOTAL_CARD_ODDS,
    Result,
    Wager,
    bonus_result,
    offered_wagers,
    settle,
)
from pipeline.rules.variants import variant
from pipeline.rules.vigorish import vigorish_on_win

DEFAULT_BET_CENTS: Cents = 2_500
"""$25.00, the default table minimum of :class:`TableRules`."""

COVERED_BANKER = "BANKER_COVERED_3.3(e)2"
"""Key of the Banker wager's edge when the seat's total-card wagers cover it (3.3(e)2)."""


# --- counts -------------------------------------------------------------------------------


def _bonus_line(outcome: RoundOutcome, side: Winner) -> str:
    """The optional bonus wager's outcome line for ``side``, N.J.A.C. 19:47-3.2(a)5.

    ``bonus_result`` reports line 0 both for a natural and for a non-natural margin of 0, so
    naturals are told apart by the outcome itself.
    """
    result, line = bonus_result(outcome, side)
    if outcome.natural(side):
        return {Result.WIN: "natural_win", Result.VOID: "natural_tie"}.get(result, "natural_lose")
    return f"win_{line}" if result is Result.WIN else "lose"


BONUS_LINES: tuple[str, ...] = (
    "natural_win",
    "natural_tie",
    "natural_lose",
    *(f"win_{m}" for m in range(4, 10)),
    "lose",
)
"""Bonus outcome lines per side: a natural wins 1 to 1, equal naturals are void (3.2(a)5iii),
a natural 8 loses to a natural 9, a non-natural win by 4-9 is paid by the paytable (3.3(g)),
anything else loses (3.2(a)5ii)."""


def derive_counts(outcomes: Mapping[RoundOutcome, int]) -> dict[str, int]:
    """Every named count, derived from the joint distribution of final outcomes.

    Winners by 3.2(a)1-3; total cards by 3.2(a)4; naturals by 3.9(a); the dragon 7 by 3.3(h);
    a winning Banker 6 by 3.3(e)1; bonus lines by 3.2(a)5 for each side.
    """
    keys = [
        "banker_win", "player_win", "tie",
        "cards_4", "cards_5", "cards_6",
        "dragon_7", "banker_win_not_dragon_7",
        "banker_win_6", "banker_win_6_two_cards", "banker_win_6_three_cards", "banker_win_not_6",
        "player_natural_8", "player_natural_9", "banker_natural_8", "banker_natural_9",
        "natural", "natural_tie", "player_win_natural", "banker_win_natural",
        *(f"{w}_cards_{k}" for w in ("banker_win", "player_win", "tie") for k in (4, 5, 6)),
        *(f"{side}_bonus_{line}" for side in ("player", "banker") for line in BONUS_LINES),
    ]  # fmt: skip
    counts = dict.fromkeys(keys, 0)
    for o, n in outcomes.items():
        winner = o.winner
        key = {Winner.BANKER: "banker_win", Winner.PLAYER: "player_win", Winner.TIE: "tie"}[winner]
        counts[key] += n
        counts[f"cards_{o.total_cards}"] += n
        counts[f"{key}_cards_{o.total_cards}"] += n
        if winner is Winner.BANKER:
            counts["dragon_7" if o.dragon_7 else "banker_win_not_dragon_7"] += n
            if o.banker_wins_with_6:
                counts["banker_win_6"] += n
                counts["banker_win_6_two_cards" if o.banker_cards == 2 else
                       "banker_win_6_three_cards"] += n  # fmt: skip
            else:
                counts["banker_win_not_6"] += n
        if o.player_natural:
            counts[f"player_natural_{o.player_points}"] += n
        if o.banker_natural:
            counts[f"banker_natural_{o.banker_points}"] += n
        if o.player_natural or o.banker_natural:
            counts["natural"] += n
            if winner is Winner.TIE:
                counts["natural_tie"] += n
            elif winner is Winner.PLAYER and o.player_natural:
                counts["player_win_natural"] += n
            elif winner is Winner.BANKER and o.banker_natural:
                counts["banker_win_natural"] += n
        counts[f"player_bonus_{_bonus_line(o, Winner.PLAYER)}"] += n
        counts[f"banker_bonus_{_bonus_line(o, Winner.BANKER)}"] += n
    return counts


# --- house edges --------------------------------------------------------------------------


def _offered_in_order(rules: TableRules) -> list[Wager]:
    offered = offered_wagers(rules)
    return [w for w in Wager if w in offered]


def exact_unit_stake(rules: TableRules) -> Cents:
    """A stake at which every payout and vigorish of ``rules`` is a whole number of cents.

    100 makes any whole percentage of it whole (3.3(c)), 4 makes the 25 % tie vigorish whole
    (7.3(d)), and each odds' stake side makes its payout whole (3.3(a)-(i)).
    """
    odds = [rules.tie_odds, rules.dragon_7_odds, BANKER_SIX_ODDS, EVEN_MONEY]
    odds += [o for _, o in TOTAL_CARD_ODDS.values()]
    odds += [o for table in PAYTABLES.values() for o in table.values()]
    return math.lcm(100, 4, *(o.stake for o in odds))


def _total_net(
    outcomes: Mapping[RoundOutcome, int],
    rules: TableRules,
    wager: Wager,
    stake: Cents,
    seat: Mapping[Wager, Cents] | None = None,
) -> int:
    """Sum over outcomes of count times the patron's net cents, settled by the rules layer."""
    return sum(n * settle(rules, o, wager, stake, seat).net_cents for o, n in outcomes.items())


def edge_at_stake(
    outcomes: Mapping[RoundOutcome, int],
    rules: TableRules,
    wager: Wager,
    stake: Cents,
    seat: Mapping[Wager, Cents] | None = None,
) -> Fraction:
    """The exact house edge of ``wager`` at a real ``stake``, with whatever rounding the rules
    and the cent apply (vigorish rounding 3.3(c)1, dropped fractions of a cent)."""
    total = sum(outcomes.values())
    return Fraction(-_total_net(outcomes, rules, wager, stake, seat), total * stake)


def _ideal(rules: TableRules) -> TableRules:
    """``rules`` with vigorish an exact percentage: no rounding up to 25c/20c/5c multiples."""
    return replace(rules, vig_rounding=False)


def exact_edge(
    outcomes: Mapping[RoundOutcome, int],
    rules: TableRules,
    wager: Wager,
    seat_multiples: Mapping[Wager, int] | None = None,
) -> Fraction:
    """The house edge with exact percentages and odds: settled at :func:`exact_unit_stake`
    and checked at twice that stake, outcome by outcome, to prove nothing was truncated."""
    ideal = _ideal(rules)
    unit = exact_unit_stake(rules)

    def nets(stake: Cents) -> dict[RoundOutcome, int]:
        seat = None if seat_multiples is None else {w: m * stake for w, m in seat_multiples.items()}
        return {o: settle(ideal, o, wager, stake, seat).net_cents for o in outcomes}

    once, twice = nets(unit), nets(2 * unit)
    for o, net in once.items():
        if twice[o] != 2 * net:
            raise ArithmeticError(
                f"{wager.value} does not settle proportionally to its stake on {o}; "
                "no single exact house edge exists"
            )
    total = sum(outcomes.values())
    return Fraction(-sum(n * once[o] for o, n in outcomes.items()), total * unit)


def house_edges(
    outcomes: Mapping[RoundOutcome, int], rules: TableRules
) -> tuple[dict[str, Fraction], list[str]]:
    """Exact house edge of every wager ``rules`` offers (3.2(b), 4.7, 7.2), and notes.

    Under 3.3(e)2 the Banker wager is charged vigorish unless the same seat's total-card wagers
    are at least the Banker wager, so it has no single edge: ``BANKER`` is the uncovered wager
    and :data:`COVERED_BANKER` the covered one.
    """
    edges = {w.value: exact_edge(outcomes, rules, w) for w in _offered_in_order(rules)}
    notes: list[str] = []
    pct = f"{rules.vig_percent}%"
    if variant(rules.game).participant_bank:
        notes.append(
            f"BANKER: the patron-Banker's expected loss per unit staked after {pct} vigorish on "
            "the Banker's winnings (4.10(c)); PLAYER: a wager against the Banker, 1 to 1, void "
            "on a tie (4.7(g), 4.10(b))."
        )
    elif rules.dragon_7:
        notes.append(
            "BANKER: dragon 7 variation, no vigorish; a winning three-card Banker 7 pushes "
            "(3.2(a)6i, 3.3(h))."
        )
    elif rules.no_vig_banker_six:
        notes.append("BANKER: no vigorish; a winning Banker 6 pays 1 to 2 (3.3(e)1).")
    elif rules.tie_vig_quarter:
        notes.append(
            "BANKER: no vigorish on a win; 25% of the wager is collected on a tie (7.3(d))."
        )
    else:
        notes.append(f"BANKER: {pct} vigorish, an exact percentage of the amount won (3.3(c)).")
    if rules.no_vig_total_card_cover:
        edges[COVERED_BANKER] = exact_edge(
            outcomes, rules, Wager.BANKER, {Wager.BANKER: 1, Wager.CARDS_4: 1}
        )
        notes.append(
            "BANKER under 3.3(e)2 is not a single-number edge: no vigorish is charged when the "
            "seat's total-card wagers are at least its Banker wager. BANKER is the uncovered "
            f"wager ({pct} vigorish), {COVERED_BANKER} the covered one; the covering total-card "
            "wagers carry their own edges (CARDS_4/5/6), so a seat's overall edge depends on "
            "how it splits its stakes."
        )
    return edges, notes


# --- bet size -----------------------------------------------------------------------------


def _dollars(cents: Fraction | int) -> str:
    """``$1.25``, or ``$1.255`` when an exact amount has a fraction of a cent."""
    frac = Fraction(cents) / 100
    text = f"{Decimal(frac.numerator) / Decimal(frac.denominator):f}"
    whole, _, decimals = text.partition(".")
    return f"${whole}.{decimals.ljust(2, '0')}"


def _percent(edge: Fraction) -> str:
    return f"{float(edge) * 100:.4f}%"


@dataclass(frozen=True, slots=True)
class BetSizeNote:
    """What rounding does to the Banker edge at one real stake (3.3(c)1, 4.10(c), 7.3(c)1).

    Vigorish is computed by the rules layer's :func:`vigorish_on_win` on this stake, once
    without and once with the rounding option; every offered wager is also settled at this
    stake under the configured rules.
    """

    stake_cents: Cents
    charges_vig: bool
    vig_percent: int
    increment_cents: Cents
    exact_vig_cents: Fraction
    vig_cents_unrounded: Cents
    vig_cents_rounded: Cents
    banker_edge_exact: Fraction
    banker_edge_unrounded: Fraction
    banker_edge_rounded: Fraction
    house_edge_at_bet: dict[str, Fraction]
    note: str

    def to_json(self) -> dict[str, Any]:
        return {
            "stake_cents": self.stake_cents,
            "banker_pays_vigorish": self.charges_vig,
            "vig_percent": self.vig_percent,
            "rounding_increment_cents": self.increment_cents,
            "exact_vig_cents": str(self.exact_vig_cents),
            "vig_cents_rounding_off": self.vig_cents_unrounded,
            "vig_cents_rounding_on": self.vig_cents_rounded,
            "banker_edge_exact": float(self.banker_edge_exact),
            "banker_edge_rounding_off": float(self.banker_edge_unrounded),
            "banker_edge_rounding_on": float(self.banker_edge_rounded),
            "banker_edge_rounding_off_exact": str(self.banker_edge_unrounded),
            "banker_edge_rounding_on_exact": str(self.banker_edge_rounded),
            "house_edge_at_bet": {w: float(e) for w, e in self.house_edge_at_bet.items()},
            "house_edge_at_bet_exact": {w: str(e) for w, e in self.house_edge_at_bet.items()},
            "note": self.note,
        }


def bet_size_note(
    outcomes: Mapping[RoundOutcome, int], rules: TableRules, stake_cents: Cents
) -> BetSizeNote:
    """How rounding would change the Banker edge for a ``stake_cents`` Banker wager."""
    if stake_cents <= 0:
        raise ValueError(f"the bet size must be a positive number of cents, got {stake_cents}")
    off, on = replace(rules, vig_rounding=False), replace(rules, vig_rounding=True)
    exact_vig = Fraction(stake_cents * rules.vig_percent, 100)
    vig_off, vig_on = vigorish_on_win(off, stake_cents), vigorish_on_win(on, stake_cents)
    exact = exact_edge(outcomes, rules, Wager.BANKER)
    edge_off = edge_at_stake(outcomes, off, Wager.BANKER, stake_cents)
    edge_on = edge_at_stake(outcomes, on, Wager.BANKER, stake_cents)
    at_bet = {
        w.value: edge_at_stake(outcomes, rules, w, stake_cents) for w in _offered_in_order(rules)
    }
    charges = rules.charges_banker_vig
    bet = _dollars(stake_cents)
    configured = "chosen" if rules.vig_rounding else "not chosen"
    if not charges:
        note = (
            f"No vigorish is charged on a winning Banker wager under these rules, so the "
            f"rounding option does not apply; at a {bet} bet the Banker edge is "
            f"{_percent(at_bet['BANKER'])} (exact: {_percent(exact)})."
        )
    else:
        section = rule(code_for(rules.game, "vig_rounding")).citation
        inc = on.vig_increment_cents
        parts = [f"At a {bet} Banker wager, {rules.vig_percent}% vigorish on the win is exactly "
                 f"{_dollars(exact_vig)}."]  # fmt: skip
        if vig_off == exact_vig == vig_on:
            parts.append(
                f" That is a whole multiple of {inc}c, so rounding up under {section} leaves "
                f"it at {_dollars(vig_on)} and the Banker edge is {_percent(edge_on)} with or "
                "without the rounding option."
            )
        else:
            if vig_off != exact_vig:
                parts.append(
                    f" Without the rounding option the fraction of a cent is dropped and "
                    f"{_dollars(vig_off)} is collected: Banker edge {_percent(edge_off)}."
                )
            else:
                parts.append(f" Without rounding: Banker edge {_percent(edge_off)}.")
            parts.append(
                f" Rounding up to a multiple of {inc}c under {section} collects "
                f"{_dollars(vig_on)} instead, which changes the Banker edge at this bet from "
                f"{_percent(exact)} (exact percentage) to {_percent(edge_on)}."
            )
        if rules.no_vig_total_card_cover:
            parts.append(" This is the uncovered Banker wager; a covered one pays none (3.3(e)2).")
        parts.append(f" (The rounding option is {configured} in these rules.)")
        note = "".join(parts)
    return BetSizeNote(
        stake_cents=stake_cents,
        charges_vig=charges,
        vig_percent=rules.vig_percent,
        increment_cents=on.vig_increment_cents,
        exact_vig_cents=exact_vig,
        vig_cents_unrounded=vig_off,
        vig_cents_rounded=vig_on,
        banker_edge_exact=exact,
        banker_edge_unrounded=edge_off,
        banker_edge_rounded=edge_on,
        house_edge_at_bet=at_bet,
        note=note,
    )


# --- variants -----------------------------------------------------------------------------


def variant_rules() -> dict[str, TableRules]:
    """A catalogue of legal rule configurations, one per wager family or Banker variation,
    each validated by :func:`~pipeline.rules.config.validated`."""
    pb, mini = Game.PUNTO_BANCO, Game.MINIBACCARAT

    def make(rules_id: str, game: Game = pb, **changes: Any) -> TableRules:
        return validated(TableRules(rules_id, game, **changes))

    catalogue = {
        "3.3(c) 5% vigorish": make("oracle-vig5"),
        "3.3(c) 4% vigorish": make("oracle-vig4", vig_percent=4),
        "3.3(e)1 Banker 6 pays 1 to 2, no vigorish": make("oracle-e1", no_vig_banker_six=True),
        "3.3(e)2 no vigorish when covered by total-card wagers": make(
            "oracle-e2", total_card_wagers=True, no_vig_total_card_cover=True
        ),
        "3.3(f) total-card wagers": make("oracle-total-cards", total_card_wagers=True),
    }
    for table in Paytable:
        catalogue[f"3.3(g) bonus wager, Paytable {table.value}"] = make(
            f"oracle-bonus-{table.value}", bonus_paytable=table
        )
    catalogue["3.3(h)-(i) dragon 7"] = make("oracle-dragon-7", dragon_7=True)
    catalogue["7.3(d) Minibaccarat 25% tie vigorish"] = make(
        "oracle-mini-tie-vig", mini, tie_vig_quarter=True, vig_deferral=False
    )
    return catalogue


@dataclass(frozen=True, slots=True)
class VariantEdges:
    rules: TableRules
    house_edge: dict[str, Fraction]
    notes: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "rules_id": self.rules.rules_id,
            "game": self.rules.game.value,
            "house_edge": {w: float(e) for w, e in self.house_edge.items()},
            "house_edge_exact": {w: str(e) for w, e in self.house_edge.items()},
            "notes": self.notes,
        }


# --- the report ---------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _cached_outcomes(
    counts: tuple[int, ...], game: Game, options: Options
) -> tuple[tuple[RoundOutcome, int], ...]:
    return tuple(sorted(outcome_counts(counts, game, options).items(), key=_outcome_key))


def clear_cache() -> None:
    """Forget cached enumerations (for benchmarks that time a cold :func:`odds`)."""
    _cached_outcomes.cache_clear()


def _outcome_key(item: tuple[RoundOutcome, int]) -> tuple[int, int, int, int]:
    o = item[0]
    return (o.player_cards, o.banker_cards, o.player_points, o.banker_points)


def _distribution(decks: int, game: Game, options: Options) -> OutcomeCounts:
    return dict(_cached_outcomes(shoe_counts(decks), game, options))


@dataclass(frozen=True, slots=True)
class OddsReport:
    """Exact counts and house edges for one shoe size and rule configuration."""

    decks: int
    rules: TableRules
    options: Options
    shoe: tuple[int, ...]
    total: int
    outcomes: dict[RoundOutcome, int]
    counts: dict[str, int]
    house_edge: dict[str, Fraction]
    notes: list[str]
    bet: BetSizeNote
    variants: dict[str, VariantEdges] = field(default_factory=dict)

    def probability(self, count_name: str) -> Fraction:
        return Fraction(self.counts[count_name], self.total)

    @property
    def total_formula(self) -> str:
        n = sum(self.shoe)
        return "·".join(str(n - i) for i in range(CARDS_PER_ROUND_MAX))

    def to_json(self) -> dict[str, Any]:
        """The JSON document: ``decks``, ``total``, ``counts``, ``house_edge`` (floats) plus
        exact fractions, probabilities, the bet-size note and the full joint distribution."""
        doc: dict[str, Any] = {
            "decks": self.decks,
            "game": self.rules.game.value,
            "rules_id": self.rules.rules_id,
            "draw_rules": variant(self.rules.game).draw_rules,
            "total": self.total,
            "total_formula": self.total_formula,
            "weighting": (
                "counts are ordered six-card sequences; a deal using k cards is weighted by the "
                "(N-k)!/(N-6)! ways to fill the remaining 6-k positions"
            ),
            "shoe": {str(v): n for v, n in enumerate(self.shoe)},
            "counts": dict(self.counts),
            "probabilities": {k: float(self.probability(k)) for k in self.counts},
            "house_edge": {w: float(e) for w, e in self.house_edge.items()},
            "house_edge_exact": {w: str(e) for w, e in self.house_edge.items()},
            "house_edge_notes": list(self.notes),
            "bet_size": self.bet.to_json(),
            "outcomes": [
                {
                    "player_points": o.player_points,
                    "banker_points": o.banker_points,
                    "player_cards": o.player_cards,
                    "banker_cards": o.banker_cards,
                    "count": n,
                }
                for o, n in self.outcomes.items()
            ],
        }
        if variant(self.rules.game).hand_options:
            doc["options"] = {
                "player_draws_on_5": self.options.player_draws_on_5,
                "banker_draws_on_option": self.options.banker_draws_on_option,
            }
        if self.variants:
            doc["variants"] = {name: v.to_json() for name, v in self.variants.items()}
        return doc

    def render_text(self) -> str:
        """A human-readable rendering of the report."""
        game = self.rules.game.value.replace("_", " ").title()
        lines = [
            f"Exact odds: {game}, {self.decks} deck{'s' if self.decks != 1 else ''}, rules "
            f"{self.rules.rules_id!r}, draws by {variant(self.rules.game).draw_rules}",
        ]
        if self.decks < MINIMUM_DECKS:
            lines.append(
                f"  (fewer than the {MINIMUM_DECKS} decks N.J.A.C. 19:47-3.1(a) requires; "
                "for cross-checking only)"
            )
        if variant(self.rules.game).hand_options:
            o = self.options
            lines.append(
                f"  options: Player {'draws' if o.player_draws_on_5 else 'stays'} on 5 "
                f"(4.9(a)2); Banker {'draws' if o.banker_draws_on_option else 'stays'} on "
                "Op. (4.9(f))"
            )
        lines += [
            f"Ordered six-card sequences: {self.total_formula} = {self.total:,}",
            "  (a deal using k cards counts the (N-k)!/(N-6)! ways to fill the other positions)",
            "",
            f"{'count':<34}{'sequences':>26}  {'probability':>12}",
        ]
        for name, n in self.counts.items():
            lines.append(f"{name:<34}{n:>26,}  {float(n) / self.total:>12.9f}")
        lines += ["", "House edge (patron's expected loss per unit staked, voids included)"]
        for wager, edge in self.house_edge.items():
            lines.append(f"  {wager:<24}{_percent(edge):>10}   = {edge}")
        lines += [f"  note: {n}" for n in self.notes]
        lines += ["", f"Rounding at a {_dollars(self.bet.stake_cents)} bet:", f"  {self.bet.note}"]
        lines.append("  Every offered wager settled at this bet under the configured rules:")
        for wager, edge in self.bet.house_edge_at_bet.items():
            lines.append(f"    {wager:<22}{_percent(edge):>10}")
        if self.variants:
            lines += ["", "Other rule configurations, same shoe:"]
            for name, v in self.variants.items():
                edges = ", ".join(f"{w} {_percent(e)}" for w, e in v.house_edge.items())
                lines.append(f"  {name}: {edges}")
        return "\n".join(lines) + "\n"


def odds(
    decks: int,
    rules: TableRules,
    *,
    options: Options | None = None,
    bet_cents: Cents = DEFAULT_BET_CENTS,
    variants: bool = False,
) -> OddsReport:
    """Exact odds of one round from a full shoe of ``decks`` decks, dealt without replacement.

    Every ordered deal is enumerated by card value with exact removal effects, under the draw
    rules of ``rules.game`` (N.J.A.C. 19:47-3.9 Tables 1 and 2 for Punto Banco, 7.9 for
    Minibaccarat, 4.9(a) and Table 3 for Chemin de Fer with ``options`` choosing what the hands
    do on an option, 4.9(a)2 and 4.9(f)).

    Weighting: a deal that ends after ``k`` cards is weighted by ``(N-k)!/(N-6)!``, the number
    of ways to fill the remaining ``6-k`` positions of a six-card sequence (``N = 52 *
    decks``), so every count is a number of ordered six-card sequences and the total is
    ``N (N-1) (N-2) (N-3) (N-4) (N-5)``: 416·415·414·413·412·411 for eight decks.

    ``decks`` may be below the regulation's six (3.1(a)) for cross-checking; ``rules.decks`` is
    not consulted. ``bet_cents`` is the stake of the rounding note; ``variants`` adds the edges
    of :func:`variant_rules` computed on the same shoe.
    """
    opts = options if options is not None else Options()
    shoe = shoe_counts(decks)
    outcomes = _distribution(decks, rules.game, opts)
    total = total_sequences(shoe)
    if sum(outcomes.values()) != total:
        raise ArithmeticError(f"outcome counts add to {sum(outcomes.values())}, not {total}")
    edges, notes = house_edges(outcomes, rules)
    extra: dict[str, VariantEdges] = {}
    if variants:
        for name, variant in variant_rules().items():
            dist = _distribution(decks, variant.game, opts)
            v_edges, v_notes = house_edges(dist, variant)
            extra[name] = VariantEdges(variant, v_edges, v_notes)
    return OddsReport(
        decks=decks,
        rules=rules,
        options=opts,
        shoe=shoe,
        total=total,
        outcomes=outcomes,
        counts=derive_counts(outcomes),
        house_edge=edges,
        notes=notes,
        bet=bet_size_note(outcomes, rules, bet_cents),
        variants=extra,
    )


PARTITIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("winner", ("banker_win", "player_win", "tie")),
    ("total cards", ("cards_4", "cards_5", "cards_6")),
    ("dragon 7", ("dragon_7", "banker_win_not_dragon_7", "player_win", "tie")),
    ("banker 6", ("banker_win_6", "banker_win_not_6", "player_win", "tie")),
    *(
        (f"{side} bonus lines", tuple(f"{side}_bonus_{line}" for line in BONUS_LINES))
        for side in ("player", "banker")
    ),
)
"""Named groups of counts that each partition every outcome, so each adds up to the total."""
