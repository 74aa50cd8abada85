"""False-shuffle (slug) search: N.J.A.C. 19:47-3.5(a)1, 4.4(a)1 and 7.5(a) require the cards of
every shoe to be "randomly intermixed"; PB-3.5a1-SLUG, CF-4.4a1-SLUG and MB-7.5a-SLUG report a
run of cards a shoe dealt in the order an earlier shoe of its pit dealt them."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import date
from fractions import Fraction

import duckdb
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.ledger.pattern_inputs import FACE_SQL
from pipeline.patterns import slugs
from pipeline.patterns.chance import GRAM, any_run_probability, run_probability
from pipeline.patterns.slugs import (
    Bet,
    DealtCard,
    ShoeDeal,
    face,
    find_slugs,
    slug_finding,
)
from pipeline.rules.cards import RANKS, SUITS
from pipeline.rules.codes import PATTERN_CODES, code_for
from pipeline.rules.games import Game

RATE = 1e-6
DAY = date(2026, 11, 24)
DECK = [(r.name, s.name) for r in RANKS for s in SUITS]


def shuffled(rng: random.Random, decks: int = 8) -> list[tuple[str, str]]:
    cards = DECK * decks
    rng.shuffle(cards)
    return cards


def shoe(
    shoe_id: str,
    cards: list[tuple[str, str]],
    *,
    table: str = "T01",
    pit: str | None = "PIT-1",
    started_at: int = 0,
    game: Game = Game.PUNTO_BANCO,
    dealt: int = 340,
    skip: frozenset[int] = frozenset(),
) -> ShoeDeal:
    """A shoe that dealt its first ``dealt`` cards; positions in ``skip`` are cards the
    ledger lacks."""
    held = [i for i in range(min(dealt, len(cards))) if i not in skip]
    return ShoeDeal(
        table_id=table,
        pit=pit,
        game=game,
        shoe_id=shoe_id,
        gaming_date=DAY,
        started_at=started_at,
        cards_in_shoe=len(cards),
        positions=np.array(held, np.int64),
        faces=np.array([face(*cards[i]) for i in held], np.int64),
    )


def cited(deal: ShoeDeal, positions: npt.NDArray[np.int64], per_round: int = 5) -> list[DealtCard]:
    """The cards at ``positions`` as the stage reads them to cite a slug: ``per_round`` to a
    round after a burn of ``per_round``."""
    names = [(r.name, s.name) for r in RANKS for s in SUITS]
    at = {int(p): int(f) for p, f in zip(deal.positions, deal.faces, strict=True)}
    return [
        DealtCard(
            int(p),
            *names[at[int(p)]],
            None if p < per_round else f"{deal.shoe_id}-R{p // per_round:03d}",
            f"{deal.shoe_id}-E{p}",
        )
        for p in positions
    ]


def with_slug(
    rng: random.Random, source: list[tuple[str, str]], start: int, length: int, at: int
) -> list[tuple[str, str]]:
    """A fresh shuffle into which ``source[start:start+length]`` is put unshuffled at ``at``
    (one copy of each of its cards taken out first, so the shoe still holds 8 decks)."""
    slug = source[start : start + length]
    rest = shuffled(rng)
    for card in slug:
        rest.remove(card)
    return rest[:at] + slug + rest[at:]


def test_a_slug_carried_into_the_next_shoe_is_found_with_its_positions() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): 20 cards of S01, dealt again in S02, are one
    run at the positions they were put, naming the earlier shoe."""
    rng = random.Random(1)
    first = shuffled(rng)
    second = with_slug(rng, first, 100, 20, 60)
    slugs = find_slugs(
        [shoe("S02", second, started_at=2)], [shoe("S01", first, started_at=1)], RATE
    )
    assert len(slugs) == 1
    found = slugs[0]
    assert found.earlier.shoe_id == "S01"
    assert found.length >= 20  # a neighbour may match by chance, never fewer
    assert found.positions[0] <= 60 < 80 <= found.positions[-1] + 1
    assert found.earlier_positions[0] == found.positions[0] + 40
    assert list(found.faces) == [face(*second[p]) for p in found.positions]
    assert list(found.faces) == [face(*first[p]) for p in found.earlier_positions]
    assert found.chance_bound <= RATE


