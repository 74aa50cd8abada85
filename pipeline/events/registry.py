"""A file-based schema registry: integer schema ids for the table-event contract.

``schemas/registry.json`` is the manifest. It names the editable source files (``sources``, in
loading order: shared enums first, the ``TableEvent`` envelope last) and lists every registered
schema::

    {"id": 1, "subject": "table-events-value", "version": 1,
     "file": "registered/table-events-value.v1.avsc",
     "sha256": "<sha256 of the schema's Avro Parsing Canonical Form>",
     "file_sha256": "<sha256 of the registered file's bytes>"}

A registered file is a frozen, self-contained copy of the envelope with every named type
defined inline at its first use (docs and defaults included). It is never edited: data written
under an id must stay readable after the sources move on. On load, :class:`FileSchemaRegistry`
checks that every registered file is intact and that the sources still produce exactly the
latest registered schema of their subject, so a changed ``.avsc`` file without a new id is an
error, not a silent change of the contract.

The codec needs only :class:`SchemaRegistry` (``schema_for_id`` and ``id_for_latest``), so a
Confluent Schema Registry client can replace this class without touching the codec.

Command line (run from the repository root)::

    python -m pipeline.events check      # verify the manifest against the files
    python -m pipeline.events register   # register changed sources as a new id, and
                                         # regenerate pipeline/events/payloads.py
    python -m pipeline.events payloads   # regenerate payloads.py from the latest id
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from fastavro.schema import parse_schema, to_parsing_canonical_form

from pipeline.events import payload_codegen
from pipeline.events._binary import collect_names
from pipeline.events.compat import Problem, compatibility_problems

ParsedSchema = dict[str, Any]
"""A schema as returned by :func:`fastavro.parse_schema`, ready for the reader and writer."""

SUBJECT = "table-events-value"
"""The subject of the envelope: the value schema of the ``table-events`` topic."""

MANIFEST = "registry.json"
SCHEMA_DIR_ENV = "BACCARAT_SCHEMA_DIR"
"""Environment variable overriding where the ``schemas`` directory is."""

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_NAMED = frozenset({"record", "error", "enum", "fixed"})
_NO_DEFAULT = object()
_PAYLOAD_BRANCH = re.compile(r"payload(<\w+>)?")


class RegistryError(Exception):
    """The manifest and the schema files disagree, or a schema cannot be parsed."""


class UnknownSchemaIdError(LookupError):
    """No schema is registered under the id."""

    def __init__(self, schema_id: int, known: Sequence[int]) -> None:
        self.schema_id = schema_id
        self.known = tuple(known)
        super().__init__(
            f"schema id {schema_id} is not registered (known ids: "
            f"{', '.join(map(str, self.known)) or 'none'})"
        )


class SchemaRegistry(Protocol):
    """What the codec needs from a schema registry (a Confluent client can provide it)."""

    def schema_for_id(self, schema_id: int) -> ParsedSchema:
        """The parsed schema registered under ``schema_id``; raises
        :class:`UnknownSchemaIdError` if there is none."""
        ...

    def id_for_latest(self) -> int:
        """The id of the latest registered version of the envelope's subject."""
        ...


@dataclass(frozen=True, slots=True)
class RegisteredSchema:
    """One entry of the manifest."""

    id: int
    subject: str
    version: int
    file: str
    sha256: str
    file_sha256: str


def default_schema_dir() -> Path:
    """``$BACCARAT_SCHEMA_DIR`` if set, else the repository's ``schemas`` directory."""
    override = os.environ.get(SCHEMA_DIR_ENV)
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "schemas"


def canonical_sha256(schema: Any) -> str:
    """SHA-256 (hex) of the schema's Avro Parsing Canonical Form.

    The canonical form keeps only what the binary encoding depends on (names, types, fields,
    symbols); docs, defaults and logical types do not change it.
    """
    return hashlib.sha256(to_parsing_canonical_form(schema).encode()).hexdigest()


