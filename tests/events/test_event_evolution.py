"""The evolution policy of schemas/README.md, demonstrated on a v2 built here."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_reader, schemaless_writer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.events import (
    DecodeReason,
    EventCodec,
    EventDecodeError,
    FileSchemaRegistry,
    InMemorySchemaRegistry,
    make_event,
)
from pipeline.events._binary import collect_names
from pipeline.events.compat import Problem, compatibility_problems
from pipeline.events.convert import from_record, to_record
from pipeline.events.registry import policy_violations
from tests.events.conftest import strategy_for
from tests.replay.builder import TableDayBuilder

NOW = dt.datetime(2025, 3, 1, 22, 0, tzinfo=dt.UTC)
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
NEW_FIELD = {
    "name": "read_confidence",
    "type": ["null", "int"],
    "default": None,
    "doc": "Reader's confidence in the card's identification, 0-100; null if not measured.",
}


def record(document: dict[str, Any], name: str) -> dict[str, Any]:
    """A named type of the inlined envelope document (defined at its first use)."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            if node.get("name") == name and node.get("type") in ("record", "enum"):
                found.append(node)
            for field in node.get("fields", ()):
                walk(field["type"])

    walk(document)
    assert len(found) == 1, name
    return found[0]


def evolve(v1: dict[str, Any], *changes: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    document = copy.deepcopy(v1)
    for change in changes:
        change(document)
    return document


def add_field(document: dict[str, Any]) -> None:
    record(document, "CardDealt")["fields"].append(NEW_FIELD)


def add_irregularity_kind(document: dict[str, Any]) -> None:
    record(document, "IrregularityKind")["symbols"].append("CARD_MISREAD")


@pytest.fixture(scope="module")
def v2(v1_document: dict[str, Any]) -> dict[str, Any]:
    return evolve(v1_document, add_field, add_irregularity_kind)


def write(schema: Any, datum: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    schemaless_writer(out, parse_schema(schema), datum)
    return out.getvalue()


def read(data: bytes, writer: Any, reader: Any) -> Any:
    return schemaless_reader(
        io.BytesIO(data),
        parse_schema(writer),
        parse_schema(reader),
        return_record_name=True,
        return_record_name_override=True,
    )


def card_event(**extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = dict(
        make_event(
            "PB-07", "shoe-07", 7, NOW, "CardDealt", shoe_id="S-1", round_id="R-1",
            position=9, rank="QUEEN", suit="SPADES", hand="BANKER",
        )
    )  # fmt: skip
    name, fields = event["payload"]
    event["payload"] = (name, {**fields, **extra})
    return event


def irregularity(kind: str) -> dict[str, Any]:
    event: dict[str, Any] = dict(
        make_event("PB-07", "ctl", 8, NOW, "IrregularityReported", kind="OTHER")
    )
    name, fields = event["payload"]
    event["payload"] = (name, {**fields, "kind": kind})
    return event


def test_v1_reader_reads_v2_data(v1_document: dict[str, Any], v2: dict[str, Any]) -> None:
    event = card_event(read_confidence=97)
    decoded = read(write(v2, event), writer=v2, reader=v1_document)
    assert decoded["payload"][1] == {
        k: v for k, v in event["payload"][1].items() if k != "read_confidence"
    }
    # a symbol unknown to v1 falls back to IrregularityKind's default, OTHER
    misread = read(write(v2, irregularity("CARD_MISREAD")), writer=v2, reader=v1_document)
    assert misread["payload"][1]["kind"] == "OTHER"


def test_v2_reader_reads_v1_data(v1_document: dict[str, Any], v2: dict[str, Any]) -> None:
    event = card_event()
    decoded = read(write(v1_document, event), writer=v1_document, reader=v2)
    assert decoded["payload"][1] == {**event["payload"][1], "read_confidence": None}
    assert decoded["event_id"] == event["event_id"]


def test_through_the_codec_and_registry(v1_document: dict[str, Any], v2: dict[str, Any]) -> None:
    registry = InMemorySchemaRegistry({1: v1_document, 2: v2})
    old_device = EventCodec(registry, reader_schema_id=1)
    new_device = EventCodec(registry)
    old_pipeline = EventCodec(registry, reader_schema_id=1)
    new_pipeline = EventCodec(registry)
    assert new_pipeline.schema_id == 2

    from_old = old_device.encode(card_event())
    assert from_old[1:5] == (1).to_bytes(4, "big")
    assert new_pipeline.decode(from_old)["payload"][1]["read_confidence"] is None

    from_new = new_device.encode(card_event(read_confidence=55))
    assert from_new[1:5] == (2).to_bytes(4, "big")
    assert "read_confidence" not in old_pipeline.decode(from_new)["payload"][1]
    assert new_pipeline.decode(from_new)["payload"][1]["read_confidence"] == 55


def test_the_compatible_v2_passes_the_policy(
    v1_document: dict[str, Any], v2: dict[str, Any]
) -> None:
    assert compatibility_problems(reader=v1_document, writer=v2) == []
    assert compatibility_problems(reader=v2, writer=v1_document) == []
    assert policy_violations(v1_document, v2) == []


def test_a_new_event_type_is_backward_only(v1_document: dict[str, Any]) -> None:
    def add_type(document: dict[str, Any]) -> None:
        document["fields"][5]["type"].append(
            {
                "type": "record",
                "name": "DealerChanged",
                "namespace": "nj.baccarat.v1",
                "doc": "The dealer changed.",
                "fields": [{"name": "dealer_id", "type": "string", "doc": "The new dealer."}],
            }
        )

    v2 = evolve(v1_document, add_type)
    assert policy_violations(v1_document, v2) == []  # allowed, appended at the end
    forward = compatibility_problems(reader=v1_document, writer=v2)
    assert [(p.kind, p.path) for p in forward] == [
        (Problem.UNION_BRANCH_MISSING, "payload<DealerChanged>")
    ]

    registry = InMemorySchemaRegistry({1: v1_document, 2: v2}, latest=1)
    new_device = EventCodec(registry, reader_schema_id=2)
    event = new_device.make_event("PB-07", "ctl", 3, NOW, "DealerChanged", dealer_id="D-9")
    with pytest.raises(EventDecodeError) as caught:
        EventCodec(registry).decode(new_device.encode(event))
    assert caught.value.reason is DecodeReason.SCHEMA_MISMATCH
    assert caught.value.device_id == "ctl" and caught.value.schema_id == 2


def _insert_first(document: dict[str, Any]) -> None:
    record(document, "Suit")["symbols"].insert(0, "STARS")


def _required_field(document: dict[str, Any]) -> None:
    record(document, "CardDealt")["fields"].append(
        {"name": "reader_id", "type": "string", "doc": "Required, so v1 data cannot fill it."}
    )


def _promote(document: dict[str, Any]) -> None:
    field = next(f for f in record(document, "CardDealt")["fields"] if f["name"] == "position")
    field["type"] = "long"


def _millis(document: dict[str, Any]) -> None:
    document["fields"][4]["type"]["logicalType"] = "timestamp-millis"


def _rename(document: dict[str, Any]) -> None:
    record(document, "CardDealt")["fields"][2]["name"] = "shoe_position"


def _default(document: dict[str, Any]) -> None:
    record(document, "CardDealt")["fields"][-1]["default"] = False


def _reorder_union(document: dict[str, Any]) -> None:
    union = document["fields"][5]["type"]
    union[0], union[1] = union[1], union[0]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: record(d, "Rank")["symbols"].append("JOKER"), "ENUM_SYMBOL_MISSING"),
        (_insert_first, "symbols may only be appended"),
        (_required_field, "FIELD_WITHOUT_DEFAULT"),
        (_promote, "TYPE_MISMATCH"),
        (_millis, "LOGICAL_TYPE_CHANGED"),
        (_rename, "FIELD_WITHOUT_DEFAULT"),
        (_default, "a default may not change"),
        (_reorder_union, "only be appended to the union"),
    ],
)
def test_breaking_changes_are_refused(
    v1_document: dict[str, Any], change: Callable[[dict[str, Any]], None], expected: str
) -> None:
    violations = policy_violations(v1_document, evolve(v1_document, change))
    assert any(expected in v for v in violations), violations


