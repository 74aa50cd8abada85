"""Surveillance: one round card by card, the rule behind every draw, every wager's settlement."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import queries as q
from dashboards import ui
from dashboards.cards import hands_html
from dashboards.reconstruct import reconstruct
from pipeline.rules.codes import RULE_CODES
from pipeline.rules.games import Game
from pipeline.safe_text import markdown_text, visible

# A wager the regulation calls "void" on a tie (3.2(a)1iii) is a push to the people who read
# this page: the stake goes back, nothing is won or lost. (A comment, not a string: Streamlit
# would print a bare string on the page.)
RESULT_WORDS = {"VOID": "PUSH (stake returned)", "PUSH": "PUSH (dragon 7, 3.3(h))"}

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Round reconstruction")

with ctx.ledger() as ledger:
    tables = list(q.table_days(ledger, day)["table_id"])
    wanted = st.session_state.pop("selected_round", None)
    if wanted is None and "round_id_input" not in st.session_state:
        wanted = st.query_params.get("round")
    if wanted:
        st.session_state["round_id_input"] = wanted
    elif "round_table" not in st.session_state:
        # Opened without a choice: start on the day's most severe exception's round.
        start = q.first_exception_round(ledger, day)
        if start is not None and start[0] in tables:
            st.session_state["round_table"] = start[0]
            st.session_state["round_shoe"] = start[1]
            st.session_state["round_pick"] = start[2]
    typed = st.text_input(
        "Round id", key="round_id_input", help="Leave empty to choose by table and shoe."
    )
    # a device's round id is taken as typed (it may hold any character, a tab included);
    # stray whitespace around a pasted id is forgiven only when the id as typed is unknown
    round_id: str | None = typed if typed.strip() else None
    if round_id is None and tables:
        c1, c2, c3 = st.columns(3)
        table_id = c1.selectbox("Table", tables, key="round_table", format_func=visible)
        shoe_ids = q.shoes(ledger, day, table_id)
        shoe_id = (
            c2.selectbox("Shoe", shoe_ids, key="round_shoe", format_func=visible)
            if shoe_ids
            else None
        )
        listing = q.rounds(ledger, day, table_id, shoe_id)
        if not listing.empty:
            labels = {
                r.round_id: f"#{r.round_number} {r.winner or r.status} "
                f"{r.player_points}-{r.banker_points} ({r.total_cards} cards)"
                + (" simulated" if r.simulated else "")
                for r in listing.itertuples()
            }
            round_id = c3.selectbox(
                "Round", list(labels), format_func=labels.__getitem__, key="round_pick"
            )
    info = q.round_row(ledger, round_id) if round_id else None
    if info is None and round_id and round_id != round_id.strip():
        info = q.round_row(ledger, round_id.strip())
    if info is None:
        st.info(
            "Choose a round, or type its id."
            if not round_id
            else f"No round {markdown_text(round_id)}."
        )
        st.stop()
    table_id = str(info["table_id"])
    rid = str(info["round_id"])
    cards = q.round_cards(ledger, table_id, rid)
    settlements = q.round_settlements(ledger, table_id, rid)
    exceptions = q.round_exceptions(ledger, table_id, rid)
    events = q.round_events(ledger, table_id, rid)

game = Game(info["game"]) if info.get("game") else Game.PUNTO_BANCO
rebuilt = reconstruct(
    game,
    [
        (int(c.position), str(c.rank), str(c.suit), str(c.hand))
        for c in cards.itertuples()
        if c.hand in ("PLAYER", "BANKER")
    ],
)

st.subheader(markdown_text(rid))
m = st.columns(5)
m[0].metric("Winner (recorded)", str(info["winner"] or "-"))
m[1].metric("Player", str(info["player_points"]))
m[2].metric("Banker", str(info["banker_points"]))
m[3].metric("Cards", str(info["total_cards"]))
m[4].metric("Status", str(info["status"]))
st.caption(
    f"Table {ui.fmt_text(table_id)} · {game.value.replace('_', ' ').title()} under rules "
    f"{ui.fmt_text(info['rules_id'])} · shoe {ui.fmt_text(info['shoe_id'])} · Player "
    f"{ui.fmt_text(info['player_cards'])} · Banker {ui.fmt_text(info['banker_cards'])} · "
    f"announced {ui.fmt_text(info.get('announced'))} · dealer {ui.fmt_text(info.get('dealer_id'))}"
)

st.markdown(
    hands_html(
        (
            (int(c.position), str(c.rank), str(c.suit), str(c.hand))
            for c in cards.itertuples()
            if c.hand in ("PLAYER", "BANKER")
        ),
        rebuilt.player_points,
        rebuilt.banker_points,
    ),
    unsafe_allow_html=True,
)
st.markdown("**Card by card** (shoe position order; counts after each card)")
st.table(
    pd.DataFrame(
        [
            {
                "position": c.position,
                "hand": c.hand,
                "card": c.label,
                "value": c.value,
                "player count": c.player_points,
                "banker count": c.banker_points,
            }
            for c in rebuilt.cards
        ]
    ),
    hide_index=True,
)

st.markdown("**Draw rules, recomputed** (N.J.A.C. 19:47 Tables 1-3)")
for d in rebuilt.decisions:
    mark = "✓" if d.agrees else "✗"
    line = f"{mark} **{d.text}** — {d.verdict} ({d.citation}, `{d.code}`)"
    if d.agrees:
        st.markdown(line)
    else:
        st.error(line)
for note in rebuilt.notes:
    st.warning(markdown_text(note))
if rebuilt.decisions and rebuilt.winner != info["winner"] and info["winner"]:
    st.error(
        f"From the cards the winner is {rebuilt.winner} "
        f"({rebuilt.player_points}-{rebuilt.banker_points}); the round recorded {info['winner']}."
    )

st.markdown("**Every wager: expected against recorded settlement**")
if settlements.empty:
    st.caption("No wagers in this round.")
else:
    view = pd.DataFrame(
        {
            "seat": settlements["seat"],
            "patron": ui.text_cells(settlements["patron_id"]),
            "wager": settlements["wager"],
            "stake": [ui.fmt_money(v) for v in settlements["stake_cents"]],
            "expected": [
                f"{RESULT_WORDS.get(r, r)} {ui.fmt_money(p)}" if isinstance(r, str) else "-"
                for r, p in zip(
                    settlements["expected_result"],
                    settlements["expected_paid_cents"],
                    strict=True,
                )
            ],
            "expected vig": [ui.fmt_money(v) for v in settlements["expected_vig_cents"]],
            "recorded": [
                f"{RESULT_WORDS.get(r, r)} {ui.fmt_money(p)}"
                if isinstance(r, str)
                else "not settled"
                for r, p in zip(
                    settlements["recorded_result"],
                    settlements["recorded_paid_cents"],
                    strict=True,
                )
            ],
            "vig collected": [ui.fmt_money(v) for v in settlements["vig_collected"]],
            "vig deferred": [ui.fmt_money(v) for v in settlements["vig_deferred"]],
            "agrees": ["yes" if m else "NO" for m in settlements["matches"]],
            "late": ["late" if x else "" for x in settlements["late"]],
            "rule": [
                f"{RULE_CODES[c].citation}" if isinstance(c, str) and c in RULE_CODES else ""
                for c in settlements["rule_code"]
            ],
        }
    )
    st.table(view, hide_index=True)

st.markdown("**Exceptions in this round**")
if exceptions.empty:
    st.caption("None.")
else:
    st.dataframe(exceptions, hide_index=True, key="round_exceptions")

with st.expander(f"Raw events ({len(events)})"):
    st.dataframe(
        events.assign(occurred=ui.local_times(events["occurred"])),
        hide_index=True,
        key="round_events",
    )
