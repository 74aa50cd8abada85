"""The statistical alarms as tables: outcome frequencies and hold, per shoe or per table, each
row with its p-value or interval (see :mod:`dashboards.stats` for the method)."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from dashboards.stats import HoldCheck, RoundModel, goodness_of_fit, round_model
from pipeline.config.catalog import DEFAULT_CATALOG, CatalogError, load_catalog
from pipeline.rules.config import TableRules


@lru_cache(maxsize=4)
def _catalog(path: str) -> Mapping[str, TableRules]:
    return load_catalog(Path(path))


def rules_catalog() -> Mapping[str, TableRules]:
    """The rule catalog the ledger was replayed with: ``$BACCARAT_RULES`` or the default."""
    try:
        return _catalog(os.environ.get("BACCARAT_RULES") or str(DEFAULT_CATALOG))
    except CatalogError:
        return {}


def _model(catalog: Mapping[str, TableRules], rules_id: str, decks: object) -> RoundModel | None:
    rules = catalog.get(rules_id)
    if rules is None:
        return None
    n = rules.decks
    if isinstance(decks, numbers.Integral | numbers.Real) and not pd.isna(decks):
        n = int(float(decks))
    return round_model(rules, n)


def _complete_sums(df: pd.DataFrame, keys: list[str], columns: list[str]) -> pd.DataFrame:
    """Per group of ``keys``, the sums of ``columns``; NaN where any row of the group has none
    (a group partly without exact odds has no expectation). Vectorised: a Python function
    per group made these sums most of the statistics page's first run."""
    groups = df.groupby(keys, sort=False)[columns]
    return groups.sum().where(groups.count().eq(groups.size(), axis=0))


def outcome_alarms(
    counts: pd.DataFrame, catalog: Mapping[str, TableRules], per: str = "shoe"
) -> pd.DataFrame:
    """Chi-square tests of Banker/Player/Tie and of naturals, ``per`` shoe or table.

    Expected counts add up each shoe's rounds times its own exact probabilities (a shoe of a
    different deck count has slightly different ones)."""
    keys = ["table_id", "shoe_id"] if per == "shoe" else ["table_id"]
    observed = ["rounds", "banker", "player", "tie", "naturals"]
    if counts.empty:
        return pd.DataFrame(columns=[*keys, *observed])
    df = counts.copy()
    models = {
        (rid, d): _model(catalog, str(rid), d)
        for rid, d in df[["rules_id", "decks"]].drop_duplicates().itertuples(index=False)
    }
    picked = [models[(rid, d)] for rid, d in zip(df["rules_id"], df["decks"], strict=True)]
    df["known"] = [m is not None for m in picked]
    for column, attribute in (
        ("expected_banker", "p_banker"),
        ("expected_player", "p_player"),
        ("expected_tie", "p_tie"),
        ("expected_naturals", "p_natural"),
    ):
        probability = [getattr(m, attribute) if m is not None else np.nan for m in picked]
        df[column] = df["rounds"] * np.array(probability, dtype=float)
    expected = ["expected_banker", "expected_player", "expected_tie", "expected_naturals"]
    grouped = df.groupby(keys, sort=False).agg(
        **{c: (c, "sum") for c in observed}, known=("known", "all")
    )
    grouped[expected] = _complete_sums(df, keys, expected)
    rows = []
    for g in grouped.reset_index().to_dict("records"):
        row: dict[str, object] = {k: g[k] for k in keys}
        n = int(g["rounds"])
        row.update({c: int(g[c]) for c in observed})
        if not g["known"] or n == 0:
            row["note"] = "no exact odds for these rules" if not g["known"] else "no rounds"
            rows.append(row)
            continue
        exp = [float(g[c]) for c in expected[:3]]
        exp_nat = float(g["expected_naturals"])
        obs = [int(g["banker"]), int(g["player"]), int(g["tie"])]
        winners = goodness_of_fit(obs, [e / n for e in exp])
        nat = int(g["naturals"])
        naturals = goodness_of_fit([nat, n - nat], [exp_nat / n, 1 - exp_nat / n])
        row.update(
            expected_banker=round(exp[0], 1),
            expected_player=round(exp[1], 1),
            expected_tie=round(exp[2], 1),
            chi2_bpt=round(winners.statistic, 3),
            p_bpt=winners.p_value,
            expected_naturals=round(exp_nat, 1),
            chi2_naturals=round(naturals.statistic, 3),
            p_naturals=naturals.p_value,
            note="expected tie count below 5: read the p-value loosely"
            if winners.smallest_expected < 5
            else "",
        )
        rows.append(row)
    return pd.DataFrame(rows)


