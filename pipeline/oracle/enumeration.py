"""Exact enumeration of every deal from the front of a full shoe, by card value.

What is counted
---------------
A shoe of ``decks`` decks holds ``N = 52 * decks`` distinct cards. A round never uses more than
six of them (two cards per hand plus at most one more each, N.J.A.C. 19:47-3.7(c), 3.8(d)), so
the sample space is the set of *ordered sequences of six distinct cards* from the front of the
shoe, every one equally likely after a fair shuffle. There are

    N * (N-1) * (N-2) * (N-3) * (N-4) * (N-5)

of them: 416·415·414·413·412·411 for eight decks, 312·311·310·309·308·307 for six.

A deal that ends after ``k`` cards (4, 5 or 6) is one ordered sequence of ``k`` distinct cards;
it is the beginning of exactly ``(N-k)! / (N-6)!`` of the six-card sequences (the falling
factorial ``(N-k)(N-k-1)...(N-5)``: the ways to fill the six minus ``k`` positions nobody looks
at). Every terminal deal is weighted by that number, so every count this module returns is a
number of six-card sequences and all the counts of a partition add up to the total above. The
probability of an event is its count divided by that total, exactly.

How it is counted
-----------------
Cards are grouped by *value* 0-9 (3.1(b): tens and faces are 0, so value 0 has 16 cards per
deck and 1-9 have 4). An ordered sequence of values ``v1..vk`` stands for
``prod_v ff(c_v, m_v)`` card sequences, where ``c_v`` is how many cards of value ``v`` the shoe
holds, ``m_v`` how often ``v`` occurs in the sequence and ``ff`` the falling factorial; that is
the removal effect, kept exact. Draw decisions come from the rules layer's
:func:`~pipeline.rules.draw.player_rule` and :func:`~pipeline.rules.draw.banker_rule` (Tables 1
and 2 of 3.9 and 7.9, Table 3 and 4.9(a) for Chemin de Fer), tabulated once per call.

:func:`outcome_counts` is the fast enumeration; :func:`baseline_outcome_counts` deals every
value prefix through :func:`~pipeline.rules.deal.deal_round` itself, one card at a time, and is
the slow cross-check.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pipeline.rules.cards import RANKS, SUITS, Card, Point, Rank, Suit, card_value
from pipeline.rules.deal import InsufficientCardsError, Options, deal_round
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome

VALUES = range(10)
CARDS_PER_ROUND_MAX = 6
"""Two cards per hand plus at most one more each, N.J.A.C. 19:47-3.7(c), 3.8(d)."""

DEFAULT_OPTIONS = Options()
"""Chemin de Fer policy when none is given: draw on 5 (4.9(a)2) and on every "Op." cell."""

OutcomeCounts = dict[RoundOutcome, int]
"""Weighted number of six-card sequences per final (points, points, cards, cards)."""


def falling(n: int, k: int) -> int:
    """The falling factorial ``n (n-1) ... (n-k+1)``; 1 when ``k == 0``."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


def shoe_counts(decks: int) -> tuple[int, ...]:
    """Cards of each value 0-9 in a full shoe of ``decks`` decks (N.J.A.C. 19:47-3.1(a)-(b)).

    Built from the rules layer's ranks and :func:`card_value`: 16 zeros and 4 of each of 1-9
    per deck.
    """
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, got {decks}")
    counts = [0] * 10
    for rank in RANKS:
        counts[card_value(rank)] += len(SUITS) * decks
    return tuple(counts)


def total_sequences(counts: Sequence[int]) -> int:
    """The number of ordered six-card sequences from a shoe with these value counts."""
    return falling(sum(counts), CARDS_PER_ROUND_MAX)


def _check_counts(counts: Sequence[int]) -> list[int]:
    if len(counts) != 10 or any(c < 0 for c in counts):
        raise ValueError(f"expected ten non-negative counts for values 0-9, got {list(counts)}")
    if sum(counts) < CARDS_PER_ROUND_MAX:
        raise ValueError(
            f"a shoe of {sum(counts)} cards cannot complete every round; at least "
            f"{CARDS_PER_ROUND_MAX} are needed (N.J.A.C. 19:47-3.12(e))"
        )
    return list(counts)


def _takes(rule: Draw, option_draws: bool) -> bool:
    """Whether a hand draws under ``rule``; an "Op." cell follows the chosen policy."""
    return rule is Draw.DRAW or (rule is Draw.OPTION and option_draws)


_KIND_OFFSET = {(2, 2): 0, (2, 3): 100, (3, 2): 200, (3, 3): 300}
"""Accumulator layout: ``offset(player_cards, banker_cards) + 10 * player + banker``."""


def _player_hands(c: list[int], first: int | None) -> Iterator[tuple[int, int]]:
    """Each Player's two-card hand as ``(point count, weight)``, with ``c`` holding the cards
    left while it is yielded: unordered value pairs weighted by their two orders, or, with
    ``first``, the ordered pairs whose first card has that value."""
    for a in VALUES if first is None else (first,):
        na = c[a]
        if not na:
            continue
        c[a] = na - 1
        for b in range(a, 10) if first is None else VALUES:
            nb = c[b]
            if not nb:
                continue
            c[b] = nb - 1
            yield (a + b) % 10, (2 * na * nb if first is None and a != b else na * nb)
            c[b] = nb
        c[a] = na