# -- an evolvable wager type ------------------------------------------------------------------


def add_wager_type(document: dict[str, Any]) -> None:
    """A side bet a later v1.x adds: appended to WagerType, which has the default OTHER."""
    record(document, "WagerType")["symbols"].append("LUCKY_6")


@pytest.fixture(scope="module")
def current(registry: FileSchemaRegistry) -> dict[str, Any]:
    """The latest registered envelope, the one the pipeline reads with."""
    document: dict[str, Any] = json.loads(json.dumps(registry.document(registry.id_for_latest())))
    return document


def test_a_new_wager_type_is_a_new_version_not_a_new_contract(
    v1_document: dict[str, Any], current: dict[str, Any]
) -> None:
    """From the version that gave WagerType its default on, a wager type appended to it passes
    the policy both ways; v1, whose WagerType is closed, cannot read it, which is why the
    forward check asks it of the latest version only (the registry's rollout rule)."""
    lucky = evolve(current, add_wager_type)
    assert policy_violations(current, lucky) == []
    assert compatibility_problems(reader=current, writer=lucky) == []
    closed = [
        p
        for p in compatibility_problems(reader=v1_document, writer=lucky)
        if p.kind is not Problem.UNION_BRANCH_MISSING  # event types added since v1
    ]
    assert {(p.kind, p.symbols) for p in closed} == {
        (Problem.ENUM_SYMBOL_MISSING, ("OTHER", "LUCKY_6"))
    }
    assert {p.path for p in closed} >= {"payload<WagerPlaced>.wager", "payload<WagerSettled>.wager"}
    assert policy_violations(v1_document, lucky, forward=False) == []


