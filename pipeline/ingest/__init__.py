"""Getting events into the ledger: sources (files, Kafka), dead letters, and the load stage
that replays every table-day a batch touched, in one transaction with the batch itself."""
