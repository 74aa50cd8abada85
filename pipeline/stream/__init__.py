"""Kafka-protocol streaming helpers: the bundled local broker, producers and consumers."""