def outcome_counts(
    counts: Sequence[int],
    game: Game,
    options: Options = DEFAULT_OPTIONS,
    first: int | None = None,
) -> OutcomeCounts:
    """Exact weighted counts of every final outcome, fast.

    The two-card hands are enumerated as unordered value pairs (a pair of distinct values
    arises in two orders with the same weight and result), the Player's third card and the
    Banker's third card as single values, with the remaining counts decremented as cards
    leave the shoe. A natural or two standing hands end the branch after four cards; a
    standing Player's Hand after at most five. ``options`` is the Chemin de Fer policy for
    4.9(a)2 and Table 3's "Op." cells; Punto Banco and Minibaccarat never consult it. With
    ``first`` (a card value), only the deals whose first card, the Player's (3.7(c)), has that
    value are counted: :func:`baseline_outcome_counts` with ``dealt_first=[first]``, fast.
    """
    c = _check_counts(counts)
    n = sum(c)

    # Draw decisions tabulated from the rules layer, indexed by 10 * player + banker points.
    player_draws = [
        _takes(player_rule(game, p, b), options.player_draws_on_5) for p in VALUES for b in VALUES
    ]
    banker_draws_on_stay = [
        _takes(banker_rule(game, p, b, None), options.banker_draws_on_option)
        for p in VALUES
        for b in VALUES
    ]
    banker_draws_on_third = [
        tuple(_takes(banker_rule(game, p, b, v), options.banker_draws_on_option) for v in VALUES)
        for p in VALUES
        for b in VALUES
    ]
    # (u, (b + u) % 10) for each banker two-card count b: the third card and the final count.
    banker_final = [tuple((u, (b + u) % 10) for u in VALUES) for b in VALUES]
    k23, k32, k33 = _KIND_OFFSET[2, 3], _KIND_OFFSET[3, 2], _KIND_OFFSET[3, 3]

    acc = [0] * 400
    for p, w_player in _player_hands(c, first):
        for x in VALUES:
            nx = c[x]
            if not nx:
                continue
            c[x] = nx - 1
            for y in range(x, 10):
                ny = c[y]
                if not ny:
                    continue
                c[y] = ny - 1
                w = w_player * nx * ny if x == y else 2 * w_player * nx * ny
                bk = (x + y) % 10
                pb = 10 * p + bk
                if player_draws[pb]:
                    banker_row = banker_draws_on_third[pb]
                    finals = banker_final[bk]
                    for v in VALUES:
                        nv = c[v]
                        if not nv:
                            continue
                        wv = w * nv
                        q = (p + v) % 10
                        if banker_row[v]:
                            c[v] = nv - 1
                            base = k33 + 10 * q
                            for u, final in finals:
                                nu = c[u]
                                if nu:
                                    acc[base + final] += wv * nu
                            c[v] = nv
                        else:
                            acc[k32 + 10 * q + bk] += wv
                elif banker_draws_on_stay[pb]:
                    base = k23 + 10 * p
                    for u, final in banker_final[bk]:
                        nu = c[u]
                        if nu:
                            acc[base + final] += w * nu
                else:
                    acc[pb] += w
                c[y] = ny
            c[x] = nx

    result: OutcomeCounts = {}
    for (pc, bc), offset in _KIND_OFFSET.items():
        fill = falling(n - pc - bc, CARDS_PER_ROUND_MAX - pc - bc)
        for index in range(100):
            weight = acc[offset + index]
            if weight:
                p_pts, b_pts = divmod(index, 10)
                result[RoundOutcome(Point(p_pts), Point(b_pts), pc, bc)] = weight * fill
    return result


VALUE_CARDS: tuple[Card, ...] = (
    Card(Rank.TEN, Suit.SPADES),
    *(Card(rank, Suit.SPADES) for rank in RANKS if 1 <= card_value(rank) <= 9),
)
"""One representative card per value 0-9; :func:`deal_round` only looks at values."""


def baseline_outcome_counts(
    counts: Sequence[int],
    game: Game,
    options: Options = DEFAULT_OPTIONS,
    dealt_first: Sequence[int] = (),
) -> OutcomeCounts:
    """The same counts, slowly and plainly: every value sequence is dealt by
    :func:`~pipeline.rules.deal.deal_round` itself. With ``dealt_first`` (card values), only
    the sequences that start with those cards are counted: the odds once the first cards out
    of the shoe are known (what a patron who glimpses them knows).

    Starting from four cards, a prefix the dealer cannot finish (``InsufficientCardsError``,
    "the shoe ran out") is extended by every value still in the shoe, each weighted by how many
    cards of that value remain; a prefix the dealer finishes is a terminal deal, weighted by the
    number of ways to fill the remaining positions of the six-card sequence.
    """
    remaining = _check_counts(counts)
    n = sum(remaining)
    result: OutcomeCounts = {}
    prefix: list[Card] = []
    ways = 1
    for value in dealt_first:
        if not remaining[value]:
            return result
        ways *= remaining[value]
        remaining[value] -= 1
        prefix.append(VALUE_CARDS[value])

    def extend(ways: int) -> None:
        if len(prefix) >= 4:
            try:
                deal = deal_round(game, prefix, options)
            except InsufficientCardsError:
                pass
            else:
                k = len(prefix)
                if deal.cards_used != k:
                    raise AssertionError(f"deal of {prefix} stopped after {deal.cards_used}")
                outcome = deal.outcome
                result[outcome] = result.get(outcome, 0) + ways * falling(n - k, 6 - k)
                return
        if len(prefix) == CARDS_PER_ROUND_MAX:
            raise AssertionError(f"deal_round wants more than six cards after {prefix}")
        for value in VALUES:
            left = remaining[value]
            if not left:
                continue
            remaining[value] = left - 1
            prefix.append(VALUE_CARDS[value])
            extend(ways * left)
            prefix.pop()
            remaining[value] = left

    extend(ways)
    return result
