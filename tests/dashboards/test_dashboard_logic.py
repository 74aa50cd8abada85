"""The dashboards' plain functions: chi-square, the hold model, roads, round reconstruction,
queries and the read-only snapshot."""

from __future__ import annotations

import ast
import math
from datetime import timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from dashboard_data import DAY, ledger_copy

from dashboards import alarms, ui
from dashboards import queries as q
from dashboards.reconstruct import reconstruct
from dashboards.roads import (
    BLUE,
    RED,
    bead_plate,
    bead_plate_html,
    big_road,
    derived_marks,
    derived_road,
    derived_road_html,
)
from dashboards.source import Snapshot, reader, snapshot
from dashboards.stats import chi2_sf, goodness_of_fit, hold_check, round_model
from pipeline.bundle.acks import AckJournal
from pipeline.config.catalog import load_catalog
from pipeline.ledger import day_board
from pipeline.ledger.snapshots import CopyWriter, asked_at, open_writers_folder
from pipeline.ledger.store import Ledger
from pipeline.oracle import odds
from pipeline.rules.draw import Draw
from pipeline.rules.games import Game
from tests.tampering import rows_in_the_file

# ---------------------------------------------------------------------- chi-square


@pytest.mark.parametrize("x", [0.001, 0.1, 0.5, 1.0, 2.0, 3.84, 5.0, 10.0, 25.0, 60.0])
def test_chi2_sf_matches_closed_forms(x: float) -> None:
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10, abs=1e-300)
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10, abs=1e-300)
    assert chi2_sf(x, 4) == pytest.approx((1 + x / 2) * math.exp(-x / 2), rel=1e-10)


def test_chi2_sf_edges() -> None:
    assert chi2_sf(0, 3) == 1.0
    assert chi2_sf(-1, 3) == 1.0
    assert 0 < chi2_sf(500, 2) < 1e-100
    with pytest.raises(ValueError):
        chi2_sf(1.0, 0)


def test_goodness_of_fit_by_hand() -> None:
    fit = goodness_of_fit([10, 20, 30], [1 / 3, 1 / 3, 1 / 3])
    assert fit.statistic == pytest.approx(10.0)
    assert fit.df == 2
    assert fit.p_value == pytest.approx(math.exp(-5))
    assert goodness_of_fit([0, 0], [0.5, 0.5]).p_value == 1.0


# ---------------------------------------------------------------------- the hold model


def test_round_model_means_are_the_oracle_house_edges() -> None:
    catalog = load_catalog()
    for rules in catalog.values():
        model = round_model(rules)
        report = odds(rules.decks, rules)
        for wager, edge in report.house_edge.items():
            if wager in model.mean:
                assert model.mean[wager] == pytest.approx(float(edge), rel=1e-9), wager
        assert model.p_banker + model.p_player + model.p_tie == pytest.approx(1.0)
        for (w, v), c in model.cov.items():
            assert c == pytest.approx(model.cov[(v, w)])
            if w == v:
                assert c > 0


def test_round_moments_of_opposite_even_bets_cancel_most_variance() -> None:
    model = round_model(load_catalog()["pb-5-classic"])
    _, banker_only = model.round_moments({"BANKER": 100.0})
    _, both = model.round_moments({"BANKER": 100.0, "PLAYER": 100.0})
    assert both < banker_only / 10