def test_the_fallback_symbol_is_exempt_only_as_the_enum_default(
    v1_document: dict[str, Any],
) -> None:
    """Adding OTHER to a closed enum without making it the default is a symbol v1 readers
    cannot read; made the default, it is what they are told never to receive."""

    def other_shuffle(document: dict[str, Any]) -> None:
        record(document, "ShuffleMethod")["symbols"].append("OTHER")

    def other_shuffle_default(document: dict[str, Any]) -> None:
        other_shuffle(document)
        record(document, "ShuffleMethod")["default"] = "OTHER"

    refused = policy_violations(v1_document, evolve(v1_document, other_shuffle))
    assert any("ShuffleMethod" in v or "shuffle_method" in v for v in refused), refused
    assert policy_violations(v1_document, evolve(v1_document, other_shuffle_default)) == []
    # a second new symbol beside the fallback is still one v1 cannot read
    both = evolve(
        v1_document,
        other_shuffle_default,
        lambda d: record(d, "ShuffleMethod")["symbols"].append("RIFFLE"),
    )
    assert any("RIFFLE" in v for v in policy_violations(v1_document, both))


def test_the_registry_registers_a_new_wager_type(tmp_path: Path) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(SCHEMA_DIR, schemas)
    common = json.loads((schemas / "common.avsc").read_text())
    next(e for e in common if e["name"] == "WagerType")["symbols"].append("LUCKY_6")
    (schemas / "common.avsc").write_text(json.dumps(common, indent=2) + "\n")
    before = FileSchemaRegistry(schemas, verify_sources=False)
    entry = before.register()
    assert entry is not None and entry.id == before.id_for_latest() + 1
    assert "LUCKY_6" in str(FileSchemaRegistry(schemas).schema_for_id(entry.id))