def test_clean_shoes_of_a_busy_pit_raise_nothing() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): 60 properly shuffled shoes of three tables of a
    pit: the runs they share by chance are never reported."""
    rng = random.Random(7)
    shoes = [
        shoe(f"T0{t}-S{n:02d}", shuffled(rng), table=f"T0{t}", started_at=10 * n + t)
        for n in range(20)
        for t in range(1, 4)
    ]
    assert find_slugs(shoes[30:], shoes[:30], RATE) == []


def test_every_maximal_run_is_reported_once_even_when_it_repeats_inside() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): two slugs of S01 in S02 are two findings, and
    a run holding the same cards twice is still one finding (not one per indexed run)."""
    rng = random.Random(3)
    first = shuffled(rng)
    first[200:210] = first[100:110]  # S01 holds a 10-card stretch twice; the slug covers one
    second = with_slug(rng, first, 95, 25, 30)
    third = second[:200] + first[250:280] + second[230:]
    slugs = find_slugs([shoe("S02", third, started_at=2)], [shoe("S01", first, started_at=1)], RATE)
    spans = sorted((int(s.positions[0]), int(s.earlier_positions[0]), s.length) for s in slugs)
    long = [(a, b, n) for a, b, n in spans if n >= 20]
    assert [b - a for a, b, _ in long] == [65, 50]  # the two slugs, each on its own diagonal
    assert long[0][0] <= 30 and long[0][0] + long[0][2] >= 55
    assert long[1][0] <= 200 and long[1][0] + long[1][2] >= 230
    # the rest: S01's stretch dealt twice, matched again on its second diagonal, once
    assert [(b - a, n) for a, b, n in spans if n < 20] == [(165, 10)]


def test_other_tables_and_other_pits_are_searched() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): cards from T02's shoe dealt in T01's later
    shoe are found when both tables are in one pit, and when T02 is in another pit (a slug
    carried across the property). A search kept to the pits (the stream's, as shoes end)
    finds the first and not the second."""
    rng = random.Random(5)
    other = shuffled(rng)
    mine = with_slug(rng, other, 10, 22, 120)
    new = [shoe("T01-S01", mine, started_at=5)]
    same_pit = [shoe("T02-S01", other, table="T02", started_at=1)]
    other_pit = [shoe("T02-S01", other, table="T02", pit="PIT-2", started_at=1)]
    for earlier in (same_pit, other_pit):
        found = find_slugs(new, earlier, RATE)
        assert [(s.earlier.table_id, s.earlier.shoe_id, s.length) for s in found] == [
            ("T02", "T02-S01", 22)
        ]
    assert len(find_slugs(new, same_pit, RATE, across_pits=False)) == 1
    assert find_slugs(new, other_pit, RATE, across_pits=False) == []


def test_a_slug_across_pits_needs_no_more_cards_than_the_property_holds() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): a 14-card run carried from a Minibaccarat
    pit's shoe into a Punto Banco pit's is found among a week of other shoes, and the bound
    it is reported at counts every pair of positions of the property's shoes."""
    rng = random.Random(14)
    source = shuffled(rng)
    others = [
        shoe(
            f"T{t:02d}-S{n:02d}",
            shuffled(rng),
            table=f"T{t:02d}",
            pit=f"PIT-{t % 3}",
            started_at=10 * n + t,
        )
        for t in range(3, 9)
        for n in range(1, 6)
    ]
    carried = shoe("T02-S01", source, table="T02", pit="MINI", game=Game.MINIBACCARAT, started_at=2)
    mine = shoe("T01-S09", with_slug(rng, source, 40, 14, 200), pit="PIT-1", started_at=999)
    found = find_slugs([mine], [carried, *others], RATE)
    assert [(s.earlier.shoe_id, s.length) for s in found] == [("T02-S01", 14)]
    cards = sum(len(s.faces) for s in (carried, *others))
    assert found[0].pairs == len(mine.faces) * cards
    assert found[0].chance_bound <= RATE / 2


def test_only_an_earlier_shoe_is_repeated_and_a_later_one_is_not_blamed() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): the slug is reported on the shoe that dealt
    the cards again, never on the shoe it was taken from, even when both are searched."""
    rng = random.Random(11)
    first = shuffled(rng)
    second = with_slug(rng, first, 0, 20, 200)
    both = [shoe("S01", first, started_at=1), shoe("S02", second, started_at=2)]
    assert [(s.shoe.shoe_id, s.earlier.shoe_id) for s in find_slugs(both, [], RATE)] == [
        ("S02", "S01")
    ]


def test_a_run_never_spans_a_card_the_ledger_lacks() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): a missing card (a data gap) splits a run: 24
    repeated cards with the 12th unseen are not one 24-card run."""
    rng = random.Random(13)
    first = shuffled(rng)
    second = with_slug(rng, first, 40, 24, 100)
    slugs = find_slugs(
        [shoe("S02", second, started_at=2, skip=frozenset({111}))],
        [shoe("S01", first, started_at=1)],
        1e-9,
    )
    assert all(s.positions[-1] < 111 or s.positions[0] > 111 for s in slugs)
    assert all(s.length < 24 for s in slugs)