def round_moments(results: pd.DataFrame, catalog: Mapping[str, TableRules]) -> pd.DataFrame:
    """One row per round: handle, recorded house result, and the exact expected result and
    variance given its stakes (NaN where the rules have no model)."""
    columns = ["table_id", "shoe_id", "round_id", "rules_id", "handle", "win", "mean", "var"]
    if results.empty:
        return pd.DataFrame(columns=columns)
    stakes = results.pivot_table(
        index=["table_id", "shoe_id", "round_id", "rules_id"],
        columns="wager",
        values="stake_cents",
        aggfunc="sum",
        fill_value=0,
    )
    per_round = results.groupby(["table_id", "shoe_id", "round_id", "rules_id"]).agg(
        game_win=("game_win_cents", "sum"), vig=("round_vig_cents", "first")
    )
    out = pd.DataFrame(index=stakes.index)
    out["handle"] = stakes.sum(axis=1).astype("int64")
    out["win"] = (per_round["game_win"] + per_round["vig"]).reindex(stakes.index).astype("int64")
    out["mean"] = np.nan
    out["var"] = np.nan
    for rules_id in stakes.index.get_level_values("rules_id").unique():
        rules = catalog.get(str(rules_id))
        if rules is None:
            continue
        model = round_model(rules)
        wagers = [w for w in stakes.columns if w in model.mean]
        mask = stakes.index.get_level_values("rules_id") == rules_id
        amounts = stakes.loc[mask, wagers].to_numpy(dtype=float)
        mu = np.array([model.mean[w] for w in wagers])
        cov = np.array([[model.cov[(w, v)] for v in wagers] for w in wagers])
        out.loc[mask, "mean"] = amounts @ mu
        out.loc[mask, "var"] = np.einsum("ij,jk,ik->i", amounts, cov, amounts).clip(min=0)
    return out.reset_index()[columns]


HOLD_KEYS = {"shoe": ["table_id", "shoe_id"], "table": ["table_id"], "pit": ["pit"]}
"""The columns a hold is grouped by, per shoe, table or pit."""


def hold_alarms(moments: pd.DataFrame, per: str = "table") -> pd.DataFrame:
    """Observed win over handle against the exact expectation and its 95 % interval, from
    :func:`round_moments`, ``per`` shoe, table or pit (``moments`` then has a ``pit``
    column)."""
    keys = HOLD_KEYS.get(per, ["table_id"])
    if moments.empty:
        return pd.DataFrame(columns=[*keys, "rounds"])
    grouped = moments.groupby(keys, sort=False).agg(
        rounds=("round_id", "size"), handle_cents=("handle", "sum"), win_cents=("win", "sum")
    )
    grouped[["mean", "var"]] = _complete_sums(moments, keys, ["mean", "var"])
    rows = []
    for g in grouped.reset_index().to_dict("records"):
        row: dict[str, object] = {k: g[k] for k in keys}
        if pd.isna(g["mean"]):
            row.update(rounds=int(g["rounds"]), note="no exact odds for these rules")
            rows.append(row)
            continue
        check = HoldCheck(
            rounds=int(g["rounds"]),
            handle_cents=int(g["handle_cents"]),
            win_cents=int(g["win_cents"]),
            expected_win_cents=float(g["mean"]),
            sd_cents=math.sqrt(float(g["var"])),
        )
        interval = check.interval_pct
        row.update(
            rounds=check.rounds,
            handle_cents=check.handle_cents,
            win_cents=check.win_cents,
            hold_pct=check.hold_pct,
            expected_hold_pct=check.expected_hold_pct,
            low_pct=interval[0] if interval else None,
            high_pct=interval[1] if interval else None,
            z=check.z,
            outside_95=check.outside,
            note="",
        )
        rows.append(row)
    return pd.DataFrame(rows)
