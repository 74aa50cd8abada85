"""The floor at a glance: one tile per table, grouped by pit, that fits 24-48 tables on a
screen. Each tile shows the table's state (closed, between shoes, a shoe in play with its
progress), the age of its last event, its open exceptions (critical ones in red) and its
hold. Device strings are escaped and shown, never obeyed.
"""

from __future__ import annotations

import html

import pandas as pd

from pipeline.safe_text import visible

_STYLE = """<style>
.floor h4{margin:.6em 0 .3em;font:600 14px sans-serif}
.floor .pit{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px}
.floor .tile{border:1px solid #cfd8dc;border-left:6px solid #90a4ae;border-radius:6px;
      padding:6px 8px;font:12px sans-serif;background:#fff;line-height:1.35}
.floor .tile.play{border-left-color:#2e7d32}.floor .tile.closed{opacity:.6}
.floor .tile.critical{border-left-color:#c62828;background:#ffebee}
.floor .id{font-weight:700;font-size:14px}.floor .muted{color:#607d8b}
.floor .bar{height:5px;background:#eceff1;border-radius:3px;margin:3px 0}
.floor .bar span{display:block;height:5px;background:#2e7d32;border-radius:3px}
.floor .open{font-weight:600}.floor .crit{color:#c62828}
</style>"""

LIVE_WITHIN_MICROS = 3_600_000_000
"""A day whose last event is within the hour is still being played: ages run on the clock."""

GAME_SHORT = {"PUNTO_BANCO": "PB", "CHEMIN_DE_FER": "CF", "MINIBACCARAT": "MB"}


def age_text(seconds: float) -> str:
    """``42 s``, ``7 min``, ``3 h 05 min`` ago."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def state_of(row: pd.Series) -> tuple[str, str]:
    """(css class, words) of a table's state."""
    if bool(row.get("closed")):
        return "closed", "closed"
    if isinstance(row.get("current_shoe"), str) and not bool(row.get("shoe_ended")):
        return "play", "shoe in play"
    return "idle", "between shoes"


def floor_html(board: pd.DataFrame, facts: pd.DataFrame, now_micros: int) -> str:
    """The tiles of ``board`` (:func:`dashboards.queries.table_board`) with ``facts``
    (:func:`pipeline.ledger.day_board.floor_facts`); ages are measured to ``now_micros`` (the
    newest event of the day for a day that is over, the clock for a live one)."""
    merged = board.merge(facts, on="table_id", how="left")
    pits: list[str] = []
    for pit, tables in merged.groupby(merged["pit"].fillna("(no pit)"), sort=True):
        tiles = []
        for _, row in tables.iterrows():
            css, words = state_of(row)
            critical = int(row.get("open_critical") or 0)
            opened = int(row.get("open_exceptions") or 0)
            if critical:
                css += " critical"
            progress = float(row.get("shoe_progress") or 0.0)
            last = row.get("last_event_at")
            age = (
                f"last event {age_text((now_micros - int(last)) / 1e6)} ago"
                if pd.notna(last)
                else "no event"
            )
            hold = row.get("hold_pct")
            hold_text = f"hold {float(hold):.1f} %" if pd.notna(hold) else "no handle"
            exceptions = (
                f'<span class="open crit">{opened} open, {critical} critical</span>'
                if critical
                else f'<span class="open">{opened} open</span>'
                if opened
                else '<span class="muted">no open exception</span>'
            )
            game = GAME_SHORT.get(str(row.get("game")), str(row.get("game")))
            tiles.append(
                f'<div class="tile {css}" title="{_text(row["table_id"])}">'
                f'<div class="id">{_text(row["table_id"])} '
                f'<span class="muted">{_text(game)}</span></div>'
                f"<div>{words} · {int(row.get('rounds') or 0)} rounds</div>"
                f'<div class="bar"><span style="width:{round(100 * progress)}%"></span></div>'
                f"<div>{exceptions}</div>"
                f'<div class="muted">{hold_text} · {age}</div></div>'
            )
        pits.append(f'<h4>Pit {_text(pit)}</h4><div class="pit">{"".join(tiles)}</div>')
    return _STYLE + '<div class="floor">' + "".join(pits) + "</div>"


def _text(value: object) -> str:
    return html.escape(visible(str(value)), quote=True)