def test_the_exact_probability_is_the_product_of_copies_left_over_cards_left() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): P(L given positions hold a run) =
    prod m_i/(N-i), with m_i the copies of the i-th card left (checked with fractions), and
    the bound over any run is the all-distinct case."""
    run = [("ACE", "SPADES"), ("ACE", "SPADES"), ("TWO", "HEARTS")]
    exact = Fraction(8, 416) * Fraction(7, 415) * Fraction(8, 414)
    assert run_probability(run, 416, 8) == pytest.approx(float(exact), rel=1e-12)
    assert any_run_probability(3, 416) == pytest.approx(
        float(Fraction(8, 416) * Fraction(8, 415) * Fraction(8, 414)), rel=1e-12
    )
    assert run_probability([("ACE", "SPADES")] * 9, 416, 8) == 0.0  # 9 copies of 8: impossible
    # one card fewer (a card missing from the shoe): at most ceil(415/52) = 8 copies
    assert any_run_probability(1, 415) == pytest.approx(8 / 415)


def test_the_false_alarm_rate_is_what_decides_the_length_reported() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): a repeated run is reported exactly when its
    bound (pairs compared times the chance of one pair) is at most the configured rate."""
    rng = random.Random(17)
    first = shuffled(rng)
    pairs = 340 * 340
    shortest = next(n for n in range(GRAM, 40) if pairs * any_run_probability(n, 416) <= RATE)
    for length, reported in ((shortest - 1, False), (shortest, True)):
        second = with_slug(rng, first, 150, length, 90)
        # cut the run out cleanly: the cards around it must not extend it by chance
        slugs = [
            s
            for s in find_slugs(
                [shoe("S02", second, started_at=2)], [shoe("S01", first, started_at=1)], RATE
            )
            if s.positions[0] <= 90 + length
        ]
        assert bool(slugs) is reported or slugs[0].length > length


@pytest.mark.parametrize("rate", [0.0, -1e-9, 1e-5, math.nan])
def test_a_rate_the_search_cannot_honour_is_refused(rate: float) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): a rate above 1e-6 would need runs shorter than
    the indexed ones; zero or negative would report nothing: both refused, saying why."""
    with pytest.raises(ValueError, match="false-alarm rate"):
        find_slugs([], [], rate)


@pytest.mark.parametrize("game", list(Game))
def test_the_finding_cites_the_game_names_rounds_and_bets_and_accuses_no_one(game: Game) -> None:
    """PB-3.5a1-SLUG, CF-4.4a1-SLUG, MB-7.5a-SLUG (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)):
    one code per game; the message names both shoes and positions, the rounds dealt from the
    slug and every wager on them, the false-alarm rate, and asks for a review, not a name."""
    rng = random.Random(19)
    first = shuffled(rng)
    second = with_slug(rng, first, 100, 20, 60)
    new = shoe("S02", second, started_at=2, game=game)
    bets = {
        "S02-R012": [Bet("S02-R012", 3, "PAT-000123", "BANKER", 50_000, "WIN", 47_500)],
        "S02-R013": [Bet("S02-R013", 5, None, "PLAYER", 10_000, "LOSE", 0)],
    }
    (slug,) = find_slugs([new], [shoe("S01", first, started_at=1, game=game)], RATE)
    finding = slug_finding(
        slug,
        cited(slug.shoe, slug.positions),
        cited(slug.earlier, slug.earlier_positions),
        bets,
        RATE,
    )
    assert finding.code == code_for(game, "false_shuffle")
    assert finding.code in PATTERN_CODES
    assert (
        finding.section
        == {
            Game.PUNTO_BANCO: "N.J.A.C. 19:47-3.5(a)1",
            Game.CHEMIN_DE_FER: "N.J.A.C. 19:47-4.4(a)1",
            Game.MINIBACCARAT: "N.J.A.C. 19:47-7.5(a)",
        }[game]
    )
    assert finding.table_id == "T01" and finding.shoe_id == "S02"
    assert finding.round_id == "S02-R012"
    text = finding.message
    assert "shoe S01" in text and "Shoe S02" in text
    assert "S02-R012: seat 3 (PAT-000123) BANKER $500.00, won $475.00" in text
    assert "S02-R013: seat 5 (no patron id) PLAYER $100.00, lost" in text
    assert "1e-06 per shoe" in text
    assert "Review the shuffle" in text
    assert finding.patron_id is None
    assert finding.actual_cents == 60_000
    assert set(finding.event_ids) >= {f"S02-E{p}" for p in range(60, 80)}
    assert set(finding.event_ids) >= {f"S01-E{p}" for p in range(100, 120)}
    for accusing in ("cheat", "collu", "guilty", "dealer"):
        assert accusing not in text.lower()


def test_shoes_numbered_afresh_each_day_are_different_shoes() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): a table whose shoe ids restart every day
    (S01 on both days) keeps both shoes apart, and a slug of yesterday's S01 in today's S01
    is found."""
    rng = random.Random(23)
    yesterday = shuffled(rng)
    today = with_slug(rng, yesterday, 70, 22, 150)
    old = replace(shoe("S01", yesterday, started_at=1), gaming_date=date(2026, 11, 23))
    (found,) = find_slugs([shoe("S01", today, started_at=2)], [old], RATE)
    assert found.earlier.gaming_date == date(2026, 11, 23)
    assert found.shoe.gaming_date == DAY


