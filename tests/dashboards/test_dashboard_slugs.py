"""The false-shuffle page: a slug (PB-3.5a1-SLUG, N.J.A.C. 19:47-3.5(a)1) beside the shoe it
repeats, card for card, and the wagers on the rounds dealt from it."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pandas as pd
import pytest
from dashboard_data import APP, DAY, grid_rows, link_columns
from streamlit.testing.v1 import AppTest

from pipeline.cli import main
from pipeline.ledger.store import Ledger
from tests.tampering import rows_in_the_file

TIMEOUT = 120


@pytest.fixture(scope="module")
def slugged_ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One Punto Banco table's day in which every shoe after the first carries a slug."""
    out = tmp_path_factory.mktemp("slug-demo")
    argv = ["demo", "--out", str(out), "--tables", "1", "--hours", "3", "--seed", "2"]
    argv += ["--faults", "false_shuffle=1", "--date", DAY.isoformat(), "--plain"]
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)
    return out / "ledger.duckdb"


@pytest.fixture
def ledger(slugged_ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db = tmp_path / "ledger.duckdb"
    shutil.copyfile(slugged_ledger, db)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    for name in ("BACCARAT_ACKS", "BACCARAT_RULES", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    return db


def _page() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    at.switch_page("views/slugs.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _frame(at: AppTest, index: int) -> pd.DataFrame:
    return grid_rows(at.dataframe[index])


def test_the_slug_is_shown_card_for_card_beside_the_shoe_it_repeats(ledger: Path) -> None:
    at = _page()
    assert at.title[0].value == "False shuffles"
    with Ledger(ledger, read_only=True) as db:
        (count,) = db.con.execute(
            "SELECT count(*) FROM exceptions WHERE code = 'PB-3.5a1-SLUG'"
        ).fetchone() or (0,)
    assert count >= 1
    assert len(at.selectbox(key="slug_pick").options) == count
    slug, earlier = _frame(at, 0), _frame(at, 1)
    assert len(slug) >= 20
    assert list(zip(slug["rank"], slug["suit"], strict=True)) == list(
        zip(earlier["rank"], earlier["suit"], strict=True)
    )
    assert slug["position"].diff().dropna().eq(1).all()  # one run, in shoe order
    bets = _frame(at, 2)
    assert len(bets) > 0
    assert set(bets["round_id"]) <= set(slug["round_id"].dropna())
    assert {"seat", "patron_id", "wager", "stake", "result", "paid"} <= set(bets.columns)
    # each round and patron a wager names opens its page (tests/dashboards/test_dashboard_links)
    assert {"round_id", "patron_id"} <= set(link_columns(at.dataframe[2]))
    assert "Review the shuffle" in "\n".join(str(m.value) for m in at.markdown)


def test_a_day_without_slugs_says_so(ledger: Path) -> None:
    with Ledger(ledger) as db:
        rows_in_the_file(db).con.execute("DELETE FROM exceptions WHERE code = 'PB-3.5a1-SLUG'")
    at = _page()
    assert "No run of cards repeated" in at.success[0].value
