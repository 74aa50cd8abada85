"""The ``stream`` command's wiring and its configuration errors (no broker needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pipeline.stream.cli import add_stream_parser, cmd_stream, main
from pipeline.stream.settings import DEFAULT_COPY_EVERY, DEFAULT_MAX_BATCH


def test_registers_the_stream_command(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser(prog="baccarat-audit")
    sub = parser.add_subparsers(dest="command", required=True)
    add_stream_parser(sub)
    db = str(tmp_path / "l.duckdb")
    argv = ["stream", "--bootstrap", "k:9092", "--db", db, "--group", "g", "--topic", "t"]
    args = parser.parse_args([*argv, "--until-idle", "2.5"])
    assert args.func is cmd_stream
    assert (args.bootstrap, args.group, args.topic, args.until_idle) == ("k:9092", "g", "t", 2.5)
    assert args.max_batch == DEFAULT_MAX_BATCH == 50_000
    assert args.copy_every == DEFAULT_COPY_EVERY == 5.0
    assert args.rules.name == "rules_catalog.toml"


def test_missing_bootstrap_names_the_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stream", "--db", str(tmp_path / "l.duckdb")]) == 2
    assert "BACCARAT_KAFKA_BOOTSTRAP_SERVERS is not set" in capsys.readouterr().err
    assert not (tmp_path / "l.duckdb").exists()


def test_bootstrap_from_the_environment_and_a_bad_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BACCARAT_KAFKA_BOOTSTRAP_SERVERS", "k:9092")
    bad = tmp_path / "rules.toml"
    bad.write_text("[x]\ngame = 'PUNTO_BANCO'\n")
    assert main(["stream", "--db", str(tmp_path / "l.duckdb"), "--rules", str(bad)]) == 2
    assert "must state" in capsys.readouterr().err


def test_a_negative_copy_interval_is_refused_before_anything_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BACCARAT_KAFKA_BOOTSTRAP_SERVERS", "k:9092")
    db = tmp_path / "l.duckdb"
    assert main(["stream", "--db", str(db), "--copy-every", "-1"]) == 2
    assert "--copy-every at least 0" in capsys.readouterr().err
    assert not db.exists()
