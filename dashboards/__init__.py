"""Streamlit dashboards over the ledger for surveillance analysts, accountants and compliance
investigators. Entry point: ``streamlit run dashboards/app.py`` (``$BACCARAT_DB`` names the
ledger). The modules other than ``app.py`` and ``views/`` hold no Streamlit code except
``ui.py``: queries, statistics, roads and round reconstruction are plain functions."""
