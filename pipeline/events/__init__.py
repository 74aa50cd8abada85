"""The Avro event contract of the table devices, and its codec.

Schemas live in ``schemas/*.avsc`` (namespace ``nj.baccarat.v1``), registered by integer id
in ``schemas/registry.json``. See :mod:`pipeline.events.codec` for the event dict shape.
"""

from pipeline.events.codec import (
    CONTAINER_CODECS,
    NAMESPACE,
    EventCodec,
    EventRecord,
    decode_event,
    default_codec,
    encode_event,
    make_event,
    payload_type,
    payload_types,
    read_events,
    read_events_tolerant,
    write_events,
)
from pipeline.events.errors import DecodeError, DecodeReason, EventDecodeError, EventEncodeError
from pipeline.events.registry import (
    FileSchemaRegistry,
    InMemorySchemaRegistry,
    RegistryError,
    SchemaRegistry,
    UnknownSchemaIdError,
    default_registry,
)

__all__ = [
    "CONTAINER_CODECS",
    "NAMESPACE",
    "DecodeError",
    "DecodeReason",
    "EventCodec",
    "EventDecodeError",
    "EventEncodeError",
    "EventRecord",
    "FileSchemaRegistry",
    "InMemorySchemaRegistry",
    "RegistryError",
    "SchemaRegistry",
    "UnknownSchemaIdError",
    "decode_event",
    "default_codec",
    "default_registry",
    "encode_event",
    "make_event",
    "payload_type",
    "payload_types",
    "read_events",
    "read_events_tolerant",
    "write_events",
]
