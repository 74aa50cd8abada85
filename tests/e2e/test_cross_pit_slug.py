"""A slug carried across pits, end to end: the emulator's tables, each emulated in a worker
process of its own, write their files; the ledger loads them; the pattern stage's search of
the property's shoes finds every run of cards a confederate carried from a shoe of the floor's
first table (pit BACCARAT-1) into a shoe of a table of another pit, as the false-shuffle code
of the table's game (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a): the cards are shuffled so that
they are randomly intermixed), at the table and shoe the manifest names, citing the cards of
the shoe they came from; and nothing else."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from pipeline.cli import find_patterns_after, ingest_paths
from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.store import Ledger
from pipeline.reports.groundtruth import compare
from pipeline.rules.codes import PATTERN_CODES, code_for
from pipeline.simulate.faults import FaultKind, InjectedFault, read_manifest, write_manifest
from pipeline.simulate.run import plan_floor
from pipeline.simulate.sinks import simulate_to_files

FIRST = date(2026, 11, 20)
DAYS, TABLES, HOURS = 2, 6, 5.0
CATALOG = load_catalog(DEFAULT_CATALOG)
PLANTED = re.compile(
    r"shoe (?P<shoe>\S+) positions \d+-\d+ \((?P<dealt>\d+) of \d+ dealt\) carried from table "
    r"(?P<source_table>\S+) \(pit (?P<source_pit>[^)]+)\), shoe (?P<source_shoe>\S+) positions"
)

CARRIED_FROM_T01 = re.compile(r"same order as shoe (\S+) \(table T01,")


# --dist loadgroup keeps the module on one worker; its day is session-scoped there, as a
# module-scoped one is built again whenever the worker runs another module's test between two
# of this one's
pytestmark = pytest.mark.xdist_group("cross-pit-slug-days")


@pytest.fixture(scope="session")
def carried(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """Two gaming days of a six-table floor of four pits, with a slug carried across pits
    into three in ten of the shoes of the tables it can reach; the ledger and the manifest."""
    root = tmp_path_factory.mktemp("carried")
    db, faults = root / "ledger.duckdb", list[InjectedFault]()
    with Ledger(db) as ledger:
        for n in range(DAYS):
            day = FIRST + timedelta(days=n)
            written = simulate_to_files(
                TABLES,
                HOURS,
                40 + n,
                {FaultKind.CROSS_PIT_SLUG: 0.3},
                day,
                root / day.isoformat(),
                CATALOG,
                workers=2,
            )
            report = ingest_paths(ledger, written.paths, DEFAULT_CATALOG)
            find_patterns_after(ledger, report.table_days, CATALOG)
            faults += written.faults
    manifest = root / "faults.jsonl"
    write_manifest(manifest, faults)
    yield db, manifest


def test_every_carried_slug_is_found_and_nothing_else(carried: tuple[Path, Path]) -> None:
    """PB-3.5a1-SLUG, CF-4.4a1-SLUG, MB-7.5a-SLUG (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)):
    recall 1.0 and precision 1.0 against the ground truth, each slug found by an exception
    citing the other table's cards it was carried from (a card the slug's shoe lost to an
    irregularity splits its run in two, each found)."""
    db, manifest = carried
    planted = read_manifest(manifest)
    assert len(planted) >= 3
    assert {f.kind for f in planted} == {FaultKind.CROSS_PIT_SLUG.value}
    with Ledger(db, read_only=True) as ledger:
        truth = compare(ledger, manifest)
    assert truth.missed == []
    assert truth.unexpected == []


def test_the_finding_names_the_table_and_shoe_of_both_pits(carried: tuple[Path, Path]) -> None:
    """PB-3.5a1-SLUG, CF-4.4a1-SLUG, MB-7.5a-SLUG (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)):
    each exception has the code of its table's game, the shoe the slug was planted in, and
    names the shoe and table of the other pit it was carried from."""
    db, manifest = carried
    plans = {plan.table_id: plan for plan in plan_floor(TABLES, CATALOG)}
    with Ledger(db, read_only=True) as ledger:
        found = [
            row for row in ledger_exceptions.all_exceptions(ledger) if row.code in PATTERN_CODES
        ]
    expected = set()
    for fault in read_manifest(manifest):
        planted = PLANTED.match(fault.detail)
        assert planted is not None, fault.detail
        target = plans[fault.table_id]
        assert int(planted["dealt"]) >= 20
        assert planted["source_table"] == "T01" and planted["source_pit"] != target.pit
        assert fault.rule_code == code_for(target.rules.game, "false_shuffle")
        expected.add((fault.rule_code, fault.table_id, planted["shoe"], planted["source_shoe"]))
    named = {
        (row.code, row.table_id, row.shoe_id, *CARRIED_FROM_T01.findall(row.message))
        for row in found
    }
    assert named == expected
    assert {table for _, table, _, _ in expected} >= {"T02", "T06"}
