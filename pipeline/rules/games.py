"""The three games of N.J.A.C. 19:47 this product audits."""

from __future__ import annotations

from pipeline.rules.symbol import Symbol


class Game(Symbol):
    PUNTO_BANCO = "PUNTO_BANCO"  # N.J.A.C. 19:47-3
    CHEMIN_DE_FER = "CHEMIN_DE_FER"  # N.J.A.C. 19:47-4
    MINIBACCARAT = "MINIBACCARAT"  # N.J.A.C. 19:47-7
