"""Compliance: the full trail of one round or one Form, and its evidence bundle."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from dashboards import links, ui
from dashboards import queries as q
from pipeline.bundle.export import BundleError, export_bundle, file_sha256
from pipeline.config.roles import Action
from pipeline.safe_text import file_stem, markdown_text

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Trail and evidence bundle")
st.caption(
    "Raw events as the devices delivered them → the rows the replay derived → the "
    "exceptions it found → who acknowledged or escalated them."
)

links.from_url(["trail_kind", "trail_value"])
if "trail_value" not in st.session_state:
    for param, label in (("round", "Round"), ("serial", "Form serial")):
        if st.query_params.get(param):
            st.session_state["trail_kind"] = label
            st.session_state["trail_value"] = st.query_params.get(param)
            break
c1, c2 = st.columns([1, 3])
kind = c1.radio("Trail of", ["Round", "Form serial"], key="trail_kind")
typed = c2.text_input("Round id" if kind == "Round" else "Form serial", key="trail_value")
# a round id is taken as typed (a device's id may hold any character); a serial is a number
value = typed if kind == "Round" and typed.strip() else typed.strip()
if not value:
    st.info("Type a round id or a Form serial (or pick one on the Search page).")
    st.stop()
if kind == "Form serial" and not value.isdigit():
    st.error("A Form serial is a number.")
    st.stop()
round_id = value if kind == "Round" else None
serial = int(value) if kind == "Form serial" else None
links.keep({"round": round_id, "serial": None if serial is None else str(serial)})

with ctx.ledger() as ledger:
    found = q.trail(ledger, ctx.journal, round_id=round_id, serial=serial)
    if round_id and round_id != round_id.strip() and found.events.empty:
        # stray whitespace around a pasted id, forgiven when the id as typed is unknown
        value = round_id = round_id.strip()
        found = q.trail(ledger, ctx.journal, round_id=round_id, serial=serial)

if found.events.empty and all(df.empty for df in found.derived.values()):
    st.warning(f"Nothing in the ledger for {kind.lower()} {markdown_text(value)}.")
    st.stop()

st.subheader(f"1. Raw events ({len(found.events)})")
ui.grid(
    found.events.assign(occurred=ui.local_times(found.events["occurred"])).drop(
        columns=["occurred_at"]
    ),
    "t_events",
    day,
)
st.subheader("2. Derived rows")
for table, df in found.derived.items():
    with st.expander(f"{table} ({len(df)})", expanded=table in ("rounds", "comp_vig_forms")):
        ui.grid(df, f"t_{table}", day)
st.subheader(f"3. Exceptions ({len(found.exceptions)})")
ui.grid(
    found.exceptions[["exception_id", "severity", "code", "section", "seat", "message"]]
    if not found.exceptions.empty
    else found.exceptions,
    "t_exceptions",
    day,
)
st.subheader(f"4. Acknowledgements and assignments ({len(found.acknowledgements)})")
ui.grid(
    found.acknowledgements.assign(assignee=ui.visible_cells(found.acknowledgements["assignee"])),
    "t_acks",
    day,
)

st.subheader("Evidence bundle")
st.caption(
    "A zip with the events as an Avro container file, the derived rows as CSV, the "
    "acknowledgements, the rule citations and a SHA-256 manifest; check it with "
    "`baccarat-audit verify-bundle`."
)
if not ctx.may(Action.EXPORT):
    st.info(
        "Building an evidence bundle needs a signed-in user with the investigator or admin role."
    )
elif st.button("Build evidence bundle", key="t_build"):
    with ctx.ledger() as ledger, tempfile.TemporaryDirectory() as tmp:
        try:
            path = export_bundle(
                ledger,
                round_id=round_id,
                serial=serial,
                out=Path(tmp),
                journal=ctx.journal,
                source=str(ctx.snapshot.live),
            )
        except BundleError as err:
            st.error(markdown_text(err))
            st.stop()
        st.session_state["bundle"] = (path.name, path.read_bytes(), file_sha256(path))
bundle = st.session_state.get("bundle")
if bundle and bundle[0].endswith(f"-{file_stem(value)}.zip"):  # the bundle of what is shown
    name, data, digest = bundle
    st.download_button(
        f"Download {name}", data, file_name=name, mime="application/zip", key="t_download"
    )
    st.code(f"sha256 {digest}", language=None)