def _fullname(name: str, namespace: str | None) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def inline_schema(sources: Sequence[Any]) -> dict[str, Any]:
    """One self-contained schema from source documents in loading order.

    Each source is a named type or a list of them; the last is the root (the envelope). Named
    types are defined inline at their first use and referenced by full name afterwards, which
    is what any Avro parser accepts. Raises :class:`RegistryError` on an unknown reference, a
    type defined twice, or a type defined but never used by the root (a payload record
    forgotten in the envelope's union).
    """
    if not sources:
        raise RegistryError("no schema sources")
    definitions: dict[str, dict[str, Any]] = {}
    for source in sources[:-1]:
        for item in source if isinstance(source, list) else [source]:
            if not isinstance(item, dict) or item.get("type") not in _NAMED:
                raise RegistryError(f"a source file holds a non-named type: {item!r:.80}")
            full = _fullname(item["name"], item.get("namespace"))
            if full in definitions:
                raise RegistryError(f"named type {full} is defined twice in the sources")
            definitions[full] = item
    emitted: set[str] = set()

    def walk(schema: Any, namespace: str | None) -> Any:
        if isinstance(schema, str):
            if schema in _PRIMITIVES:
                return schema
            full = _fullname(schema, namespace)
            if full in emitted:
                return full
            if full not in definitions:
                raise RegistryError(f"unknown type {schema!r} (resolved as {full})")
            return walk(definitions[full], namespace)
        if isinstance(schema, list):
            return [walk(branch, namespace) for branch in schema]
        if not isinstance(schema, dict):
            raise RegistryError(f"not a schema: {schema!r:.80}")
        kind = schema.get("type")
        if isinstance(kind, (dict, list)):
            return {**schema, "type": walk(kind, namespace)}
        out = dict(schema)
        if kind in _NAMED:
            full = _fullname(schema["name"], schema.get("namespace", namespace))
            if full in emitted:
                raise RegistryError(f"named type {full} is defined twice")
            emitted.add(full)
            inner_ns = full.rpartition(".")[0] or None
            if kind in ("record", "error"):
                out["fields"] = [
                    {**field, "type": walk(field["type"], inner_ns)} for field in schema["fields"]
                ]
        elif kind == "array":
            out["items"] = walk(schema["items"], namespace)
        elif kind == "map":
            out["values"] = walk(schema["values"], namespace)
        return out

    root = walk(sources[-1], None)
    unused = sorted(set(definitions) - emitted)
    if unused:
        raise RegistryError(
            f"named types defined in the sources but not used by the envelope: {unused}; "
            "add each payload record to the end of TableEvent.payload (schemas/README.md)"
        )
    if not isinstance(root, dict):
        raise RegistryError("the last source must be the envelope record")
    return root


def _sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _parse(schema: Any, what: str) -> ParsedSchema:
    try:
        parsed = parse_schema(schema)
    except Exception as exc:  # fastavro raises several types for a bad schema
        raise RegistryError(f"{what} is not a valid Avro schema: {exc}") from exc
    if not isinstance(parsed, dict):
        raise RegistryError(f"{what} must be a record schema")
    return parsed


