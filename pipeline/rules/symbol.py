"""The base of the rules' enumerations."""

from __future__ import annotations

import enum


class Symbol(enum.Enum):
    """A closed set of names from the regulation: a wager, a result, a rank, a game.

    Members are singletons compared by identity, so they hash by identity too. The replay
    looks them up in dictionaries millions of times a gaming day, and :class:`enum.Enum`'s own
    hash (of the member's name) runs as Python code.
    """

    __hash__ = object.__hash__