def test_vectorised_hold_agrees_with_the_reference_loop(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    catalog = load_catalog()
    with Ledger(db, read_only=True) as ledger:
        results = q.round_results(ledger, DAY)
    moments = alarms.round_moments(results, catalog)
    fast = alarms.hold_alarms(moments, "table").set_index("table_id")
    for table_id, group in results.groupby("table_id"):
        model = round_model(catalog[str(group["rules_id"].iloc[0])])
        per_round = []
        for _, r in group.groupby("round_id"):
            stakes = {str(w): float(a) for w, a in zip(r["wager"], r["stake_cents"], strict=True)}
            per_round.append(
                (stakes, int(r["game_win_cents"].sum()) + int(r["round_vig_cents"].iloc[0]))
            )
        check = hold_check(per_round, model)
        row = fast.loc[table_id]
        assert row["rounds"] == check.rounds
        assert row["win_cents"] == check.win_cents
        assert row["expected_hold_pct"] == pytest.approx(check.expected_hold_pct)
        assert row["low_pct"] == pytest.approx(check.interval_pct[0])  # type: ignore[index]


def test_outcome_alarms_per_table_add_up_the_shoes(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    with Ledger(db, read_only=True) as ledger:
        counts = q.outcome_counts(ledger, DAY)
    catalog = load_catalog()
    shoes = alarms.outcome_alarms(counts, catalog, "shoe")
    tables = alarms.outcome_alarms(counts, catalog, "table")
    assert len(shoes) > len(tables) == counts["table_id"].nunique()
    assert tables["rounds"].sum() == shoes["rounds"].sum() == counts["rounds"].sum()
    assert ((tables["p_bpt"] > 0) & (tables["p_bpt"] <= 1)).all()
    assert alarms.outcome_alarms(counts, {}, "table")["note"].str.contains("no exact").all()


# ---------------------------------------------------------------------- roads


def test_bead_plate_fills_columns_of_six() -> None:
    cells = bead_plate(["B", "P", "T", "B", "B", "P", "P", "TIE"])
    assert [(c.row, c.col, c.winner) for c in cells][5:] == [(5, 0, "P"), (0, 1, "P"), (1, 1, "T")]


def test_big_road_streaks_ties_and_dragon_tail() -> None:
    road = big_road(["T", "B", "B", "T", "T", "P", "B", *["P"] * 8, "B"])
    cells = [(c.row, c.col, c.winner, c.ties) for c in road]
    assert cells[:4] == [(0, 0, "B", 1), (1, 0, "B", 2), (0, 1, "P", 0), (0, 2, "B", 0)]
    player_run = cells[4:12]
    assert [(r, c) for r, c, _, _ in player_run] == [
        (0, 3),
        (1, 3),
        (2, 3),
        (3, 3),
        (4, 3),
        (5, 3),
        (5, 4),  # the dragon tail turns right along the bottom row
        (5, 5),
    ]
    assert cells[12][:3] == (0, 4, "B")


def test_big_road_turns_early_when_the_cell_below_is_taken() -> None:
    road = big_road([*["B"] * 7, "P", *["P"] * 6])
    player = [(c.row, c.col) for c in road if c.winner == "P"]
    # column 1 meets the banker tail at row 5, so it turns right at row 4
    assert player == [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (4, 2), (4, 3)]


# Streaks B B B | P P | B | P P P | B, with a tie after the second Banker (round 3).
SHOE = ["B", "B", "T", "B", "P", "P", "B", "P", "P", "P", "B"]


def test_big_eye_boy_compares_with_the_streak_to_the_left() -> None:
    marks = derived_marks(big_road(SHOE), 1)
    # starts at row 1 of streak 1 (round 6): streak 0 has a row 1 and a row 0, red; each new
    # streak compares the lengths of the two streaks before it (2 vs 3, 1 vs 2, 3 vs 1: blue);
    # in streak 3 row 1 meets streak 2's end (blue), row 2 lies past it (red).
    assert marks == [(RED, 6), (BLUE, 7), (BLUE, 8), (BLUE, 9), (RED, 10), (BLUE, 11)]


def test_small_road_and_cockroach_pig_start_later() -> None:
    # streak 2 (round 7) has no row 1, so the small road starts at row 0 of streak 3
    assert derived_marks(big_road(SHOE), 2) == [(BLUE, 8), (RED, 9), (BLUE, 10), (BLUE, 11)]
    assert derived_marks(big_road(SHOE), 3) == [(RED, 9), (RED, 10), (RED, 11)]


def test_derived_road_is_laid_out_like_the_big_road() -> None:
    cells = derived_road(big_road(SHOE), 1)
    assert [(c.row, c.col, c.colour) for c in cells] == [
        (0, 0, RED),
        (0, 1, BLUE),
        (1, 1, BLUE),
        (2, 1, BLUE),
        (0, 2, RED),
        (0, 3, BLUE),
    ]
    assert derived_road(big_road(["B", "P"]), 1) == []


def test_a_regular_shoe_is_all_red() -> None:
    # alternating single wins: every streak is as long as the ones before it
    marks = derived_marks(big_road(["B", "P"] * 6), 1)
    assert marks and {colour for colour, _ in marks} == {RED}


def test_derived_roads_refuse_an_offset_below_one() -> None:
    with pytest.raises(ValueError, match="to the left"):
        derived_marks(big_road(SHOE), 0)


def test_road_html_marks_rounds_with_exceptions_and_draws_each_derived_style() -> None:
    beads = bead_plate(["B", "P", "T"], [1, 2, 3], flagged=[False, True, False])
    html_text = bead_plate_html(beads)
    assert html_text.count('class="c x"') == 1 and "round 2, with exceptions" in html_text
    for offset, style in ((1, "ring"), (2, "dot"), (3, "slash")):
        road = derived_road_html(derived_road(big_road(SHOE), offset), offset)
        assert f'class="road derived {style}"' in road
        assert road.count('class="c"') == len(derived_marks(big_road(SHOE), offset))


def test_roads_refuse_unknown_winners() -> None:
    with pytest.raises(ValueError):
        bead_plate(["X"])


# ---------------------------------------------------------------------- reconstruction


def _deal(*cards: tuple[str, str, str]) -> list[tuple[int, str, str, str]]:
    return [(i + 1, rank, suit, hand) for i, (rank, suit, hand) in enumerate(cards)]


def test_reconstruct_shows_which_table_decided_each_draw() -> None:
    rebuilt = reconstruct(
        Game.PUNTO_BANCO,
        _deal(
            ("TWO", "CLUBS", "PLAYER"),
            ("TEN", "HEARTS", "BANKER"),
            ("THREE", "SPADES", "PLAYER"),
            ("FIVE", "DIAMONDS", "BANKER"),
            ("FOUR", "CLUBS", "PLAYER"),
            ("ACE", "HEARTS", "BANKER"),
        ),
    )
    texts = [d.text for d in rebuilt.decisions]
    assert texts == ["Table 1: Player 5 → D", "Table 2: Banker 5 vs player third card 4 → D"]
    assert all(d.agrees for d in rebuilt.decisions)
    assert (rebuilt.player_points, rebuilt.banker_points, rebuilt.winner) == (9, 6, "PLAYER")
    assert [c.short for c in rebuilt.cards] == ["2C", "TH", "3S", "5D", "4C", "AH"]
    assert rebuilt.decisions[1].citation == "N.J.A.C. 19:47-3.9(c)-(g)"


def test_reconstruct_flags_a_draw_against_table_2() -> None:
    rebuilt = reconstruct(
        Game.MINIBACCARAT,
        _deal(
            ("TWO", "CLUBS", "PLAYER"),
            ("SIX", "HEARTS", "BANKER"),
            ("THREE", "SPADES", "PLAYER"),
            ("KING", "DIAMONDS", "BANKER"),
            ("FIVE", "CLUBS", "PLAYER"),
            ("ACE", "HEARTS", "BANKER"),
        ),
    )
    banker = rebuilt.decisions[1]
    assert banker.text == "Table 2: Banker 6 vs player third card 5 → S"
    assert banker.drew and not banker.agrees
    assert "AGAINST" in banker.verdict


def test_reconstruct_naturals_and_chemin_de_fer_options() -> None:
    natural = reconstruct(
        Game.PUNTO_BANCO,
        _deal(
            ("FOUR", "CLUBS", "PLAYER"),
            ("TWO", "HEARTS", "BANKER"),
            ("FOUR", "SPADES", "PLAYER"),
            ("KING", "DIAMONDS", "BANKER"),
        ),
    )
    assert natural.decisions[0].text.startswith("Natural: Player 8 vs Banker 2")
    assert all(d.agrees and d.cell is Draw.STAY for d in natural.decisions)
    chemmy = reconstruct(
        Game.CHEMIN_DE_FER,
        _deal(
            ("TWO", "CLUBS", "PLAYER"),
            ("TEN", "HEARTS", "BANKER"),
            ("THREE", "SPADES", "PLAYER"),
            ("FIVE", "DIAMONDS", "BANKER"),
            ("FOUR", "CLUBS", "PLAYER"),
        ),
    )
    assert chemmy.decisions[0].text == "4.9(a): Player 5 → Op."
    assert chemmy.decisions[1].text == "Table 3: Banker 5 vs player third card 4 → Op."
    assert all(d.agrees for d in chemmy.decisions)


def test_reconstruct_incomplete_round() -> None:
    rebuilt = reconstruct(Game.PUNTO_BANCO, _deal(("TWO", "CLUBS", "PLAYER")))
    assert rebuilt.decisions == ()
    assert "incomplete" in rebuilt.notes[0]


def test_every_ledger_round_reconstructs_to_its_recorded_winner(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    with Ledger(db, read_only=True) as ledger:
        rounds = ledger.con.execute(
            "SELECT r.table_id, r.round_id, r.winner, s.game FROM rounds r JOIN "
            "table_day_summary s USING (table_id, gaming_date) WHERE r.status = 'COMPLETE'"
        ).fetchall()
        cards = ledger.con.execute(
            "SELECT table_id, round_id, position, rank, suit, hand FROM cards"
        ).fetchall()
    by_round: dict[tuple[str, str], list[tuple[int, str, str, str]]] = {}
    for t, r, pos, rank, suit, hand in cards:
        by_round.setdefault((t, r), []).append((pos, rank, suit, hand))
    assert rounds
    for table_id, round_id, winner, game in rounds:
        rebuilt = reconstruct(Game(game), by_round[(table_id, round_id)])
        assert rebuilt.winner == winner, round_id


# ---------------------------------------------------------------------- queries and snapshot


def test_exception_filter_narrows_rows(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    journal = AckJournal(tmp_path / "acks.jsonl")
    with Ledger(db, read_only=True) as ledger:
        rows = q.exceptions(ledger, DAY, journal)
    assert len(rows) > 3 and rows["table_id"].nunique() > 1
    assert rows["section"].str.startswith("N.J.A.C. 19:47-").all()
    assert (rows["statement"] != "").all()
    assert rows["occurred"].notna().all()
    one = rows["table_id"].iloc[0]
    only = q.ExceptionFilter(tables=[one]).apply(rows)
    assert 0 < len(only) < len(rows) and set(only["table_id"]) == {one}
    critical = q.ExceptionFilter(severities=["CRITICAL"]).apply(rows)
    assert set(critical["severity"]) == {"CRITICAL"}
    assert critical["blocking"].all()
    mid = rows["occurred"].sort_values().iloc[len(rows) // 2]
    later = q.ExceptionFilter(start=mid.to_pydatetime()).apply(rows)
    assert 0 < len(later) < len(rows) and (later["occurred"] >= mid).all()


def test_snapshot_never_holds_the_ledger(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    snap = snapshot(db)
    assert snap.path != db.absolute() and snap.busy is None
    with Ledger(db) as writer:  # a writer opens at once: the dashboards hold nothing
        rows_in_the_file(writer).con.execute("DELETE FROM exceptions WHERE severity = 'INFO'")
        busy = snapshot(db)  # the writer holds the file: the last snapshot is served
        assert busy.path == snap.path and busy.busy is not None
    fresh = snapshot(db)
    assert fresh.busy is None and fresh.path != snap.path
    assert snap.path.exists()  # a page run that took the old snapshot can still open it
    with reader(fresh) as ledger:
        assert ledger.con.execute(
            "SELECT count(*) FROM exceptions WHERE severity = 'INFO'"
        ).fetchone() == (0,)


def test_while_the_writer_holds_the_ledger_a_snapshot_is_the_copy_it_wrote_when_newer(
    tmp_path: Path,
) -> None:
    """A stream holds the file for a whole close beside its batches: a dashboard that cannot
    open it asks for the writer's copy and serves it, once there is one newer than its own."""
    db = ledger_copy(tmp_path)
    snap = snapshot(db)
    with Ledger(db) as writer:
        open_writers_folder(db)  # as a stream serving closes does
        rows_in_the_file(writer).con.execute("DELETE FROM exceptions WHERE severity = 'INFO'")
        busy = snapshot(db)  # nobody wrote a copy yet: the last snapshot is served
        assert busy.path == snap.path and busy.busy is not None and not busy.by_writer
        assert asked_at(db) is not None, "the dashboard asked the writer for a copy"
        copy_writer = CopyWriter(writer)
        try:
            written = copy_writer.write()
        finally:
            copy_writer.close()
        fresh = snapshot(db)
        assert fresh.by_writer and fresh.busy is None
        assert fresh.path not in (snap.path, written.path), "the dashboard's own copy"
        assert fresh.taken_at.timestamp() == pytest.approx(written.read_at, abs=1e-3)
        assert snapshot(db).path == fresh.path, "not taken again while it is the newest"
    with reader(fresh) as ledger:
        assert ledger.con.execute(
            "SELECT count(*) FROM exceptions WHERE severity = 'INFO'"
        ).fetchone() == (0,)


def test_no_page_holds_a_bare_string_streamlit_would_print() -> None:
    """Streamlit's "magic" writes any bare expression of a page script onto the page, so an
    attribute docstring under a page's constant would show to every user: pages keep their
    notes in comments (the module docstring alone is exempt)."""
    pages = sorted((Path(__file__).resolve().parents[2] / "dashboards" / "views").glob("*.py"))
    printed = [
        f"{page.name}:{node.lineno}"
        for page in pages
        for node in ast.parse(page.read_text()).body[1:]
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    ]
    assert pages and printed == []


def test_the_warm_start_imports_the_pages_modules_and_caches_every_odds_model() -> None:
    """The server's warm start (dashboards/warm.py) imports what the pages import and
    computes the exact odds model (N.J.A.C. 19:47-3.9 draw rules) of every filed rule set,
    so the first visitor's statistical alarms page reads them from the cache."""
    from dashboards import warm
    from dashboards.stats import cached_round_model, round_model

    cached_round_model.cache_clear()
    assert warm.warm_models() == len(alarms.rules_catalog()) > 0
    assert cached_round_model.cache_info().currsize == len(
        {(r, r.decks) for r in alarms.rules_catalog().values()}
    )
    computed = cached_round_model.cache_info().misses
    for rules in alarms.rules_catalog().values():  # as the hold alarms ask: no deck count
        round_model(rules)
    assert cached_round_model.cache_info().misses == computed
    assert all(
        name.split(".")[0] in {"altair", "pandas", "duckdb", "dashboards", "pipeline"}
        for name in warm.PRELOADED
    )


def test_the_warm_start_leaves_the_first_statistics_page_nothing_to_compute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm start (dashboards/warm.py) takes the ledger's snapshot and computes the latest
    day's statistical alarms against the exact odds (N.J.A.C. 19:47-3.9 draw rules); the page's
    first run must then find them cached, for that snapshot, by its default grouping."""
    from dashboards import warm

    monkeypatch.setenv("BACCARAT_DB", str(ledger_copy(tmp_path / "warm")))
    assert warm.warm_ledger() == DAY

    def recomputed(*args: object, **kwargs: object) -> None:
        raise AssertionError("the statistics were computed again after the warm start")

    monkeypatch.setattr(alarms, "outcome_alarms", recomputed)
    outcomes, hold = ui.statistics(_context(snapshot()), DAY, ui.STATISTICS_PER[0])
    assert len(outcomes) and len(hold)
    with pytest.raises(AssertionError, match="computed again"):  # another grouping: a miss
        ui.statistics(_context(snapshot()), DAY, ui.STATISTICS_PER[1])


def test_the_warm_start_leaves_the_first_queue_nothing_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm start reads the latest day's exceptions (each a finding of N.J.A.C. 19:47-
    rules) and the snapshot's gaming days; the queue's first run, and every sidebar, must then
    find them cached for that snapshot, with each exception's labels."""
    from dashboards import warm

    monkeypatch.setenv("BACCARAT_DB", str(ledger_copy(tmp_path / "warm")))
    assert warm.warm_ledger() == DAY

    def read_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the snapshot was read again after the warm start")

    with reader(snapshot()) as ledger:
        first = q.exception_rows(ledger, DAY).iloc[0]
        table_id, cited = str(first["table_id"]), list(first["source_event_ids"])
        events = q.evidence(ledger, table_id, cited)
    for question in ("exception_rows", "gaming_dates", "evidence", "evidence_lines"):
        monkeypatch.setattr(q, question, read_again)
    assert ui.gaming_dates(snapshot())[0] == DAY
    queue = ui.exception_queue(snapshot(), DAY)
    ids = list(queue.rows["exception_id"])
    assert ids and set(queue.labels.picks) == set(queue.labels.titles) == set(ids)
    assert ids[0] == first["exception_id"], "the first exception, which the page opens"
    opened = ui.evidence(snapshot(), table_id, cited)
    pd.testing.assert_frame_equal(opened.events, events)
    assert opened.lines, "its evidence told as lines"
    with pytest.raises(AssertionError, match="read again"):  # another day: a miss
        ui.exception_queue(snapshot(), DAY + timedelta(days=1))


def test_the_warm_start_leaves_the_first_table_board_nothing_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm start reads the latest day's tables (their rounds and hold, the win of
    N.J.A.C. 19:47-3.3 settlements over handle), their last events and exceptions; the
    board's first run must find them cached for that snapshot, as the ledger holds them."""
    from dashboards import warm

    monkeypatch.setenv("BACCARAT_DB", str(ledger_copy(tmp_path / "warm")))
    assert warm.warm_ledger() == DAY
    with reader(snapshot()) as ledger:
        tables = q.board_rows(ledger, DAY)
        exceptions = q.exception_rows(ledger, DAY)

    def read_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the snapshot was read again after the warm start")

    for question in ("board_rows", "exception_rows", "stored_acks", "announced_exceptions"):
        monkeypatch.setattr(q, question, read_again)
    monkeypatch.setattr(day_board, "floor_facts", read_again)
    board = ui.table_board(snapshot(), DAY)
    pd.testing.assert_frame_equal(board.tables, tables)
    pd.testing.assert_frame_equal(board.exceptions, exceptions)
    assert set(board.facts["table_id"]) == set(tables["table_id"])
    with pytest.raises(AssertionError, match="read again"):  # another day: a miss
        ui.table_board(snapshot(), DAY + timedelta(days=1))


def test_the_warm_start_leaves_the_first_round_reconstruction_nothing_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm start reads the round the reconstruction opens on (the latest day's most
    severe exception's: its cards dealt under N.J.A.C. 19:47-3.7 and drawn under 3.9, its
    settlements under 3.3), its table's shoes and rounds and the day's tables; the page's
    first run must find them cached for that snapshot, as the ledger holds them, and read
    another round afresh."""
    from dashboards import warm

    monkeypatch.setenv("BACCARAT_DB", str(ledger_copy(tmp_path / "warm")))
    assert warm.warm_ledger() == DAY
    with reader(snapshot()) as ledger:
        first = q.first_exception_round(ledger, DAY)
        assert first is not None
        table_id, shoe_id, round_id = first
        tables = list(q.table_days(ledger, DAY)["table_id"])
        shoes = q.shoes(ledger, DAY, table_id)
        of_shoe = list(q.rounds(ledger, DAY, table_id, shoe_id)["round_id"])
        cards = q.round_cards(ledger, table_id, round_id)
        settlements = q.round_settlements(ledger, table_id, round_id)
        another = next(r for r in q.rounds(ledger, DAY, table_id)["round_id"] if r != round_id)

    def read_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the snapshot was read again after the warm start")

    for question in ("table_days", "first_exception_round", "shoes", "rounds", "round_row"):
        monkeypatch.setattr(q, question, read_again)
    assert ui.round_start(snapshot(), DAY) == ui.RoundStart(tables, first)
    cached_shoes, table_rounds = ui.table_rounds(snapshot(), DAY, table_id)
    assert cached_shoes == shoes
    assert list(table_rounds[table_rounds["shoe_id"] == shoe_id]["round_id"]) == of_shoe
    play = ui.round_play(snapshot(), round_id)
    assert play is not None and play.info["round_id"] == round_id
    pd.testing.assert_frame_equal(play.cards, cards)
    pd.testing.assert_frame_equal(play.settlements, settlements)
    with pytest.raises(AssertionError, match="read again"):  # another round: a miss
        ui.round_play(snapshot(), str(another))


def test_the_warm_start_without_a_ledger_leaves_the_pages_to_say_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboards import warm

    monkeypatch.setenv("BACCARAT_DB", str(tmp_path / "nothing-here.duckdb"))
    assert warm.warm_ledger() is None
    not_a_ledger = tmp_path / "other.duckdb"  # a DuckDB file of something else
    with duckdb.connect(str(not_a_ledger)) as con:
        con.execute("CREATE TABLE notes (text VARCHAR)")
    monkeypatch.setenv("BACCARAT_DB", str(not_a_ledger))
    assert warm.warm_ledger() is None  # the server still starts; the sidebar says why


def _context(snap: Snapshot) -> ui.Context:
    return ui.Context(snap, DAY, AckJournal(snap.live.with_name("acks.jsonl")), None, None)


def test_the_warm_start_exempts_what_it_loaded_from_full_garbage_passes() -> None:
    """After the warm start, Streamlit's collection after every run (and every second, for
    the live pages' fragment) must not walk the modules and models the warm start loaded."""
    import gc

    from dashboards import warm

    warm.freeze_warm_objects()
    try:
        assert gc.get_freeze_count() > 0
        assert not any(o is alarms.__dict__ for o in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(o is alarms.__dict__ for o in gc.get_objects())  # the check itself can fail