def _dump(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


class FileSchemaRegistry:
    """The registry described by ``registry.json`` in ``directory`` (see module docstring)."""

    def __init__(self, directory: Path | str | None = None, *, verify_sources: bool = True) -> None:
        self.directory = Path(directory) if directory is not None else default_schema_dir()
        manifest_path = self.directory / MANIFEST
        try:
            manifest = json.loads(manifest_path.read_text())
        except (OSError, ValueError) as exc:
            raise RegistryError(f"cannot read the manifest {manifest_path}: {exc}") from exc
        self.subject: str = manifest.get("subject", SUBJECT)
        self.sources: tuple[str, ...] = tuple(manifest.get("sources", ()))
        self.entries: tuple[RegisteredSchema, ...] = self._entries(manifest, manifest_path)
        self._schemas: dict[int, ParsedSchema] = {}
        self._documents: dict[int, dict[str, Any]] = {}
        for entry in self.entries:
            self._load_entry(entry)
        if verify_sources:
            self.verify_sources()

    # -- SchemaRegistry -------------------------------------------------------------------
    def schema_for_id(self, schema_id: int) -> ParsedSchema:
        try:
            return self._schemas[schema_id]
        except KeyError:
            raise UnknownSchemaIdError(schema_id, sorted(self._schemas)) from None

    def id_for_latest(self) -> int:
        return self.latest(self.subject).id

    # -- the rest -------------------------------------------------------------------------
    def latest(self, subject: str) -> RegisteredSchema:
        matching = [e for e in self.entries if e.subject == subject]
        if not matching:
            raise RegistryError(f"no schema registered for subject {subject!r}")
        return max(matching, key=lambda e: e.version)

    def document(self, schema_id: int) -> dict[str, Any]:
        """The registered schema as JSON (docs included), e.g. to publish to vendors."""
        self.schema_for_id(schema_id)
        return self._documents[schema_id]

    def source_document(self) -> dict[str, Any]:
        """The envelope as the current source files define it, inlined."""
        if not self.sources:
            raise RegistryError(f"{MANIFEST} lists no sources")
        documents = []
        for name in self.sources:
            path = self.directory / name
            try:
                documents.append(json.loads(path.read_text()))
            except (OSError, ValueError) as exc:
                raise RegistryError(f"cannot read schema source {path}: {exc}") from exc
        return inline_schema(documents)

    def verify_sources(self) -> None:
        """Raise :class:`RegistryError` unless the sources equal the latest registered schema."""
        source = self.source_document()
        _parse(source, "the envelope built from the sources")
        latest = self.latest(self.subject)
        if source != self._documents[latest.id]:
            raise RegistryError(
                f"the schema sources in {self.directory} ({', '.join(self.sources)}) differ from "
                f"schema id {latest.id} ({latest.subject} version {latest.version}, "
                f"{latest.file}). A registered schema never changes: if the change follows "
                "schemas/README.md, register it as a new id with "
                "`python -m pipeline.events register`; otherwise revert the sources."
            )

    @staticmethod
    def _entries(manifest: Mapping[str, Any], path: Path) -> tuple[RegisteredSchema, ...]:
        entries: list[RegisteredSchema] = []
        try:
            for raw in manifest["schemas"]:
                entries.append(
                    RegisteredSchema(
                        id=int(raw["id"]),
                        subject=str(raw["subject"]),
                        version=int(raw["version"]),
                        file=str(raw["file"]),
                        sha256=str(raw["sha256"]),
                        file_sha256=str(raw["file_sha256"]),
                    )
                )
        except (KeyError, TypeError, ValueError) as exc:
            raise RegistryError(f"{path}: malformed schema entry: {exc!r}") from exc
        ids = [e.id for e in entries]
        if len(set(ids)) != len(ids) or any(i <= 0 for i in ids):
            raise RegistryError(f"{path}: schema ids must be unique positive integers: {ids}")
        if ids != sorted(ids):
            raise RegistryError(f"{path}: schemas must be listed in id order: {ids}")
        for subject in {e.subject for e in entries}:
            versions = [e.version for e in entries if e.subject == subject]
            if versions != list(range(1, len(versions) + 1)):
                raise RegistryError(
                    f"{path}: versions of {subject!r} must run 1, 2, 3... in id order: {versions}"
                )
        return tuple(entries)

    def _load_entry(self, entry: RegisteredSchema) -> None:
        path = self.directory / entry.file
        try:
            text = path.read_bytes()
        except OSError as exc:
            raise RegistryError(f"schema id {entry.id}: cannot read {path}: {exc}") from exc
        if hashlib.sha256(text).hexdigest() != entry.file_sha256:
            raise RegistryError(
                f"schema id {entry.id}: {path} was edited after it was registered (file_sha256 "
                "mismatch). Registered schemas are immutable because data written under the id "
                "must stay readable: restore the file from version control and register the "
                "change as a new id."
            )
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise RegistryError(f"schema id {entry.id}: {path} is not JSON: {exc}") from exc
        parsed = _parse(document, f"schema id {entry.id} ({path})")
        if canonical_sha256(parsed) != entry.sha256:
            raise RegistryError(
                f"schema id {entry.id}: the canonical form of {path} does not match the "
                "manifest's sha256"
            )
        self._schemas[entry.id] = parsed
        self._documents[entry.id] = document

    def register(self) -> RegisteredSchema | None:
        """Register the current sources as the next version, if they changed.

        Refuses (``RegistryError``) a change that breaks the evolution policy against any
        earlier version of the subject. Returns the new entry, or ``None`` if nothing changed.
        """
        source = self.source_document()
        parsed = _parse(source, "the envelope built from the sources")
        previous = [e for e in self.entries if e.subject == self.subject]
        if previous and source == self._documents[previous[-1].id]:
            return None
        problems: list[str] = []
        for entry in previous:
            problems += [
                f"against id {entry.id}: {p}"
                for p in policy_violations(
                    self._schemas[entry.id], parsed, forward=entry is previous[-1]
                )
            ]
        if problems:
            raise RegistryError(
                "the source change breaks the evolution policy (schemas/README.md):\n  "
                + "\n  ".join(problems)
            )
        new_id = max((e.id for e in self.entries), default=0) + 1
        version = len(previous) + 1
        relative = f"registered/{self.subject}.v{version}.avsc"
        target = self.directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_dump(source))
        entry = RegisteredSchema(
            id=new_id,
            subject=self.subject,
            version=version,
            file=relative,
            sha256=canonical_sha256(parsed),
            file_sha256=_sha256_file(target),
        )
        manifest_path = self.directory / MANIFEST
        manifest = json.loads(manifest_path.read_text())
        manifest["schemas"].append(
            {
                "id": entry.id,
                "subject": entry.subject,
                "version": entry.version,
                "file": entry.file,
                "sha256": entry.sha256,
                "file_sha256": entry.file_sha256,
            }
        )
        manifest_path.write_text(_dump(manifest))
        return entry


