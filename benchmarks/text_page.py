"""The page-load benchmark's baseline (``bench_dashboard.py``): a Streamlit page that renders
only text, so a dashboard page's first load can be told apart from what Streamlit's own front
end costs to load, connect and run a script."""

import streamlit as st

st.set_page_config(page_title="Baccarat audit", layout="wide")
st.title("Text only")
st.write("Streamlit's front end, one script run and one paragraph of text: nothing else.")