def test_the_ledger_reads_the_same_faces_as_the_search() -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): the stage numbers cards in SQL (FACE_SQL) as
    :func:`face` does: 52 distinct faces, and -1 for a card nobody can name."""
    cards: list[tuple[str, str | None]] = [*DECK, ("JOKER", "SPADES"), ("ACE", "STARS")]
    cards.append(("ACE", None))
    con = duckdb.connect()
    con.execute("CREATE TABLE cards (rank VARCHAR, suit VARCHAR)")
    con.executemany("INSERT INTO cards VALUES (?, ?)", cards)
    in_sql = [row[0] for row in con.execute(f"SELECT {FACE_SQL} FROM cards").fetchall()]
    assert in_sql == [face(r, s or "") for r, s in cards[:-1]] + [-1]
    assert sorted(in_sql[:52]) == list(range(52)) and in_sql[52:] == [-1, -1, -1]


@pytest.mark.parametrize("seed", range(5))
def test_the_index_holds_each_shoe_as_its_own_codes(seed: int) -> None:
    """N.J.A.C. 19:47-3.5(a)1: the index of many shoes, built at once, holds each shoe's cards
    as the shoe alone gives them (a gap where its positions skip or a card has no face, one
    after each shoe), so a run is found in a window of thousands of shoes as in one."""
    rng = random.Random(seed)
    shoes = [
        shoe(
            f"S{n}",
            shuffled(rng, decks=1),
            dealt=rng.randrange(0, 52),
            skip=frozenset(rng.sample(range(52), rng.randrange(0, 6))),
        )
        for n in range(rng.randrange(1, 8))
    ]
    shoes[0] = replace(shoes[0], faces=np.where(shoes[0].faces % 7 == 0, -1, shoes[0].faces))
    index = slugs._PitIndex(shoes)
    alone = [slugs._codes(s, slugs._GAP) for s in shoes]
    gap = np.array([-1], np.int64)
    codes = np.concatenate([part for c, _ in alone for part in (c, gap)])
    cards = np.concatenate([part for _, a in alone for part in (a, gap)])
    assert index.codes.tolist() == codes.tolist()
    assert index.card_at.tolist() == cards.tolist()
    assert index.owner.tolist() == [n for n, (c, _) in enumerate(alone) for _ in range(len(c) + 1)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(-1, 5), max_size=14), min_size=1, max_size=5),
    st.lists(st.integers(-1, 5), max_size=14),
)
def test_the_index_finds_every_position_holding_each_run_in_order(
    shoes_faces: list[list[int]], searched_faces: list[int]
) -> None:
    """N.J.A.C. 19:47-3.5(a)1: the index's look-up of a day's runs (a table of them, the
    window's runs never sorted) gives, run by run, every position of the index whose next
    GRAM cards are that run, in the index's order; a few faces (-1: a card nobody can name)
    make runs repeat often."""
    shoes = [
        replace(
            shoe(f"S{n}", []),
            positions=np.arange(len(faces), dtype=np.int64),
            faces=np.array(faces, np.int64),
        )
        for n, faces in enumerate(shoes_faces)
    ]
    index = slugs._PitIndex(shoes)
    searched = replace(
        shoe("N", []),
        positions=np.arange(len(searched_faces), dtype=np.int64),
        faces=np.array(searched_faces, np.int64),
    )
    searched_codes = slugs._codes(searched, slugs._NEW_GAP)[0]
    grams, starts = slugs._grams(searched_codes)
    runs = [searched_codes[start : start + GRAM].tolist() for start in starts]
    codes = index.codes.tolist()
    held = [
        (which, at)
        for which, run in enumerate(runs)
        for at in range(len(codes) - GRAM + 1)
        if codes[at : at + GRAM] == run
    ]
    assert all(min(run) >= 0 for run in runs)
    which, there = index.hits(grams)
    assert list(zip(which.tolist(), there.tolist(), strict=True)) == held


def pairwise_slugs(
    new: list[ShoeDeal], earlier: list[ShoeDeal], rate: float
) -> set[tuple[str, int, str, int, int, int]]:
    """The reference: every new shoe compared card by card with every shoe started before
    it, a maximal run kept at half the rate over the pairs of positions of its pit's earlier
    shoes (the same pit) or of the property's (another pit)."""
    everyone = sorted({s.key: s for s in [*earlier, *new]}.values(), key=lambda s: s.started_at)
    found = set()
    for number, mine in enumerate(everyone):
        if mine not in new:
            continue
        before = everyone[:number]
        codes, card_at = slugs._codes(mine, slugs._NEW_GAP)
        for other in before:
            same_pit = other.scope == mine.scope
            cards = sum(len(o.faces) for o in before if not same_pit or o.scope == mine.scope)
            pairs = len(mine.faces) * cards
            theirs, their_card_at = slugs._codes(other, slugs._GAP)
            for i in range(len(codes)):
                for j in range(len(theirs)):
                    if i and j and codes[i - 1] == theirs[j - 1]:
                        continue  # inside a longer run
                    length = 0
                    while (
                        i + length < len(codes)
                        and j + length < len(theirs)
                        and codes[i + length] == theirs[j + length]
                    ):
                        length += 1
                    if (
                        length >= GRAM
                        and pairs * any_run_probability(length, mine.cards_in_shoe) <= rate / 2
                    ):
                        found.add(
                            (
                                mine.shoe_id,
                                int(card_at[i]),
                                other.shoe_id,
                                int(their_card_at[j]),
                                length,
                                pairs,
                            )
                        )
    return found


@pytest.mark.parametrize("seed", range(3))
def test_one_index_finds_what_every_pair_of_shoes_compared_finds(seed: int) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): the search of the pits and of the property,
    both looked up in one index, finds exactly the runs that comparing every new shoe with
    every earlier shoe card by card finds, each with the pairs of positions of its own
    search (the pit's or the property's), the runs of each pit before those across pits;
    kept to the pits, it finds the runs within them alone."""
    rng = random.Random(seed)
    sources = [shuffled(rng, decks=1) for _ in range(4)]
    earlier = [
        shoe(f"E{n}", cards, table=f"T0{n}", pit=f"PIT-{n % 2}", started_at=n, dealt=52)
        for n, cards in enumerate(sources)
    ]
    new = []
    for n in range(4):
        cards = shuffled(rng, decks=1)
        source = sources[rng.randrange(4)]
        start, length = rng.randrange(0, 20), rng.randrange(14, 24)
        cards = [c for c in cards if c not in source[start : start + length]]
        cards[10:10] = source[start : start + length]
        new.append(
            shoe(f"N{n}", cards, table=f"T0{n}", pit=f"PIT-{n % 2}", started_at=10 + n, dealt=52)
        )
    rate = RATE
    found = find_slugs(new, earlier, rate)
    assert {
        (s.shoe.shoe_id, s.start, s.earlier.shoe_id, s.earlier_start, s.length, s.pairs)
        for s in found
    } == pairwise_slugs(new, earlier, rate)
    assert len(found) >= 4
    same_pit = [s.earlier.scope == s.shoe.scope for s in found]
    assert same_pit == sorted(same_pit, reverse=True)
    assert [s.shoe.scope for s in found if s.earlier.scope == s.shoe.scope] == sorted(
        s.shoe.scope for s in found if s.earlier.scope == s.shoe.scope
    )
    assert [(s.shoe.key, s.start) for s in find_slugs(new, earlier, rate, across_pits=False)] == [
        (s.shoe.key, s.start) for s in found if s.earlier.scope == s.shoe.scope
    ]