def policy_violations(old: ParsedSchema, new: ParsedSchema, *, forward: bool = True) -> list[str]:
    """Why ``new`` may not follow ``old`` in the same subject (empty if it may).

    The new schema must read everything written with the old one (backward: :meth:`register`
    checks it against every earlier version, so archives stay readable). With ``forward``
    (:meth:`register` asks it of the latest version only, so consumers one version behind keep
    reading during a rollout), the old schema must read everything written with the new one,
    except:

    - payload record types appended to the envelope's union, which old readers cannot know;
    - an enum's fallback symbol, added as its ``default`` together with the default: it is
      what readers substitute for symbols they do not know, and producers never write it.

    Once an enum has a default, symbols appended to it pass the forward check against the
    versions that have it: a new wager type is a new version, not a new contract.
    """
    old, new = _parse(old, "the old schema"), _parse(new, "the new schema")  # full names
    backward = compatibility_problems(reader=new, writer=old)
    fallbacks = _new_fallback_symbols(old, new)
    forward_problems = [
        p
        for p in (compatibility_problems(reader=old, writer=new) if forward else ())
        if not (p.kind == Problem.UNION_BRANCH_MISSING and _PAYLOAD_BRANCH.fullmatch(p.path))
        and not (p.kind == Problem.ENUM_SYMBOL_MISSING and p.symbols == fallbacks.get(p.enum))
    ]
    return (
        [f"new schema cannot read old data: {p}" for p in backward]
        + [f"old schema cannot read new data: {p}" for p in forward_problems]
        + _order_violations(old, new)
    )


