"""The file-based schema registry: manifest integrity, id resolution, registering changes."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pipeline.events import (
    FileSchemaRegistry,
    InMemorySchemaRegistry,
    RegistryError,
    UnknownSchemaIdError,
)
from pipeline.events.registry import SUBJECT, canonical_sha256, inline_schema, main

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
LATEST = FileSchemaRegistry(SCHEMA_DIR).id_for_latest()
"""The repository's latest schema id, which the sources must build."""


@pytest.fixture
def schema_copy(tmp_path: Path) -> Path:
    target = tmp_path / "schemas"
    shutil.copytree(SCHEMA_DIR, target)
    return target


def _edit_json(path: Path, change: Any) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, indent=2) + "\n")


def _card_dealt(shoe: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in shoe if r["name"] == "CardDealt")


def test_manifest_matches_the_files(registry: FileSchemaRegistry) -> None:
    manifest = json.loads((SCHEMA_DIR / "registry.json").read_text())
    assert manifest["subject"] == SUBJECT == "table-events-value"
    entries = manifest["schemas"]
    assert entries[0]["id"] == 1 and entries[0]["version"] == 1
    for entry in entries:
        path = SCHEMA_DIR / entry["file"]
        assert entry["subject"] == SUBJECT
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["file_sha256"]
        assert canonical_sha256(json.loads(path.read_text())) == entry["sha256"]
    # ...and the editable sources build exactly the latest registered schema.
    latest = max(entries, key=lambda e: e["id"])
    assert registry.source_document() == json.loads((SCHEMA_DIR / latest["file"]).read_text())


def test_resolves_ids(registry: FileSchemaRegistry) -> None:
    assert registry.id_for_latest() == max(e.id for e in registry.entries)
    schema = registry.schema_for_id(1)
    assert schema["name"] == "nj.baccarat.v1.TableEvent"
    assert registry.schema_for_id(1) is schema  # parsed once
    with pytest.raises(UnknownSchemaIdError) as caught:
        registry.schema_for_id(999)
    assert caught.value.schema_id == 999 and 1 in caught.value.known


def test_changed_source_without_new_id_is_an_error(schema_copy: Path) -> None:
    _edit_json(
        schema_copy / "shoe.avsc",
        lambda shoe: _card_dealt(shoe)["fields"].append(
            {"name": "reader_id", "type": ["null", "string"], "default": None, "doc": "x" * 12}
        ),
    )
    with pytest.raises(RegistryError, match=rf"differ from schema id {LATEST}.*register"):
        FileSchemaRegistry(schema_copy)


def test_doc_change_also_needs_a_new_id(schema_copy: Path) -> None:
    _edit_json(schema_copy / "common.avsc", lambda common: common[0].update(doc="Changed."))
    with pytest.raises(RegistryError, match=f"differ from schema id {LATEST}"):
        FileSchemaRegistry(schema_copy)


def test_edited_registered_file_is_an_error(schema_copy: Path) -> None:
    registered = schema_copy / "registered" / "table-events-value.v1.avsc"
    registered.write_text(registered.read_text().replace("casino", "kasino", 1))
    with pytest.raises(RegistryError, match="edited after it was registered"):
        FileSchemaRegistry(schema_copy)


def test_manifest_with_wrong_hash_is_an_error(schema_copy: Path) -> None:
    def corrupt(manifest: dict[str, Any]) -> None:
        manifest["schemas"][0]["sha256"] = "0" * 64

    _edit_json(schema_copy / "registry.json", corrupt)
    with pytest.raises(RegistryError, match="canonical form"):
        FileSchemaRegistry(schema_copy)


def test_duplicate_ids_are_an_error(schema_copy: Path) -> None:
    def duplicate(manifest: dict[str, Any]) -> None:
        manifest["schemas"].append(dict(manifest["schemas"][0], version=2))

    _edit_json(schema_copy / "registry.json", duplicate)
    with pytest.raises(RegistryError, match="unique"):
        FileSchemaRegistry(schema_copy)


