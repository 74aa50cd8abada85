"""``baccarat-audit odds`` wiring: add_odds_parser / run_odds, rules files, exit codes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from pipeline.oracle.cli import add_odds_parser, main, run_odds

EIGHT_DECK_TOTAL = 416 * 415 * 414 * 413 * 412 * 411


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="baccarat-audit")
    sub = parser.add_subparsers(dest="command", required=True)
    add_odds_parser(sub)
    args = parser.parse_args(argv)
    assert args.func is run_odds
    result: int = args.func(args)
    return result


def test_odds_json_default_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["odds", "--decks", "8", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decks"] == 8 and doc["total"] == EIGHT_DECK_TOTAL
    assert set(doc["house_edge"]) == {"BANKER", "PLAYER", "TIE"}
    assert round(doc["house_edge"]["BANKER"] * 100, 4) == 1.0579


def test_rules_file_enables_wagers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A TOML rules file goes through rules_from_mapping; its decks are used by default."""
    rules = tmp_path / "rules.toml"
    rules.write_text(
        'rules_id = "bonus-b"\ngame = "PUNTO_BANCO"\ndecks = 6\nbonus_paytable = "B"\n'
        "total_card_wagers = true\n"
    )
    assert _cli(["odds", "--rules", str(rules), "--json", "--bet-cents", "1100"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decks"] == 6
    assert doc["total"] == 312 * 311 * 310 * 309 * 308 * 307
    assert {"PLAYER_BONUS", "BANKER_BONUS", "CARDS_4", "CARDS_5", "CARDS_6"} <= set(
        doc["house_edge"]
    )
    assert doc["bet_size"]["vig_cents_rounding_on"] == 75


def test_illegal_rules_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('rules_id = "x"\ngame = "PUNTO_BANCO"\ntie_odds = "7 to 1"\n')
    assert _cli(["odds", "--rules", str(rules)]) == 2
    err = capsys.readouterr().err
    assert "3.3(b)" in err


def test_missing_rules_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["odds", "--rules", str(tmp_path / "nope.toml")]) == 2
    assert "cannot use rules file" in capsys.readouterr().err


def test_text_output_and_all_wagers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--decks", "8", "--all-wagers", "--bet-cents", "1500"]) == 0
    out = capsys.readouterr().out
    assert "House edge" in out and "dragon 7" in out and "$15.00" in out


def test_chemin_de_fer_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "cf.toml"
    rules.write_text('rules_id = "cf"\ngame = "CHEMIN_DE_FER"\nvig_deferral = false\n')
    assert _cli(["odds", "--rules", str(rules), "--json", "--cf-player-5", "stay",
                 "--cf-banker-option", "draw"]) == 0  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    assert doc["options"] == {"player_draws_on_5": False, "banker_draws_on_option": True}
    assert set(doc["house_edge"]) == {"BANKER", "PLAYER"}


def test_bad_arguments_are_usage_errors() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--decks", "0"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main(["--cf-player-5", "maybe"])
