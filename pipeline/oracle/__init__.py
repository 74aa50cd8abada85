"""The exact odds oracle (issue "exact odds oracle").

Enumerates every deal from a full shoe without replacement, by card value with exact removal
effects, under the rules layer's draw tables (N.J.A.C. 19:47-3.9, 4.9, 7.9), and settles every
outcome through the rules layer's settlement (3.2, 3.3, 4.10, 7.3) to give exact integer counts,
probabilities and house edges. See :func:`odds`.
"""

from pipeline.oracle.enumeration import (
    baseline_outcome_counts,
    outcome_counts,
    shoe_counts,
    total_sequences,
)
from pipeline.oracle.report import (
    DEFAULT_BET_CENTS,
    BetSizeNote,
    OddsReport,
    bet_size_note,
    derive_counts,
    house_edges,
    odds,
)

__all__ = [
    "DEFAULT_BET_CENTS",
    "BetSizeNote",
    "OddsReport",
    "baseline_outcome_counts",
    "bet_size_note",
    "derive_counts",
    "house_edges",
    "odds",
    "outcome_counts",
    "shoe_counts",
    "total_sequences",
]