def test_register_a_compatible_change_as_a_new_id(schema_copy: Path) -> None:
    before = (schema_copy / "registered" / "table-events-value.v1.avsc").read_bytes()
    _edit_json(
        schema_copy / "shoe.avsc",
        lambda shoe: _card_dealt(shoe)["fields"].append(
            {
                "name": "reader_id",
                "type": ["null", "string"],
                "default": None,
                "doc": "Identifier of the card reader.",
            }
        ),
    )
    entry = FileSchemaRegistry(schema_copy, verify_sources=False).register()
    assert entry is not None and (entry.id, entry.version) == (LATEST + 1, LATEST + 1)
    registry = FileSchemaRegistry(schema_copy)  # verifies again, sources match the new id
    assert registry.id_for_latest() == LATEST + 1
    assert (schema_copy / "registered" / "table-events-value.v1.avsc").read_bytes() == before
    v1_fields = str(registry.schema_for_id(1))
    assert "reader_id" not in v1_fields and "reader_id" in str(registry.schema_for_id(entry.id))
    # registering again without a change does nothing
    assert FileSchemaRegistry(schema_copy).register() is None


def test_register_refuses_a_breaking_change(schema_copy: Path) -> None:
    _edit_json(
        schema_copy / "shoe.avsc",
        lambda shoe: _card_dealt(shoe)["fields"].append(
            {"name": "reader_id", "type": "string", "doc": "Required, so breaking."}
        ),
    )
    with pytest.raises(RegistryError, match=r"reader_id.*FIELD_WITHOUT_DEFAULT"):
        FileSchemaRegistry(schema_copy, verify_sources=False).register()
    manifest = json.loads((schema_copy / "registry.json").read_text())
    assert [e["id"] for e in manifest["schemas"]] == list(range(1, LATEST + 1))


def test_register_refuses_a_symbol_added_to_a_closed_enum(schema_copy: Path) -> None:
    def joker(common: list[dict[str, Any]]) -> None:
        next(e for e in common if e["name"] == "Rank")["symbols"].append("JOKER")

    _edit_json(schema_copy / "common.avsc", joker)
    with pytest.raises(RegistryError, match="ENUM_SYMBOL_MISSING"):
        FileSchemaRegistry(schema_copy, verify_sources=False).register()


def test_inline_schema_rejects_a_record_missing_from_the_union() -> None:
    orphan = {"type": "record", "name": "Orphan", "namespace": "n", "doc": "d", "fields": []}
    used = {"type": "record", "name": "Used", "namespace": "n", "doc": "d", "fields": []}
    root = {
        "type": "record",
        "name": "Root",
        "namespace": "n",
        "fields": [{"name": "payload", "type": ["Used"]}],
    }
    assert inline_schema([[used], root])["fields"][0]["type"][0]["name"] == "Used"
    with pytest.raises(RegistryError, match=r"not used by the envelope: \['n.Orphan'\]"):
        inline_schema([[used, orphan], root])
    with pytest.raises(RegistryError, match="unknown type"):
        inline_schema([[orphan], root])


def test_in_memory_registry(v1_document: dict[str, Any]) -> None:
    registry = InMemorySchemaRegistry({1: v1_document})
    assert registry.id_for_latest() == 1
    assert registry.schema_for_id(1)["name"] == "nj.baccarat.v1.TableEvent"
    with pytest.raises(UnknownSchemaIdError):
        registry.schema_for_id(2)


def test_command_line_check(capsys: pytest.CaptureFixture[str], schema_copy: Path) -> None:
    assert main(["check", str(schema_copy)]) == 0
    assert f"sources match id {LATEST}" in capsys.readouterr().out
    (schema_copy / "registry.json").write_text("{")
    assert main(["check", str(schema_copy)]) == 1
    assert "cannot read the manifest" in capsys.readouterr().err