def test_a_wager_type_the_pipeline_does_not_know_is_reported_not_dropped(
    registry: FileSchemaRegistry, current: dict[str, Any]
) -> None:
    """A device on a later v1.x sends a LUCKY_6 side bet and its settlement; the pipeline,
    still on the current schema, reads both as OTHER and the replay reports the wager as one
    the table does not offer (N.J.A.C. 19:47-3.2(b)), naming its settlement, with no crash,
    no dead letter and no other finding."""
    latest = registry.id_for_latest()
    schemas = {i: registry.document(i) for i in range(1, latest + 1)}
    schemas[latest + 1] = evolve(current, add_wager_type)
    device = EventCodec(InMemorySchemaRegistry(schemas), reader_schema_id=latest + 1)
    pipeline = EventCodec(InMemorySchemaRegistry(schemas, latest=latest))

    b = TableDayBuilder("T01", rules_id="pb-5-classic")
    b.open()
    b.shoe()
    r = b.round(player="2H 4C", banker="3D 4S", wagers={3: {"BANKER": 10_000}, 5: {"TIE": 500}})
    b.end_shoe()
    b.close()
    sent = []
    for event in b.events:
        if event.get("wager") == "TIE":
            event = dataclasses.replace(event, fields={**event.fields, "wager": "LUCKY_6"})
        sent.append(device.encode(to_record(device, event)))
    assert all(data[1:5] == (latest + 1).to_bytes(4, "big") for data in sent)

    received = [from_record(pipeline.decode(data)) for data in sent]
    lucky = [e for e in received if e.payload_type in ("WagerPlaced", "WagerSettled")]
    assert sorted({e.get("wager") for e in lucky}) == ["BANKER", "OTHER"]
    findings = b.replay(received).findings
    assert [(f.code, f.seat, f.actual_cents) for f in findings] == [
        ("PB-3.2b-WAGER-OFFERED", 5, 500)
    ]
    other = [e.event_id for e in lucky if e.get("wager") == "OTHER"]
    assert set(findings[0].event_ids) == set(other) and len(other) == 2
    assert findings[0].round_id == r.round_id
    assert "on OTHER, which rules 'pb-5-classic' do not offer" in findings[0].message


REGISTERED = FileSchemaRegistry(SCHEMA_DIR)
OLDER_IDS = [e.id for e in REGISTERED.entries if e.id != REGISTERED.id_for_latest()]


@pytest.mark.parametrize("old_id", OLDER_IDS)
def test_every_registered_version_follows_the_policy_against_the_latest(old_id: int) -> None:
    """The registered versions themselves, not only the v2 built here: the latest reads what
    every earlier id wrote (schemas/README.md, evolution policy)."""
    latest = REGISTERED.id_for_latest()
    assert (
        policy_violations(
            REGISTERED.document(old_id),
            REGISTERED.document(latest),
            forward=old_id == latest - 1,
        )
        == []
    )


