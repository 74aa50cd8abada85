"""Where sealed gaming days are archived: the installation's ``archive.toml``.

At the close, a day's sealed rows become Parquet files in an Apache Iceberg table set
(:mod:`pipeline.ledger.archive`). Without ``archive.toml`` the archive is embedded beside the
ledger, so ``make run`` needs no server: a SQL catalog on SQLite at
``<ledger folder>/archive/catalog.db`` and the files under ``<ledger folder>/archive/warehouse``.
A property that archives elsewhere (a catalog shared by a casino group, an object store)
states it in the installation folder (:mod:`pipeline.config.installation`), where only its
administrator writes::

    namespace = "atlantic_city"      # the Iceberg namespace of this ledger's tables

    [catalog]                        # pyiceberg catalog properties, passed as they are
    type = "rest"                    # or sql, glue, hive...
    uri = "https://catalog.example/iceberg"
    warehouse = "s3://audit-archive/atlantic-city"

The ``[catalog]`` table takes any property pyiceberg's ``load_catalog`` does (``py-io-impl``,
``s3.region``...); left out, the embedded catalog is used under the namespace given. The file
is validated whole: every problem is reported at once, with the file named. As pyiceberg
does, its own configuration of a catalog named ``baccarat`` (``~/.pyiceberg.yaml``,
``PYICEBERG_CATALOG__BACCARAT__*``) adds the properties these do not state.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from pipeline.config.installation import InstallationError, installation_root

ARCHIVE_FILE = "archive.toml"
DEFAULT_NAMESPACE = "baccarat"
CATALOG_NAME = "baccarat"
"""The name pyiceberg knows the catalog by (a SQL catalog keys its rows by it)."""

_NAMESPACE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
"""Identifiers joined by dots (a nested namespace); what every catalog and engine accepts
unquoted."""


class ArchiveConfigError(InstallationError):
    """``archive.toml`` cannot be used; the message names the file, each problem and the
    fix."""


@dataclass(frozen=True)
class ArchiveSettings:
    namespace: str = DEFAULT_NAMESPACE
    catalog: Mapping[str, str] | None = None
    """pyiceberg catalog properties; ``None``: the embedded catalog beside the ledger."""
    source: Path | None = field(default=None, compare=False)
    """The file they were read from (``None``: the defaults)."""

    def catalog_properties(self, ledger_path: Path) -> dict[str, str]:
        """The catalog's properties for the ledger at ``ledger_path``: those configured, else
        a SQL catalog on SQLite and a warehouse in the ledger's folder."""
        if self.catalog is not None:
            return dict(self.catalog)
        folder = ledger_path.resolve().parent / "archive"
        return {
            "type": "sql",
            "uri": f"sqlite:///{folder / 'catalog.db'}",
            "warehouse": (folder / "warehouse").as_uri(),
        }

    def embedded_folder(self, ledger_path: Path) -> Path | None:
        """The folder the embedded archive lives in (``None`` when a catalog is configured):
        it is created before the catalog opens its SQLite file there."""
        return None if self.catalog is not None else ledger_path.resolve().parent / "archive"


def archive_settings(root: Path | None = None) -> ArchiveSettings:
    """The archive settings of the installation at ``root`` (default: the one in use,
    :func:`~pipeline.config.installation.installation_root`); the defaults when it has no
    ``archive.toml``. :class:`ArchiveConfigError` names every problem of the file."""
    path = (root if root is not None else installation_root()) / ARCHIVE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ArchiveSettings()
    except (OSError, UnicodeDecodeError) as err:
        raise ArchiveConfigError(f"{path}: cannot be read ({err})") from err
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ArchiveConfigError(f"{path}: not valid TOML ({err}); {_FIX}") from err
    errors: list[str] = []
    settings = _settings(document, errors)
    if errors:
        raise ArchiveConfigError(f"{path}: {'; '.join(errors)}. {_FIX}")
    return ArchiveSettings(settings.namespace, settings.catalog, path)


_FIX = (
    'Correct the file (keys: namespace = "NAME", and a [catalog] table of pyiceberg catalog '
    "properties), or remove it to archive into the embedded catalog beside the ledger"
)

_SCALARS = (str, int, float, bool)
"""TOML values a catalog property can be given as; pyiceberg takes each as its text."""


def _settings(document: Mapping[str, object], errors: list[str]) -> ArchiveSettings:
    """The document's settings; each problem goes to ``errors``."""
    unknown = sorted(set(document) - {"namespace", "catalog"})
    if unknown:
        errors.append(f"unknown keys {unknown}; the keys are namespace and [catalog]")
    namespace = document.get("namespace", DEFAULT_NAMESPACE)
    if not isinstance(namespace, str) or not _NAMESPACE.fullmatch(namespace):
        errors.append(
            f"namespace = {namespace!r}: state a namespace as identifiers (letters, digits, "
            '_) joined by dots, e.g. "atlantic_city"'
        )
        namespace = DEFAULT_NAMESPACE
    section = document.get("catalog")
    if section is None:
        return ArchiveSettings(namespace)
    if not isinstance(section, Mapping):
        errors.append(f"catalog = {section!r}: [catalog] must be a table of properties")
        return ArchiveSettings(namespace)
    if not section:
        errors.append(
            "[catalog] is empty: state the catalog's properties (type, uri, warehouse...), or "
            "leave the table out for the embedded catalog"
        )
    catalog: dict[str, str] = {}
    for key, value in section.items():
        if isinstance(value, bool):
            catalog[key] = "true" if value else "false"
        elif isinstance(value, _SCALARS):
            catalog[key] = str(value)
        else:
            errors.append(
                f"[catalog] {key} = {value!r}: a property is a string, number or boolean "
                "(quote anything else as a string)"
            )
    return ArchiveSettings(namespace, MappingProxyType(catalog))
