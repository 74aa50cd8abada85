"""Where the archive is: the installation's archive.toml (pipeline.config.archive), validated
whole, and a configured catalog used by the archive (pipeline.ledger.archive)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from pipeline.cli import ingest_paths, main, write_simulation
from pipeline.config.archive import (
    ARCHIVE_FILE,
    ArchiveConfigError,
    ArchiveSettings,
    archive_settings,
)
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.config.installation import InstallationError
from pipeline.ledger.archive import ArchiveError, archive_day, archive_problems, open_archive
from pipeline.ledger.store import Ledger
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)


def configure(installation: Path, text: str) -> Path:
    path = installation / ARCHIVE_FILE
    path.write_text(text, encoding="utf-8")
    return path


def test_without_a_file_the_archive_is_embedded_beside_the_ledger(
    _own_installation: Path, tmp_path: Path
) -> None:
    settings = archive_settings()
    assert settings == ArchiveSettings()
    folder = tmp_path / "archive"
    assert settings.catalog_properties(tmp_path / "ledger.duckdb") == {
        "type": "sql",
        "uri": f"sqlite:///{folder / 'catalog.db'}",
        "warehouse": (folder / "warehouse").as_uri(),
    }
    assert settings.embedded_folder(tmp_path / "ledger.duckdb") == folder


def test_a_file_states_the_namespace_and_any_catalog_properties(_own_installation: Path) -> None:
    path = configure(
        _own_installation,
        'namespace = "atlantic_city.audit"\n'
        "[catalog]\n"
        'type = "rest"\nuri = "https://catalog.example/iceberg"\n'
        '"s3.connect-timeout" = 30\n"rest.sigv4-enabled" = true\n',
    )
    settings = archive_settings()
    assert settings.source == path
    assert settings.namespace == "atlantic_city.audit"
    assert settings.catalog_properties(Path("ignored.duckdb")) == {
        "type": "rest",
        "uri": "https://catalog.example/iceberg",
        "s3.connect-timeout": "30",
        "rest.sigv4-enabled": "true",
    }
    assert settings.embedded_folder(Path("ignored.duckdb")) is None


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        (
            'namespace = 7\nwarehouse = "s3://x"\n',
            [
                "unknown keys ['warehouse']; the keys are namespace and [catalog]",
                "namespace = 7: state a namespace as identifiers",
            ],
        ),
        ('namespace = "two words"\n', ["namespace = 'two words': state a namespace"]),
        ('catalog = "sql"\n', ["catalog = 'sql': [catalog] must be a table of properties"]),
        ("[catalog]\n", ["[catalog] is empty: state the catalog's properties"]),
        (
            '[catalog]\ntype = "sql"\nuri = ["a", "b"]\n[catalog.s3]\nregion = "x"\n',
            [
                "[catalog] uri = ['a', 'b']: a property is a string, number or boolean",
                "[catalog] s3 = {'region': 'x'}: a property is a string, number or boolean",
            ],
        ),
        ("namespace = \n", ["not valid TOML"]),
    ],
)
def test_a_wrong_file_is_refused_with_every_problem_named(
    _own_installation: Path, text: str, problems: list[str]
) -> None:
    path = configure(_own_installation, text)
    with pytest.raises(ArchiveConfigError) as refused:
        archive_settings()
    message = str(refused.value)
    assert message.startswith(f"{path}: ")
    for problem in problems:
        assert problem in message
    assert "or remove it to archive into the embedded catalog beside the ledger" in message
    assert isinstance(refused.value, InstallationError)  # exit 2: configuration


def test_a_wrong_file_stops_the_archive_command_with_the_file_named(
    _own_installation: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = configure(_own_installation, "color = 'red'\n")
    assert main(["archive", "--db", str(tmp_path / "ledger.duckdb")]) == 2
    assert f"baccarat-audit archive: {path}: unknown keys ['color']" in capsys.readouterr().err


def test_a_catalog_that_cannot_be_opened_is_named(_own_installation: Path, tmp_path: Path) -> None:
    path = configure(_own_installation, '[catalog]\ntype = "nessie"\n')
    with pytest.raises(ArchiveError, match=f"the archive's catalog \\({path}\\) cannot be opened"):
        open_archive(tmp_path / "ledger.duckdb")


def test_a_configured_catalog_and_warehouse_hold_the_archive(
    _own_installation: Path, tmp_path: Path
) -> None:
    """Another SQL catalog and warehouse, under the property's namespace: nothing beside the
    ledger, and the manifest names the files relative to that warehouse."""
    elsewhere = tmp_path / "group-archive"
    elsewhere.mkdir()
    configure(
        _own_installation,
        'namespace = "atlantic_city"\n[catalog]\ntype = "sql"\n'
        f'uri = "sqlite:///{elsewhere / "catalog.db"}"\n'
        f'warehouse = "{(elsewhere / "warehouse").as_uri()}"\n',
    )
    (tmp_path / "day").mkdir()
    with Ledger(tmp_path / "day" / "ledger.duckdb") as ledger:
        events = simulate(1, 0.25, 3, parse_faults("none"), DAY)
        ingest_paths(ledger, write_simulation(events, tmp_path / "sim", DAY), DEFAULT_CATALOG)
        manifest = archive_day(ledger, DAY, datetime(2026, 11, 25, 6, 0))
    assert not (tmp_path / "day" / "archive").exists()
    deliveries = manifest.table("deliveries").files
    assert deliveries[0].path.startswith(f"atlantic_city/deliveries/data/gaming_date={DAY}/")
    assert (elsewhere / "warehouse" / deliveries[0].path).stat().st_size == deliveries[0].bytes
    assert archive_problems(open_archive(tmp_path / "day" / "ledger.duckdb"), manifest, DAY) == []