@pytest.mark.parametrize("old_id", OLDER_IDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_data_written_under_every_earlier_id_decodes_with_the_latest_reader(
    old_id: int, data: st.DataObject
) -> None:
    """An archived event of any payload type an earlier id knew, written by a device on that
    id, decodes unchanged with the current pipeline's reader (BancoCalled, schema id 4,
    CardsHandedTo, schema id 5, PatronRequest, schema id 6, and OfferDeclined, schema id 7, are
    appended event types: nothing an older device wrote changes meaning)."""
    old_device = EventCodec(REGISTERED, reader_schema_id=old_id)
    names = collect_names(old_device.schema)
    kind = data.draw(st.sampled_from(old_device.payload_types))
    fullname = f"nj.baccarat.v1.{kind}"
    event = {
        "event_id": data.draw(st.uuids()),
        "table_id": "CF-01",
        "device_id": "pit",
        "seq": 1,
        "occurred_at": NOW,
        "payload": (fullname, data.draw(strategy_for(names[fullname], names))),
    }
    decoded = EventCodec(REGISTERED).decode(old_device.encode(event))
    assert decoded["payload"] == event["payload"]
    assert decoded["event_id"] == event["event_id"]


@dataclasses.dataclass(frozen=True)
class AppendedEvent:
    """An event type appended to the payload union at ``schema_id`` (rule 4 of the policy):
    ``new`` is one event of it, ``old`` one event the id before it already knew."""

    schema_id: int
    new: tuple[str, dict[str, Any]]
    old: tuple[str, dict[str, Any]]


HOSTILE_DETAIL = "turn the 7s, 8s & 9s <b>face</b>'; DROP TABLE deliveries; --"

APPENDED_EVENTS = (
    # N.J.A.C. 19:47-3.7(d), 7.7(c)3: who was handed a hand's cards.
    AppendedEvent(
        5,
        ("CardsHandedTo", {"round_id": "PB-01-R7", "hand": "PLAYER", "third_card": False,
                           "seat": 3, "patron_id": "PAT-0042"}),
        ("HandOption", {"round_id": "CF-01-R2", "hand": "BANKER", "drew": True, "points": 5,
                        "seat": 6}),
    ),
    # A patron's request to turn cards or to keep or change the shoe (what prepares edge
    # sorting, against 3.5(a) and 3.6(a)), its free-text detail read byte for byte.
    AppendedEvent(
        6,
        ("PatronRequest", {"round_id": None, "seat": 5, "patron_id": "PAT-0042",
                           "request": "TURN_CARDS", "detail": HOSTILE_DETAIL, "granted": True}),
        ("CardsHandedTo", {"round_id": "PB-01-R7", "hand": "BANKER", "third_card": True,
                           "seat": 3, "patron_id": None}),
    ),
    # Chemin de Fer 4.4(c), 4.7(d), 4.11(b)-(c): an offer of the cut, a partial wager or the
    # bank declined, which shows the order the offers went round the table.
    AppendedEvent(
        7,
        ("OfferDeclined", {"offer": "BANK", "seat": 4, "round_id": "CF-01-R9",
                           "shoe_id": "CF-01-S02"}),
        ("PatronRequest", {"round_id": "CF-01-R9", "seat": 2, "patron_id": None,
                           "request": "CHANGE_SHOE", "detail": None, "granted": False}),
    ),
)  # fmt: skip


@pytest.mark.parametrize("appended", APPENDED_EVENTS, ids=lambda a: a.new[0])
def test_an_appended_event_type_is_backward_only(appended: AppendedEvent) -> None:
    """An event type appended to the payload union (rule 4 of the policy): the pipeline reads
    it and every event a device on the id before writes; a consumer still on the id before
    refuses it as SCHEMA_MISMATCH instead of reading it as another event, so producers send it
    only after every consumer runs the new id. CardsHandedTo (N.J.A.C. 19:47-3.7(d), 7.7(c)3)
    from schema id 5, PatronRequest (3.5(a), 3.6(a)) from id 6, OfferDeclined (4.4(c), 4.7(d),
    4.11(b)-(c)) from id 7."""
    new_id, before = appended.schema_id, appended.schema_id - 1
    (new_kind, new_fields), (old_kind, old_fields) = appended.new, appended.old
    assert new_kind not in EventCodec(REGISTERED, reader_schema_id=before).payload_types
    assert policy_violations(REGISTERED.document(before), REGISTERED.document(new_id)) == []
    new_device, pipeline = EventCodec(REGISTERED, reader_schema_id=new_id), EventCodec(REGISTERED)
    data = new_device.encode(
        new_device.make_event("CF-01", "CF-01-pit", 9, NOW, new_kind, **new_fields)
    )
    assert data[1:5] == new_id.to_bytes(4, "big")
    assert pipeline.decode(data)["payload"] == (f"nj.baccarat.v1.{new_kind}", new_fields)
    with pytest.raises(EventDecodeError) as caught:
        EventCodec(REGISTERED, reader_schema_id=before).decode(data)
    assert caught.value.reason is DecodeReason.SCHEMA_MISMATCH and caught.value.schema_id == new_id

    old_device = EventCodec(REGISTERED, reader_schema_id=before)
    from_old = old_device.encode(
        old_device.make_event("CF-01", "CF-01-pit", 4, NOW, old_kind, **old_fields)
    )
    assert from_old[1:5] == before.to_bytes(4, "big")
    assert pipeline.decode(from_old)["payload"] == (f"nj.baccarat.v1.{old_kind}", old_fields)


def test_offer_declined_is_the_latest_id() -> None:
    """OfferDeclined (Chemin de Fer, N.J.A.C. 19:47-4.4(c), 4.11(b)-(c)) is what schema id 7
    added, and id 7 is the latest the pipeline reads."""
    assert REGISTERED.id_for_latest() == 7
    assert "OfferDeclined" in EventCodec(REGISTERED).payload_types
