"""``baccarat-audit odds``: the exact odds oracle on the command line.

Wiring into the main CLI::

    sub = parser.add_subparsers(dest="command", required=True)
    add_odds_parser(sub)            # sets ``func=run_odds`` on its namespace
    args = parser.parse_args(argv)
    return args.func(args)

or standalone: ``python -m pipeline.oracle --decks 8 --json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from pipeline.oracle.report import DEFAULT_BET_CENTS, odds
from pipeline.rules.config import InvalidRulesError, TableRules, rules_from_mapping
from pipeline.rules.deal import Options
from pipeline.rules.games import Game

DEFAULT_RULES = TableRules("default", Game.PUNTO_BANCO)
"""Punto Banco, 5 % vigorish as an exact percentage, tie 8 to 1, no optional wagers."""

EXIT_OK = 0
EXIT_USAGE = 2


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value}")
    return value


def _draw_or_stay(text: str) -> bool:
    choice = text.lower()
    if choice not in ("draw", "stay"):
        raise argparse.ArgumentTypeError(f"expected 'draw' or 'stay', got {text!r}")
    return choice == "draw"


def configure_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the odds options to ``parser`` and make ``run_odds`` its handler."""
    parser.add_argument(
        "--decks",
        type=_positive_int,
        default=None,
        help="decks in the shoe (default: the rules' decks, 8 without a rules file); "
        "below 6 is off-regulation (N.J.A.C. 19:47-3.1(a)) but allowed for cross-checks",
    )
    parser.add_argument(
        "--rules",
        type=Path,
        default=None,
        metavar="FILE",
        help="TOML rule configuration (pipeline.rules.config.rules_from_mapping); default: "
        "Punto Banco, 5%% vigorish, tie 8 to 1",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--bet-cents",
        type=_positive_int,
        default=DEFAULT_BET_CENTS,
        metavar="C",
        help="stake for the vigorish rounding note, in cents (default: %(default)s)",
    )
    parser.add_argument(
        "--all-wagers",
        action="store_true",
        help="also report every wager family and Banker variation of N.J.A.C. 19:47-3.3 and "
        "7.3(d) (total cards, bonus A/B/C, dragon 7, 3.3(e)1, 3.3(e)2, 4%% vigorish) on the "
        "same shoe",
    )
    parser.add_argument(
        "--cf-player-5",
        type=_draw_or_stay,
        default=True,
        metavar="draw|stay",
        help="Chemin de Fer: what the Dominant Player does on 5, N.J.A.C. 19:47-4.9(a)2 "
        "(default: draw)",
    )
    parser.add_argument(
        "--cf-banker-option",
        type=_draw_or_stay,
        default=True,
        metavar="draw|stay",
        help="Chemin de Fer: what the Banker does on a Table 3 'Op.' cell, 4.9(f) (default: draw)",
    )
    parser.set_defaults(func=run_odds)
    return parser


def add_odds_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Register the ``odds`` subcommand on the main CLI's subparsers."""
    parser = subparsers.add_parser(
        "odds",
        help="exact odds and house edges by enumerating every deal from a full shoe",
        description="Enumerate every deal from a full shoe without replacement and report "
        "exact counts, probabilities and house edges of the wagers the rules offer.",
    )
    return configure_parser(parser)


def load_rules(path: Path | None) -> TableRules:
    """The rules in a TOML file, validated; the default rules when ``path`` is None."""
    if path is None:
        return DEFAULT_RULES
    with path.open("rb") as handle:
        return rules_from_mapping(tomllib.load(handle))


def run_odds(args: argparse.Namespace) -> int:
    """Handle ``odds``: print the report, return the exit status (2 on a usage problem)."""
    try:
        rules = load_rules(args.rules)
    except (OSError, tomllib.TOMLDecodeError, InvalidRulesError, ValueError) as exc:
        print(f"baccarat-audit odds: cannot use rules file {args.rules}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    decks = args.decks if args.decks is not None else rules.decks
    options = Options(
        player_draws_on_5=args.cf_player_5, banker_draws_on_option=args.cf_banker_option
    )
    report = odds(decks, rules, options=options, bet_cents=args.bet_cents, variants=args.all_wagers)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.render_text(), end="")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry point: ``python -m pipeline.oracle [options]``."""
    parser = configure_parser(
        argparse.ArgumentParser(prog="baccarat-audit odds", description=__doc__)
    )
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result