def _new_fallback_symbols(old: ParsedSchema, new: ParsedSchema) -> dict[str, tuple[str]]:
    """Enum name -> the default ``new`` gives an enum of ``old`` that had none, when the
    default is a symbol ``old`` lacks."""
    old_names = collect_names(old)
    found: dict[str, tuple[str]] = {}
    for name, schema in collect_names(new).items():
        before = old_names.get(name)
        if (
            schema.get("type") == "enum"
            and "default" in schema
            and before is not None
            and before.get("type") == "enum"
            and "default" not in before
            and schema["default"] not in before["symbols"]
        ):
            found[name] = (schema["default"],)
    return found


def _order_violations(old: ParsedSchema, new: ParsedSchema) -> list[str]:
    """Append-only rules Avro itself does not need but the contract promises: enum symbols
    and payload record types are only added at the end, never reordered or removed."""
    found: list[str] = []
    old_names, new_names = collect_names(old), collect_names(new)
    for name, schema in old_names.items():
        other = new_names.get(name)
        if schema.get("type") == "enum" and other is not None and other.get("type") == "enum":
            symbols = list(schema["symbols"])
            if list(other["symbols"][: len(symbols)]) != symbols:
                found.append(f"enum {name}: symbols may only be appended to {symbols}")

        if schema.get("type") in ("record", "error") and other is not None:
            if other.get("type") not in ("record", "error"):
                continue
            new_fields = {f["name"]: f for f in other["fields"]}
            for field in schema["fields"]:
                match = new_fields.get(field["name"])
                if match is not None and match.get("default", _NO_DEFAULT) != field.get(
                    "default", _NO_DEFAULT
                ):
                    found.append(f"{name}.{field['name']}: a default may not change")

    def payload_names(schema: ParsedSchema) -> list[str]:
        for field in schema.get("fields", ()):
            if field["name"] == "payload" and isinstance(field["type"], list):
                return [b if isinstance(b, str) else str(b.get("name")) for b in field["type"]]
        return []

    before, after = payload_names(old), payload_names(new)
    if after[: len(before)] != before:
        found.append("payload: record types may only be appended to the union, in order")
    return found


class InMemorySchemaRegistry:
    """A registry held in memory, for tests and tools: ids mapped to schemas."""

    def __init__(self, schemas: Mapping[int, Any], latest: int | None = None) -> None:
        if not schemas:
            raise RegistryError("an in-memory registry needs at least one schema")
        self._schemas = {int(k): _parse(v, f"schema id {k}") for k, v in schemas.items()}
        self._latest = max(self._schemas) if latest is None else latest
        if self._latest not in self._schemas:
            raise RegistryError(f"latest id {self._latest} is not among the schemas")

    def schema_for_id(self, schema_id: int) -> ParsedSchema:
        try:
            return self._schemas[schema_id]
        except KeyError:
            raise UnknownSchemaIdError(schema_id, sorted(self._schemas)) from None

    def id_for_latest(self) -> int:
        return self._latest


_default: FileSchemaRegistry | None = None


def default_registry() -> FileSchemaRegistry:
    """The repository's registry, loaded and verified once per process."""
    global _default
    if _default is None:
        _default = FileSchemaRegistry()
    return _default


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args else "check"
    directory = Path(args[1]) if len(args) > 1 else None
    try:
        if command == "check":
            registry = FileSchemaRegistry(directory)
            latest = registry.latest(registry.subject)
            print(
                f"ok: {len(registry.entries)} schema(s); sources match id {latest.id} "
                f"({latest.subject} v{latest.version})"
            )
            return 0
        if command == "register":
            registry = FileSchemaRegistry(directory, verify_sources=False)
            entry = registry.register()
            if entry is None:
                print("unchanged: the sources equal the latest registered schema")
            else:
                print(f"registered id {entry.id}: {entry.subject} v{entry.version} -> {entry.file}")
            FileSchemaRegistry(directory)  # verify the result
            if directory is None:
                print(f"regenerated {payload_codegen.write()}")
            return 0
        if command == "payloads":
            print(f"regenerated {payload_codegen.write()}")
            return 0
    except RegistryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(
        "usage: python -m pipeline.events [check|register|payloads] [SCHEMA_DIR]",
        file=sys.stderr,
    )
    return 2
