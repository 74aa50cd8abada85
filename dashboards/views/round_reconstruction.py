"""Surveillance: one round card by card, the rule behind every draw, every wager's settlement."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import links, ui
from dashboards import queries as q
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

CHOICE_KEYS = ("round_id_input", "round_table", "round_shoe", "round_pick")
# the round the page opened on without a choice: the day's most severe exception's
START_KEY = "_round_start"
ROUND_PARAM = links.KINDS["round"].param
links.from_url(CHOICE_KEYS)
# each read is once per snapshot (ui.round_start, ui.table_rounds, ui.round_play), and the
# warm start makes those of the latest day's opening round: a first visit asks no question
opening = ui.round_start(ctx.snapshot, day)
tables = opening.tables
wanted = None
if "round_id_input" not in st.session_state:
    wanted = st.query_params.get(ROUND_PARAM)
if wanted:
    st.session_state["round_id_input"] = wanted
elif "round_table" not in st.session_state:
    # Opened without a choice: start on the day's most severe exception's round.
    start = opening.first_exception
    if start is not None and start[0] in tables:
        st.session_state["round_table"] = start[0]
        st.session_state["round_shoe"] = start[1]
        st.session_state["round_pick"] = start[2]
        st.session_state[START_KEY] = start[2]
typed = st.text_input(
    "Round id", key="round_id_input", help="Leave empty to choose by table and shoe."
)
# a device's round id is taken as typed (it may hold any character, a tab included);
# stray whitespace around a pasted id is forgiven only when the id as typed is unknown
round_id: str | None = typed if typed.strip() else None
if round_id is None and tables:
    c1, c2, c3 = st.columns(3)
    table_id = c1.selectbox("Table", tables, key="round_table", format_func=visible)
    shoe_ids, table_rounds = ui.table_rounds(ctx.snapshot, day, table_id)
    shoe_id = (
        c2.selectbox("Shoe", shoe_ids, key="round_shoe", format_func=visible) if shoe_ids else None
    )
    listing = table_rounds[table_rounds["shoe_id"] == shoe_id] if shoe_id else table_rounds
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
play = ui.round_play(ctx.snapshot, round_id) if round_id else None
if play is None and round_id and round_id != round_id.strip():
    play = ui.round_play(ctx.snapshot, round_id.strip())
if play is None:
    if round_id:
        st.warning(
            f"No round {markdown_text(round_id)} in the ledger: the id may be mistyped or "
            "from another ledger. Choose a round by table and shoe (empty the Round id).",
            icon=":material/link_off:",
        )
    else:
        st.info("Choose a round, or type its id.")
    st.stop()
info, cards, settlements, exceptions = play
table_id = str(info["table_id"])
rid = str(info["round_id"])

# the round the page starts on by itself stays out of a bare link (a history entry too many)
links.keep({ROUND_PARAM: rid}, {ROUND_PARAM: st.session_state.get(START_KEY)})
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
    f"{game.value.replace('_', ' ').title()} under rules {ui.fmt_text(info['rules_id'])} · "
    f"Player {ui.fmt_text(info['player_cards'])} · Banker {ui.fmt_text(info['banker_cards'])} "
    f"· announced {ui.fmt_text(info.get('announced'))}"
)
played_on = info.get("gaming_date")
round_day = pd.Timestamp(played_on).date() if links.has_id(played_on) else day
patrons = [] if settlements.empty else list(dict.fromkeys(settlements["patron_id"].dropna()))
links.show_all(
    [
        *links.of_row(
            {"table": table_id, "shoe": info["shoe_id"], "dealer": info.get("dealer_id")},
            round_day,
            table=table_id,
        ),
        *(links.link_to("patron", patron, round_day) for patron in patrons),
        links.link_to("trail", rid, round_day),
    ]
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
    # a few rows: a plain table, so the page's first paint loads no data grid (their links
    # follow it)
    st.table(exceptions, hide_index=True)
    links.show_all(
        links.link_to("exception", exception_id, round_day)
        for exception_id in exceptions["exception_id"]
    )

# The raw events are read only while shown: the round's deliveries are a scan of the day's
# events, and their grid was part of every first paint of the page though folded away.
raw = st.expander("Raw events", key="round_raw_events", on_change="rerun")
if raw.open:
    with raw, ctx.ledger() as ledger:
        events = q.round_events(ledger, table_id, rid)
        st.caption(f"{len(events)} event(s) as the devices delivered them")
        ui.grid(
            events.assign(occurred=ui.local_times(events["occurred"])), "round_events", round_day
        )
