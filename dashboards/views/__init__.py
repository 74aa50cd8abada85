"""Page scripts run by st.navigation in dashboards/app.py (not imported). The folder is not
called pages/: Streamlit would then treat it as an old-style multipage app and run a page
without the entry script."""
