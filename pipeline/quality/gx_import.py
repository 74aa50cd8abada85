"""Great Expectations' import, without loading what the suites never use.

Importing GX imports every expectation it ships. One of them, the KL-divergence expectation,
imports altair and scipy.stats: 0.8-1.0 s of GX's 2.2-2.4 s import, which every close pays in
its own process (issue 13) for modules it never calls. While GX is imported here, and on the
thread importing it only, they are imported lazily (:class:`importlib.util.LazyLoader`):
found as usual, so a missing one still fails at once, and executed on first use, if any. A
module that fails while it executes then fails at that first use instead (and stays half
loaded); and before Python 3.12.3 two threads using one for the first time at the same moment
may see it empty (CPython gh-114763). Nothing in the pipeline uses either.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

UNUSED_BY_THE_SUITES = frozenset({"altair", "scipy.stats"})
"""Modules GX imports at its own import that no expectation of the suites uses."""


class _Deferring(importlib.abc.MetaPathFinder):
    """Finds the modules in ``names`` as the other finders do, with a lazy loader, for the
    imports of the thread ``importing`` (none: for no thread)."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.importing: int | None = None

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self.names or self.importing != threading.get_ident():
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: importlib.machinery.ModuleSpec | None = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = importlib.util.LazyLoader(spec.loader)
                return spec
        return None


_deferring = _Deferring(UNUSED_BY_THE_SUITES)
_lock = threading.Lock()


def import_great_expectations() -> None:
    """Import GX with :data:`UNUSED_BY_THE_SUITES` deferred (nothing to do once it is
    imported). The finder stays installed, inactive, afterwards: removing it could make an
    import running on another thread skip the finder after it in ``sys.meta_path``."""
    with _lock:
        if "great_expectations" in sys.modules:
            return
        if _deferring not in sys.meta_path:
            sys.meta_path.insert(0, _deferring)
        _deferring.importing = threading.get_ident()
        try:
            import great_expectations  # noqa: F401
        finally:
            _deferring.importing = None
