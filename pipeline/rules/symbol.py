"""The base of the rules' enumerations."""

from __future__ import annotations

import enum
import functools
from typing import Any


class Symbol(enum.Enum):
    """A closed set of names from the regulation: a wager, a result, a rank, a game.

    The replay looks members up in dictionaries and reads their values millions of times a
    gaming day, and :class:`enum.Enum` does both in Python code (a hash of the member's name,
    a descriptor call per ``.value``). Members are singletons compared by identity, so they
    hash by identity; each member's value is read once and kept on the member.
    """

    __hash__ = object.__hash__

    @functools.cached_property
    def value(self) -> Any:
        return self._value_
