"""Confluent-framed messages: building events, encoding, decoding, and every kind of bad bytes."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.events import (
    DecodeReason,
    EventCodec,
    EventDecodeError,
    EventEncodeError,
    EventRecord,
    FileSchemaRegistry,
    InMemorySchemaRegistry,
    decode_event,
    default_registry,
    encode_event,
    make_event,
    payload_type,
)
from pipeline.events.convert import from_record
from pipeline.events.model import TableEvent
from pipeline.rules.cards import Rank, Suit
from pipeline.rules.games import Game

UTC = dt.UTC
NOW = dt.datetime(2025, 3, 1, 21, 30, 15, 123456, tzinfo=UTC)
EVENT_ID = uuid.UUID("5f0c8a52-2f8e-4c2a-9b7e-0d3c1e2a4b6f")


def card(rank: Rank = Rank.NINE, suit: Suit = Suit.HEARTS, **overrides: Any) -> EventRecord:
    fields: dict[str, Any] = {
        "shoe_id": "S-0001",
        "round_id": "R-0001-003",
        "position": 17,
        "rank": rank,
        "suit": suit,
        "hand": "PLAYER",
    }
    fields.update(overrides)
    return make_event("PB-07", "shoe-07", 42, NOW, "CardDealt", event_id=EVENT_ID, **fields)


def differing_byte(a: bytes, b: bytes) -> int:
    """The single position where two same-length encodings differ."""
    assert len(a) == len(b)
    positions = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    assert len(positions) == 1, positions
    return positions[0]


# -- make_event -------------------------------------------------------------------------------


def test_make_event_builds_the_documented_shape() -> None:
    event = card()
    assert event == {
        "event_id": EVENT_ID,
        "table_id": "PB-07",
        "device_id": "shoe-07",
        "seq": 42,
        "occurred_at": NOW,
        "payload": (
            "nj.baccarat.v1.CardDealt",
            {
                "shoe_id": "S-0001",
                "round_id": "R-0001-003",
                "position": 17,
                "rank": "NINE",
                "suit": "HEARTS",
                "hand": "PLAYER",
                "face_up": True,
            },
        ),
    }
    assert payload_type(event) == "CardDealt"
    assert list(event["payload"][1]) == [
        "shoe_id", "round_id", "position", "rank", "suit", "hand", "face_up"
    ]  # fmt: skip


def test_make_event_fills_defaults_and_generates_ids() -> None:
    first = make_event("PB-07", "ctl-1", 1, NOW, "IrregularityReported", kind="OTHER")
    second = make_event(
        "PB-07", "ctl-1", 2, NOW, "nj.baccarat.v1.IrregularityReported", kind="OTHER"
    )
    assert isinstance(first["event_id"], uuid.UUID) and first["event_id"].version == 4
    assert first["event_id"] != second["event_id"]
    assert first["payload"][1] == {
        "round_id": None, "shoe_id": None, "kind": "OTHER", "procedure": None,
        "card_rank": None, "card_suit": None, "position": None, "note": None,
        "reported_by": None,
    }  # fmt: skip
    assert first["payload"][0] == second["payload"][0] == "nj.baccarat.v1.IrregularityReported"


def test_make_event_converts_python_enums_and_times() -> None:
    class BancoKind(enum.Enum):  # like pipeline.rules.roles.BancoKind: name differs from value
        SUIVI = "BANCO_SUIVI"

    opened = make_event(
        "PB-07", "ctl", 1, NOW, "TableOpened", game=Game.MINIBACCARAT, rules_id="MB-5PCT",
        pit="3", location="MB-2", dealer_id="D-17", gaming_date=dt.date(2025, 3, 1),
    )  # fmt: skip
    assert opened["payload"][1]["game"] == "MINIBACCARAT"
    banco = make_event(
        "CF-1", "ctl", 2, NOW, "PlayerBancoWager", round_id="R", seat=3,
        action=BancoKind.SUIVI, amount_cents=50_000,
    )  # fmt: skip
    assert banco["payload"][1]["action"] == "BANCO_SUIVI"
    eastern = dt.timezone(dt.timedelta(hours=-5))
    event = make_event("PB-07", "ctl", 3, NOW.astimezone(eastern), "TableClosed")
    assert event["occurred_at"] == NOW and event["occurred_at"].tzinfo is UTC
    assert (
        make_event("T", "D", 1, NOW, "TableClosed", event_id=str(EVENT_ID))["event_id"] == EVENT_ID
    )


@pytest.mark.parametrize(
    ("args", "fields", "message"),
    [
        (("Nope",), {}, "unknown payload type 'Nope'"),
        (("CardDealt",), {"colour": "red"}, r"no field\(s\) \['colour'\]"),
        (("CardDealt",), {"shoe_id": "S"}, r"requires field\(s\) \['hand', 'position'"),
        (("TableClosed",), {"reason": None, "event_id": "not-a-uuid"}, "not a UUID"),
        (
            ("ShoeStarted",),
            {"shoe_id": "S", "decks": 8, "shuffle_method": "RIFFLE", "cut_position": 20,
             "cut_card_from_back": 16, "cards_in_shoe": 416},
            r"ShoeStarted.shuffle_method: 'RIFFLE' is not one of",
        ),
        (
            ("FormSeriesReceived",),
            {"first_serial": 1, "last_serial": 50, "received_by": Rank.ACE},
            None,  # enum members are only converted for enum fields: encode rejects it
        ),
        (
            ("TableOpened",),
            {"game": "PUNTO_BANCO", "rules_id": "r", "pit": "p", "location": "l",
             "dealer_id": "d", "gaming_date": NOW},
            "is a date: pass datetime.date",
        ),
    ],
)  # fmt: skip
def test_make_event_rejects_bad_fields(
    args: tuple[str], fields: dict[str, Any], message: str | None
) -> None:
    if message is None:
        event = make_event("T", "D", 1, NOW, *args, **fields)
        with pytest.raises(EventEncodeError, match="received_by"):
            encode_event(event)
        return
    with pytest.raises(EventEncodeError, match=message):
        make_event("T", "D", 1, NOW, *args, **fields)


def test_make_event_rejects_naive_times_and_bad_seq() -> None:
    with pytest.raises(EventEncodeError, match="timezone-aware"):
        make_event("T", "D", 1, dt.datetime(2025, 3, 1, 12), "TableClosed")
    for seq in (0, -1, True):
        with pytest.raises(EventEncodeError, match="seq must be an int >= 1"):
            make_event("T", "D", seq, NOW, "TableClosed")


# -- encode / decode ---------------------------------------------------------------------------


def test_wire_format_is_confluent_framing(codec: EventCodec) -> None:
    data = encode_event(card())
    assert data[0] == 0
    latest = default_registry().id_for_latest()
    assert int.from_bytes(data[1:5], "big") == codec.schema_id == latest
    # Avro binary of the envelope starts with event_id: zig-zag length 36 (=72, 0x48) + text
    assert data[5] == 72 and data[6:42] == str(EVENT_ID).encode()


def test_round_trip_both_ways() -> None:
    event = card()
    data = encode_event(event)
    decoded = decode_event(data)
    assert decoded == event
    assert encode_event(decoded) == data
    assert decode_event(bytearray(data)) == event
    assert decode_event(memoryview(data)) == event


def test_encode_rejects_what_fastavro_would_write_wrongly() -> None:
    event = card()
    with pytest.raises(EventEncodeError, match="no timezone"):
        encode_event({**event, "occurred_at": dt.datetime(2025, 3, 1, 12)})
    with pytest.raises(EventEncodeError, match="is not a UUID"):
        encode_event({**event, "event_id": "R-1"})
    with pytest.raises(EventEncodeError, match="payload must be a"):
        encode_event({**event, "payload": event["payload"][1]})


def test_encode_errors_name_the_problem() -> None:
    name, fields = card()["payload"]
    base = card()
    with pytest.raises(EventEncodeError, match="CardDealt event seq 42 from device 'shoe-07'"):
        encode_event({**base, "payload": (name, {**fields, "extra": 1})})
    with pytest.raises(EventEncodeError, match="position"):
        encode_event({**base, "payload": (name, {**fields, "position": "17"})})
    with pytest.raises(EventEncodeError, match="JOKER"):
        encode_event({**base, "payload": (name, {**fields, "rank": "JOKER"})})
    with pytest.raises(EventEncodeError, match="Nope"):
        encode_event({**base, "payload": ("nj.baccarat.v1.Nope", fields)})
    missing = dict(fields)
    del missing["position"]
    with pytest.raises(EventEncodeError, match="position"):
        encode_event({**base, "payload": (name, missing)})


# -- bad bytes ---------------------------------------------------------------------------------


def decode_error(data: bytes, **kwargs: Any) -> EventDecodeError:
    with pytest.raises(EventDecodeError) as caught:
        decode_event(data, **kwargs)
    return caught.value


def test_empty_message_is_truncated() -> None:
    error = decode_error(b"", source="table-events/3", offset=1234)
    assert (error.reason, error.offset, error.byte_offset) == (DecodeReason.TRUNCATED, 1234, 0)
    assert "table-events/3" in str(error) and "offset 1234" in str(error)


def test_every_truncation_is_reported_as_truncated() -> None:
    data = encode_event(card())
    device_known_from = 5 + 1 + 36 + 1 + len("PB-07") + 1 + len("shoe-07")
    for cut in range(1, len(data)):
        error = decode_error(data[:cut], source="s", offset=cut)
        assert error.reason is DecodeReason.TRUNCATED, cut
        assert error.offset == cut
        assert error.byte_offset is not None and error.byte_offset <= cut
        if cut >= device_known_from:
            assert error.device_id == "shoe-07" and error.table_id == "PB-07"
        assert "Re-fetch" in str(error)


def test_short_header_is_truncated() -> None:
    error = decode_error(b"\x00\x00\x00")
    assert error.reason is DecodeReason.TRUNCATED and error.byte_offset == 3
    assert "5-byte header" in str(error)


@pytest.mark.parametrize(
    ("first", "hint"), [(b"\x01", ""), (b"{", "looks like JSON"), (b"Obj\x01", "container file")]
)
def test_bad_magic(first: bytes, hint: str) -> None:
    data = first + encode_event(card())[1:]
    error = decode_error(data, source="topic/0", offset=7)
    assert (error.reason, error.offset, error.byte_offset) == (DecodeReason.BAD_MAGIC, 7, 0)
    assert hint in str(error) and "magic byte" in str(error)


def test_unknown_schema_id() -> None:
    data = encode_event(card())
    bad = data[:1] + (999).to_bytes(4, "big") + data[5:]
    error = decode_error(bad, offset=3)
    assert error.reason is DecodeReason.UNKNOWN_SCHEMA_ID
    assert (error.schema_id, error.byte_offset, error.offset) == (999, 1, 3)
    assert "schema id 999 is not in the registry (known: 1" in str(error)


@pytest.mark.parametrize(
    ("field", "variant", "symbols"),
    [
        ("rank", {"rank": Rank.KING}, 13),
        ("suit", {"suit": Suit.SPADES}, 4),
        ("hand", {"hand": "DISCARD"}, 4),
    ],
)
def test_enum_index_out_of_range(field: str, variant: dict[str, Any], symbols: int) -> None:
    good = encode_event(card())
    position = differing_byte(good, encode_event(card(**variant)))
    for index in (symbols, 60, -1):
        bad = bytearray(good)
        bad[position] = (index << 1) ^ (index >> 63)  # zig-zag, fits one byte
        error = decode_error(bytes(bad), source="shoe-07.outbox", offset=99)
        assert error.reason is DecodeReason.ENUM_OUT_OF_RANGE
        assert (error.byte_offset, error.offset) == (position, 99)
        assert error.field == f"payload<CardDealt>.{field}"
        assert (error.device_id, error.table_id, error.seq) == ("shoe-07", "PB-07", 42)
        assert f"index {index}" in str(error) and f"has {symbols} symbols" in str(error)


def test_payload_union_index_out_of_range() -> None:
    good = encode_event(card())
    other = encode_event(
        make_event("PB-07", "shoe-07", 42, NOW, "CutCardReached", event_id=EVENT_ID,
                   shoe_id="S-0001", round_id="R-0001-003", position=17)
    )  # fmt: skip
    position = next(i for i, (a, b) in enumerate(zip(good, other, strict=False)) if a != b)
    bad = bytearray(good)
    bad[position] = 40 << 1
    error = decode_error(bytes(bad))
    assert error.reason is DecodeReason.UNION_INDEX_OUT_OF_RANGE
    assert (error.byte_offset, error.field) == (position, "payload")
    assert "union branch index 40" in str(error)


def test_invalid_utf8_uuid_and_length() -> None:
    good = encode_event(card())
    table_at = 5 + 1 + 36 + 1  # the text of table_id
    bad_text = bytearray(good)
    bad_text[table_at] = 0xFF
    error = decode_error(bytes(bad_text))
    assert (error.reason, error.field) == (DecodeReason.INVALID_VALUE, "table_id")
    assert "not UTF-8" in str(error)

    bad_uuid = bytearray(good)
    bad_uuid[6] = ord("z")
    error = decode_error(bytes(bad_uuid))
    assert (error.reason, error.field, error.byte_offset) == (
        DecodeReason.INVALID_VALUE, "event_id", 5
    )  # fmt: skip

    negative = bytearray(good)
    negative[5] = 3  # zig-zag -2
    error = decode_error(bytes(negative))
    assert (error.reason, error.field) == (DecodeReason.INVALID_VALUE, "event_id")
    assert "negative length" in str(error)


def test_trailing_bytes() -> None:
    good = encode_event(card())
    error = decode_error(good + b"\x00\x00")
    assert (error.reason, error.byte_offset) == (DecodeReason.TRAILING_BYTES, len(good))


def test_writer_schema_the_reader_cannot_resolve(v1_document: dict[str, Any]) -> None:
    """A producer registered id 7 with a JOKER rank; this pipeline's reader (id 1) has no
    JOKER and Rank is closed, so the event cannot be read: SCHEMA_MISMATCH, not garbage."""
    import copy

    joker = copy.deepcopy(v1_document)
    shoe = next(
        b for b in joker["fields"][5]["type"] if isinstance(b, dict) and b["name"] == "CardDealt"
    )
    rank = next(f for f in shoe["fields"] if f["name"] == "rank")["type"]
    rank["symbols"].append("JOKER")
    registry = InMemorySchemaRegistry({1: v1_document, 7: joker}, latest=1)
    producer = EventCodec(registry, reader_schema_id=7)
    consumer = EventCodec(registry)
    event = card()
    name, fields = event["payload"]
    data = producer.encode({**event, "payload": (name, {**fields, "rank": "JOKER"})})
    assert data[1:5] == (7).to_bytes(4, "big")
    with pytest.raises(EventDecodeError) as caught:
        consumer.decode(data, source="t", offset=5)
    error = caught.value
    assert error.reason is DecodeReason.SCHEMA_MISMATCH and error.schema_id == 7
    assert "cannot be resolved" in str(error) and "Upgrade the pipeline" in str(error)
    # an ordinary event written with id 7 resolves fine
    assert consumer.decode(producer.encode(event)) == event


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120))
def test_random_bytes_never_escape_as_other_errors(noise: bytes) -> None:
    for data in (noise, b"\x00\x00\x00\x00\x01" + noise):
        try:
            decode_event(data)
        except EventDecodeError as error:
            assert isinstance(error.reason, DecodeReason)
            assert str(error)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corrupted_messages_never_escape_as_other_errors(data: st.DataObject) -> None:
    good = bytearray(encode_event(card()))
    for _ in range(data.draw(st.integers(1, 4))):
        good[data.draw(st.integers(5, len(good) - 1))] = data.draw(st.integers(0, 255))
    try:
        decoded = decode_event(bytes(good))
    except EventDecodeError as error:
        assert error.byte_offset is not None and 0 <= error.byte_offset <= len(good)
    else:
        assert encode_event(decoded) == bytes(good)


def test_negative_indexes_are_caught_by_verification(registry: FileSchemaRegistry) -> None:
    """fastavro reads index -1 as the last symbol; the verifying decoder refuses it."""
    good = encode_event(card())
    position = differing_byte(good, encode_event(card(rank=Rank.KING)))
    bad = bytearray(good)
    bad[position] = 1  # zig-zag -1
    assert decode_error(bytes(bad)).reason is DecodeReason.ENUM_OUT_OF_RANGE
    latest = registry.id_for_latest()
    trusting = EventCodec(InMemorySchemaRegistry({latest: registry.document(latest)}), verify=False)
    assert trusting.decode(bytes(bad))["payload"][1]["rank"] == "KING"  # why verify is on


def test_upper_case_uuid_is_normalised_on_encode_and_rejected_on_decode() -> None:
    event = card()
    data = encode_event({**event, "event_id": str(EVENT_ID).upper()})
    assert data == encode_event(event)
    shouting = data[:6] + data[6:42].upper() + data[42:]
    error = decode_error(shouting)
    assert (error.reason, error.field) == (DecodeReason.INVALID_VALUE, "event_id")
    assert "canonical form" in str(error)


def test_overlong_varint_is_invalid() -> None:
    event = card()
    data = encode_event(event)
    # seq 42 (zig-zag 84 = 0x54) follows device_id; write it as 0xD4 0x00 instead
    seq_at = 5 + 1 + 36 + 1 + len("PB-07") + 1 + len("shoe-07")
    assert data[seq_at] == 84
    overlong = data[:seq_at] + bytes([84 | 0x80, 0]) + data[seq_at + 1 :]
    error = decode_error(overlong)
    assert (error.reason, error.field, error.byte_offset) == (
        DecodeReason.INVALID_VALUE, "seq", seq_at
    )  # fmt: skip
    assert "minimally encoded" in str(error)


def test_decode_errors_survive_pickling() -> None:
    """Worker processes send errors back to the parent."""
    import pickle

    error = decode_error(b"\x05rest", source="topic/1", offset=12)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is EventDecodeError
    assert (copy.reason, copy.offset, copy.source, str(copy)) == (
        error.reason, 12, "topic/1", str(error)
    )  # fmt: skip


# -- a batch of messages at once --------------------------------------------------------------


def dealt(n: int, **overrides: Any) -> bytes:
    """The n-th card of a shoe, with an event id of its own."""
    return encode_event({**card(position=n, **overrides), "event_id": uuid.uuid4()})


def one_by_one(messages: list[bytes]) -> list[TableEvent]:
    return [from_record(decode_event(m)) for m in messages]


def test_sound_messages_decode_at_once_as_one_by_one(codec: EventCodec) -> None:
    messages = [
        dealt(n, rank=rank, suit=suit)
        for n, (rank, suit) in enumerate(zip(Rank, [*Suit, *Suit, *Suit, *Suit], strict=False))
    ]
    decoded = codec.decode_intact_messages(messages)
    assert decoded is not None
    assert [from_record(r) for r in decoded] == one_by_one(messages)
    assert codec.decode_intact_messages([]) == []


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda m: m + b"\x00", id="trailing byte"),
        pytest.param(lambda m: m[:-1], id="cut short"),
        pytest.param(lambda m: m[:5], id="header only"),
        pytest.param(lambda m: b"\x00\x00\x00\x00\x63" + m[5:], id="an unregistered schema id"),
        pytest.param(lambda m: b"\x01" + m[1:], id="bad magic"),
        pytest.param(lambda m: m[:6] + m[6:42].upper() + m[42:], id="non-canonical uuid"),
    ],
)
def test_one_unsound_message_sends_the_batch_one_by_one(
    codec: EventCodec, spoil: Callable[[bytes], bytes]
) -> None:
    """The batch decoder only vouches for batches it can read whole; the one-by-one decoder
    then names the bad message (N.J.A.C. 19:47-3.9: nothing is dropped silently)."""
    good = [dealt(n) for n in range(3)]
    assert codec.decode_intact_messages([good[0], spoil(good[1]), good[2]]) is None


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_batch_decoding_never_accepts_what_one_by_one_refuses(data: st.DataObject) -> None:
    """Mutated bytes inside a batch: either the batch is refused, or every message decodes
    exactly as it does on its own (a mutation that still reads canonically is an event)."""
    codec = EventCodec()
    messages = [dealt(n) for n in range(3)]
    spoilt = bytearray(messages[1])
    for _ in range(data.draw(st.integers(1, 4))):
        spoilt[data.draw(st.integers(0, len(spoilt) - 1))] = data.draw(st.integers(0, 255))
    messages[1] = bytes(spoilt)
    decoded = codec.decode_intact_messages(messages)
    if decoded is not None:
        assert [from_record(r) for r in decoded] == one_by_one(messages)
