"""Checkpoints of the record, and the witnesses that hold them outside the operator's reach.

:mod:`~pipeline.witness.checkpoint` (pure: the hash chain, what a checkpoint signs),
:mod:`~pipeline.witness.store` (a witness's append-only store and its rules),
:mod:`~pipeline.witness.server` (the small HTTP witness process),
:mod:`~pipeline.witness.client` (sending checkpoints and fetching them back).
"""
