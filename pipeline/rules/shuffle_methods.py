"""The ways a shoe's cards may be shuffled, as the subchapters name them (3.5(a), 4.4(a), 7.5(b),
7.1(d), 7.12). Which game offers which is a fact of its variant
(:attr:`pipeline.rules.variants.Variant.shuffle_options`)."""

from __future__ import annotations

from pipeline.rules.symbol import Symbol


class ShuffleMethod(Symbol):
    MANUAL_LACE = "MANUAL_LACE"  # 3.5(a)1, 4.4(a)1, 7.5(b)2: shuffle, then lace about one deck
    MANUAL_WASH = "MANUAL_WASH"  # 3.5(a)2, 4.4(a)2: wash and stack, three dealers shuffle
    FEATHERED = "FEATHERED"  # 7.5(b)1: Minibaccarat only
    AUTOMATED_BATCH = "AUTOMATED_BATCH"  # 7.1(d): two batches alternated by a shuffler
    # 7.12 "Continuous shuffling shoe or device": Minibaccarat only (the given texts hold its
    # title; subchapters 3 and 4 have no such section, and 6.9 governs subchapter 6).
    CONTINUOUS = "CONTINUOUS"


__all__ = ["ShuffleMethod"]
