"""Versioned ledger migrations. Applied in order, each in its own transaction, recorded in
``schema_migrations``; a database newer than this code is refused rather than guessed at.

They are the schema's history. What the schema is now is declared once, table by table, in
:mod:`pipeline.ledger.tables`; a database migrated from empty matches it
(``tests/ledger/test_table_declarations.py``), so a migration that adds or changes a table
changes its declaration too.

Design notes for what comes next:
- ``deliveries`` keeps every delivery of every event, keyed by where it came from (a file's
  full path, or a Kafka topic-partition) and what it is (event id, device seq, and which
  delivery of them from that source: the occurrence in the file, or the Kafka offset), so
  re-loading the same input, or a repaired version of it, adds only what is new while a
  device's duplicate delivery is still visible to the replay.
- Derived rows are replaced per (table_id, gaming_date) in one transaction, so several
  workers can own different tables and a late event re-derives only its table-day.
- ``consumer_offsets`` is written in the same transaction as the rows a Kafka batch produced.
"""

from __future__ import annotations

# What each table is (sealed, derived, seal record, working) is declared with its columns in
# pipeline.ledger.tables; the lists derived there are importable from here as they always were.
from pipeline.ledger.tables import DERIVED_TABLES as DERIVED_TABLES
from pipeline.ledger.tables import SEAL_RECORD_TABLES as SEAL_RECORD_TABLES
from pipeline.ledger.tables import SEALED_TABLES as SEALED_TABLES
from pipeline.ledger.tables import UNSEALED_TABLES as UNSEALED_TABLES
from pipeline.ledger.tables import VOLATILE_COLUMNS as VOLATILE_COLUMNS

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "raw deliveries and derived table-day rows",
        """
CREATE TABLE deliveries (
    source        VARCHAR NOT NULL,   -- file path or kafka:<topic>:<partition>
    position      BIGINT  NOT NULL,   -- index in the file, or Kafka offset
    event_id      VARCHAR NOT NULL,
    table_id      VARCHAR NOT NULL,
    device_id     VARCHAR NOT NULL,
    seq           BIGINT  NOT NULL,
    occurred_at   BIGINT  NOT NULL,   -- microseconds since the Unix epoch, device clock
    gaming_date   DATE    NOT NULL,
    payload_type  VARCHAR NOT NULL,
    fields_json   VARCHAR NOT NULL,
    PRIMARY KEY (source, position)
);
CREATE INDEX deliveries_table_day ON deliveries (table_id, gaming_date);

CREATE TABLE dead_letters (
    source        VARCHAR NOT NULL,
    position      BIGINT  NOT NULL,
    reason        VARCHAR NOT NULL,
    detail        VARCHAR NOT NULL,
    device_id     VARCHAR,
    raw_bytes     BLOB,
    received_on   DATE,
    PRIMARY KEY (source, position)
);

CREATE TABLE rounds (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, shoe_id VARCHAR NOT NULL,
    round_id VARCHAR NOT NULL, round_number INTEGER, simulated BOOLEAN, status VARCHAR,
    player_cards VARCHAR, banker_cards VARCHAR, player_points INTEGER, banker_points INTEGER,
    winner VARCHAR, total_cards INTEGER, is_natural BOOLEAN, dragon_7 BOOLEAN,
    announced VARCHAR, options_taken VARCHAR, started_at BIGINT, source_event_id VARCHAR,
    PRIMARY KEY (table_id, round_id)
);
CREATE TABLE cards (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, shoe_id VARCHAR, round_id VARCHAR,
    position INTEGER, rank VARCHAR, suit VARCHAR, hand VARCHAR, source_event_id VARCHAR
);
CREATE TABLE wagers (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, round_id VARCHAR, seat INTEGER,
    patron_id VARCHAR, wager VARCHAR, amount_cents BIGINT, late BOOLEAN,
    source_event_ids VARCHAR[]
);
CREATE TABLE settlements (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, round_id VARCHAR, seat INTEGER,
    patron_id VARCHAR, wager VARCHAR, stake_cents BIGINT, expected_result VARCHAR,
    expected_paid_cents BIGINT, expected_vig_cents BIGINT, recorded_result VARCHAR,
    recorded_paid_cents BIGINT, rule_code VARCHAR, source_event_ids VARCHAR[]
);
CREATE TABLE vig_ledger (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, shoe_id VARCHAR, round_id VARCHAR,
    seat INTEGER, patron_id VARCHAR, kind VARCHAR, amount_cents BIGINT,
    balance_after_cents BIGINT, occurred_at BIGINT, source_event_id VARCHAR
);
CREATE TABLE comp_vig_forms (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, serial BIGINT, status VARCHAR,
    amount_cents BIGINT, patron_name VARCHAR, patron_id VARCHAR, form_gaming_date DATE,
    pit VARCHAR, table_location VARCHAR, dealer_signature VARCHAR, pit_boss_signature VARCHAR,
    pit_clerk_signature VARCHAR, patron_signature VARCHAR, signature_missing_reason VARCHAR,
    marked_void BOOLEAN, source_event_id VARCHAR
);
CREATE TABLE form_series (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, first_serial BIGINT,
    last_serial BIGINT, used INTEGER, voided INTEGER, source_event_id VARCHAR
);
CREATE TABLE form_events (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, serial BIGINT, kind VARCHAR,
    amount_cents BIGINT, patron_name VARCHAR, table_location VARCHAR, form_gaming_date DATE,
    marked_void BOOLEAN, matched BOOLEAN, source_event_id VARCHAR
);
CREATE TABLE exceptions (
    exception_id VARCHAR NOT NULL, table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL,
    code VARCHAR NOT NULL, section VARCHAR NOT NULL, severity VARCHAR NOT NULL,
    severity_rank INTEGER NOT NULL, shoe_id VARCHAR, round_id VARCHAR, seat INTEGER,
    patron_id VARCHAR, serial BIGINT, expected_cents BIGINT, actual_cents BIGINT,
    message VARCHAR NOT NULL, source_event_ids VARCHAR[],
    PRIMARY KEY (table_id, gaming_date, exception_id)
);
CREATE TABLE table_day_summary (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, rules_id VARCHAR, game VARCHAR,
    pit VARCHAR, location VARCHAR, dealer_id VARCHAR, shoes INTEGER, rounds INTEGER,
    events BIGINT, duplicates INTEGER, handle_cents BIGINT, vig_expected_cents BIGINT,
    vig_collected_cents BIGINT, vig_uncollected_cents BIGINT, comp_vig_cents BIGINT,
    exceptions INTEGER, replayed_at TIMESTAMP,
    PRIMARY KEY (table_id, gaming_date)
);
CREATE TABLE table_day_win (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, wager VARCHAR NOT NULL,
    expected_win_cents BIGINT, recorded_win_cents BIGINT,
    PRIMARY KEY (table_id, gaming_date, wager)
);
CREATE TABLE gaming_days (
    gaming_date DATE PRIMARY KEY, status VARCHAR NOT NULL, closed_at TIMESTAMP,
    report_sha256 VARCHAR, previous_chain_sha256 VARCHAR, chain_sha256 VARCHAR,
    blocking_exceptions INTEGER
);
CREATE TABLE acknowledgements (
    exception_id VARCHAR NOT NULL, action VARCHAR NOT NULL, note VARCHAR, actor VARCHAR NOT NULL,
    acted_at TIMESTAMP NOT NULL
);
CREATE TABLE consumer_offsets (
    consumer_group VARCHAR NOT NULL, topic VARCHAR NOT NULL, partition INTEGER NOT NULL,
    next_offset BIGINT NOT NULL, PRIMARY KEY (consumer_group, topic, partition)
);
""",
    ),
    (
        2,
        "tamper evidence: input files, row digests of closed days, close audit",
        """
CREATE TABLE input_files (
    source VARCHAR PRIMARY KEY, sha256 VARCHAR NOT NULL, bytes BIGINT NOT NULL,
    events BIGINT NOT NULL, loaded_at TIMESTAMP NOT NULL
);
CREATE TABLE close_digests (
    gaming_date DATE NOT NULL, table_name VARCHAR NOT NULL, row_sha256 VARCHAR NOT NULL
);
CREATE INDEX close_digests_day ON close_digests (gaming_date, table_name);
CREATE TABLE gaming_day_audit (
    gaming_date DATE NOT NULL, action VARCHAR NOT NULL, actor VARCHAR NOT NULL,
    reason VARCHAR, acted_at TIMESTAMP NOT NULL
);
ALTER TABLE gaming_days ADD COLUMN rows_sha256 VARCHAR;
ALTER TABLE gaming_days ADD COLUMN inputs_sha256 VARCHAR;
""",
    ),
    (
        3,
        "data-quality validations stored with their gaming day",
        """
CREATE TABLE quality_results (
    gaming_date DATE NOT NULL, validated_at TIMESTAMP NOT NULL,
    verdict VARCHAR NOT NULL,            -- PASSED, WARNINGS or BLOCKED
    evaluated INTEGER NOT NULL, failed INTEGER NOT NULL,
    blocking INTEGER NOT NULL, warnings INTEGER NOT NULL,
    fingerprint VARCHAR NOT NULL,        -- the ledger state validated
    summary_json VARCHAR NOT NULL,       -- verdict, counts and rows per suite, files
    expectations_json VARCHAR NOT NULL,  -- every expectation's level and outcome
    PRIMARY KEY (gaming_date, validated_at)
);
""",
    ),
    (
        4,
        "no secondary index on deliveries",
        # DuckDB answers a table-day's tens of thousands of deliveries with a scan pruned by
        # zone maps, never through an ART index (it uses one for a few thousand rows at most),
        # while keeping the index up to date cost a fifth of every load.
        "DROP INDEX deliveries_table_day;",
    ),
    (
        5,
        "seal log: an append-only, HMAC-linked log of closes and reopens",
        """
CREATE TABLE seal_log (
    seq                 BIGINT PRIMARY KEY,  -- 1, 2, 3, ... with no gaps
    gaming_date         DATE NOT NULL,
    action              VARCHAR NOT NULL,    -- CLOSE or REOPEN
    actor               VARCHAR NOT NULL,
    actor_source        VARCHAR NOT NULL,    -- where the actor's name came from
    reason              VARCHAR,             -- a reopen's reason; an empty day's close reason
    sealed_at           TIMESTAMP NOT NULL,  -- UTC
    status              VARCHAR,             -- a close's status (CLOSED, ...); NULL on REOPEN
    blocking_exceptions INTEGER,
    report_sha256       VARCHAR,
    table_digests_json  VARCHAR NOT NULL,    -- {table: SHA-256 of its sorted row digests}
    anchor_path         VARCHAR,             -- the anchor file the link was appended to
    previous_link       VARCHAR NOT NULL,
    link                VARCHAR NOT NULL     -- HMAC(application key, previous_link + entry)
);
ALTER TABLE gaming_day_audit ADD COLUMN actor_source VARCHAR;
-- superseded by seal_log.table_digests_json (input_files is a sealed table of its own)
ALTER TABLE gaming_days DROP COLUMN rows_sha256;
ALTER TABLE gaming_days DROP COLUMN inputs_sha256;
""",
    ),
    (
        6,
        "delivery identity that cannot collide; every version of an input file; resolved "
        "dead letters",
        # A delivery was keyed by (bare file name, position): two days' T01.avro collided, and
        # a repaired file's events were taken for the damaged one's. Its identity is now where
        # it came from in full and what it is: the event's id and device seq, and which
        # delivery of that pair from that source it is (a file: the occurrence within the
        # file, so a device's duplicate inside one file stays visible; Kafka: the offset).
        # DuckDB cannot alter a primary key: create, copy, drop, rename. Rows from before keep
        # their source; their occurrence is counted in position order. The key is kept by the
        # one writer, which inserts only the deliveries whose key it does not hold
        # (Ledger._insert_new_deliveries, the only way deliveries are added), not by a
        # PRIMARY KEY constraint: its index over full paths and event ids cost 38 ms more per
        # 21,000 events than no index (the old (source, position) key: 14 ms), a quarter of the
        # writer's time (measured on a 2-table day).
        """
CREATE TABLE deliveries_v6 (
    source        VARCHAR NOT NULL,   -- a file's full resolved path, or kafka:<topic>:<partition>
    position      BIGINT  NOT NULL,   -- index in the file, or Kafka offset (informational)
    event_id      VARCHAR NOT NULL,
    table_id      VARCHAR NOT NULL,
    device_id     VARCHAR NOT NULL,
    seq           BIGINT  NOT NULL,
    occurred_at   BIGINT  NOT NULL,
    gaming_date   DATE    NOT NULL,
    payload_type  VARCHAR NOT NULL,
    fields_json   VARCHAR NOT NULL,
    occurrence    BIGINT  NOT NULL    -- a file: nth (event_id, seq) in it; Kafka: the offset
    -- the key: (source, event_id, seq, occurrence), kept by the writer (see above)
);
INSERT INTO deliveries_v6
SELECT *, CASE WHEN source LIKE 'kafka:%' THEN position
          ELSE row_number() OVER (PARTITION BY source, event_id, seq ORDER BY position) - 1 END
FROM deliveries;
DROP TABLE deliveries;
ALTER TABLE deliveries_v6 RENAME TO deliveries;

CREATE TABLE input_files_v6 (
    source VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, bytes BIGINT NOT NULL,
    events BIGINT NOT NULL, loaded_at TIMESTAMP NOT NULL,
    PRIMARY KEY (source, sha256)
);
INSERT INTO input_files_v6 SELECT * FROM input_files;
DROP TABLE input_files;
ALTER TABLE input_files_v6 RENAME TO input_files;

ALTER TABLE dead_letters ADD COLUMN resolved_at TIMESTAMP;
ALTER TABLE dead_letters ADD COLUMN resolved_by VARCHAR;  -- sha256 of the resolving delivery
""",
    ),
    (
        7,
        "acknowledgements keep the journal record they were imported from",
        # the journal record's id and HMAC, so verify can tell an imported acknowledgement
        # from one inserted by hand, and find it gone from the journal; the actor's source
        """
ALTER TABLE acknowledgements ADD COLUMN ack_id VARCHAR;
ALTER TABLE acknowledgements ADD COLUMN actor_source VARCHAR;
ALTER TABLE acknowledgements ADD COLUMN record_hmac VARCHAR;
""",
    ),
    (
        9,
        "exception notices: the live feed's outbox of exceptions raised and withdrawn",
        # written in the transaction that re-derived the table-day, so a notice is never lost
        # between the ledger and the audit-exceptions topic; published_at is set once sent
        # (pipeline.ledger.notices)
        # (a sequence numbers them: consumers in one process share the file, and their
        # transactions must not draw the same number)
        """
CREATE SEQUENCE exception_notice_seq START 1;
CREATE TABLE exception_notices (
    notice_seq BIGINT PRIMARY KEY DEFAULT nextval('exception_notice_seq'),
    state VARCHAR NOT NULL,
    exception_id VARCHAR NOT NULL, table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL,
    code VARCHAR NOT NULL, section VARCHAR NOT NULL, severity VARCHAR NOT NULL,
    severity_rank INTEGER NOT NULL, shoe_id VARCHAR, round_id VARCHAR, seat INTEGER,
    patron_id VARCHAR, serial BIGINT, expected_cents BIGINT, actual_cents BIGINT,
    message VARCHAR NOT NULL, source_event_ids VARCHAR[],
    recorded_at TIMESTAMP NOT NULL, published_at TIMESTAMP
);
""",
    ),
    (
        10,
        "table practices: what each table-day shows of the rules that bind a pit's tables",
        # the shuffling option of its shoes and the settlement procedure of its rounds, with
        # their events (pipeline.replay.pit); the day's pit findings are judged from these
        # rows of all its tables. A ledger migrated from before holds none for the table-days
        # replayed before: replaying a table-day again writes its rows.
        """
CREATE TABLE table_practices (
    table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, pit VARCHAR NOT NULL,
    game VARCHAR NOT NULL, subject VARCHAR NOT NULL, practice VARCHAR NOT NULL,
    breaks VARCHAR, shoe_id VARCHAR, round_id VARCHAR, detail VARCHAR,
    source_event_ids VARCHAR[]
);
""",
    ),
    (
        13,
        "alert deliveries: which exception notices each alert channel has delivered",
        # alerts are driven from the exception_notices outbox: a channel (webhook, e-mail
        # relay, with its filter) alerts on the notices recorded after it was first
        # configured, and a delivery row per notice sent, so a restarted stream sends what
        # was not delivered and not what was (pipeline.ledger.notices)
        """
CREATE TABLE alert_channels (
    channel VARCHAR PRIMARY KEY,
    after_notice_seq BIGINT NOT NULL,
    added_at TIMESTAMP NOT NULL
);
CREATE TABLE alert_deliveries (
    channel VARCHAR NOT NULL,
    notice_seq BIGINT NOT NULL,
    delivered_at TIMESTAMP NOT NULL,
    PRIMARY KEY (channel, notice_seq)
);
""",
    ),
    (
        14,
        "no secondary index on close_digests",
        # as deliveries (migration 4): a close reads a table's digests of one day, a million
        # rows at 24 tables, by a scan pruned by zone maps (the rows of a close are appended
        # together), never through the ART index, whose upkeep cost a close of 96 tables
        # 1.1 s of its 12.9 s of sealing and 37 MB
        "DROP INDEX close_digests_day;",
    ),
    (
        15,
        "a seal entry records how its close wrote out the rows it hashed, and their columns",
        # the rows were hashed as structs with their column names; a close now hashes their
        # values alone (pipeline.reports.seals.ROW_TEXTS) and says so in the entry, which
        # authenticates it with each table's columns; the entries made before keep NULL in
        # both, as their links were made
        """
ALTER TABLE seal_log ADD COLUMN row_text VARCHAR;
ALTER TABLE seal_log ADD COLUMN table_columns_json VARCHAR;
""",
    ),
    (
        16,
        "close_digests keeps each row digest as its 32 bytes",
        # DuckDB compressed the hex text (DICT_FSST) as a close wrote it and checkpointed it:
        # 0.55 s of a 24-table close's 3.3 s of sealing. The bytes, uncompressed, take about
        # as much room (a million digests: 141 blocks against 133). Every digest is still
        # compared as hex text
        # (pipeline.reports.seals.KEPT_AS reads them back as written before), so the
        # seal entries' table digests hold. A value that is not a digest's lowercase hex
        # (an edit since its close; null once the constraint was dropped) is kept as the
        # bytes of its text (of the word NULL for null): it reads back as other text, so a
        # day that no longer verified still does not, and verify names the value as no
        # digest. A table whose columns are not the three a close writes is refused, not
        # copied without its other columns. It converted a closed 24-table day's 1.87M
        # digests in 0.87 s.
        """
SELECT CASE WHEN (SELECT list(name || ' ' || type ORDER BY cid)
                  FROM pragma_table_info('close_digests'))
                 <> ['gaming_date DATE', 'table_name VARCHAR', 'row_sha256 VARCHAR']
            THEN error('close_digests does not have the columns gaming_date DATE, table_name '
                       || 'VARCHAR, row_sha256 VARCHAR, which the digests are kept in')
       END;
CREATE TABLE close_digests_v16 (
    gaming_date DATE NOT NULL, table_name VARCHAR NOT NULL,
    row_sha256 BLOB NOT NULL USING COMPRESSION uncompressed
);
INSERT INTO close_digests_v16
SELECT gaming_date, table_name,
       CASE WHEN regexp_full_match(row_sha256, '[0-9a-f]{64}') THEN unhex(row_sha256)
            ELSE encode(coalesce(row_sha256, 'NULL')) END
FROM close_digests;
DROP TABLE close_digests;
ALTER TABLE close_digests_v16 RENAME TO close_digests;
""",
    ),
    (
        17,
        "the ledger's identity; seal entries signed by the installation's key",
        # a witness holds checkpoints by ledger id, and every journal record names it, so a
        # journal or a checkpoint of another ledger (a training copy, a restore drill) is
        # told apart. A seal entry records the key that signed it, its Ed25519 signature,
        # its ledger and the SHA-256 of the roles file that authorized it; the entries
        # made before keep NULL in each, as their HMAC links were made. Written to run again
        # over itself (a ledger whose history rows were deleted keeps its identity)
        """
CREATE TABLE IF NOT EXISTS ledger_identity (
    ledger_id VARCHAR PRIMARY KEY,
    created_at TIMESTAMP NOT NULL
);
INSERT INTO ledger_identity
SELECT CAST(uuid() AS VARCHAR), CAST(now() AS TIMESTAMP)
WHERE NOT EXISTS (SELECT 1 FROM ledger_identity);
ALTER TABLE seal_log ADD COLUMN IF NOT EXISTS ledger_id VARCHAR;
ALTER TABLE seal_log ADD COLUMN IF NOT EXISTS roles_sha256 VARCHAR;
ALTER TABLE seal_log ADD COLUMN IF NOT EXISTS key_id VARCHAR;
ALTER TABLE seal_log ADD COLUMN IF NOT EXISTS signature VARCHAR;
""",
    ),
    (
        18,
        "pattern runs: what the pattern stage last searched each gaming day over",
        # the close runs the pattern stage for a day whose rows changed since it last ran
        # (a streamed day, whose loads never ran it): ``inputs_sha256`` digests the window's
        # deliveries and table-day replays and the stage's settings as the run read them
        # (pipeline.patterns.stage.pattern_inputs). Written to run again over itself, as 17
        """
CREATE TABLE IF NOT EXISTS pattern_runs (
    gaming_date DATE PRIMARY KEY,
    inputs_sha256 VARCHAR NOT NULL,
    ran_at TIMESTAMP NOT NULL
);
""",
    ),
    (
        19,
        "archive manifests: the Iceberg files each sealed day was archived to",
        # a close's rows become Parquet files in an Iceberg table set (pipeline.ledger.archive);
        # the manifest names each file of the day with its size, rows and SHA-256, keyed by the
        # seal it was archived for (a re-close archives the day again, as a new snapshot).
        # Written to run again over itself, as 17
        """
CREATE TABLE IF NOT EXISTS archive_manifests (
    gaming_date DATE NOT NULL,
    sealed_at TIMESTAMP NOT NULL,
    manifest_json VARCHAR NOT NULL,
    manifest_sha256 VARCHAR NOT NULL,
    archived_at TIMESTAMP NOT NULL,
    PRIMARY KEY (gaming_date, sealed_at)
);
""",
    ),
    (
        20,
        "a close's seal entry carries its archive manifest's SHA-256",
        # the seal covers the archive: the entry's link covers the digest of the manifest
        # (each Iceberg data file of the day with its SHA-256), so a file edited, removed or
        # added, or a manifest rewritten, is named by verify. Entries made before keep NULL,
        # as their links were made. Written to run again over itself, as 17
        """
ALTER TABLE seal_log ADD COLUMN IF NOT EXISTS archive_sha256 VARCHAR;
""",
    ),
    (
        21,
        "archived days: closed days read in place from the archive",
        # a closed day's rows leave the working store once archived and sealed
        # (pipeline.ledger.working_store); each connection reads them from the files named
        # here. Written to run again over itself, as 17
        """
CREATE TABLE IF NOT EXISTS archived_days (
    gaming_date DATE PRIMARY KEY,
    sealed_at TIMESTAMP NOT NULL,
    files_json VARCHAR NOT NULL,
    moved_at TIMESTAMP NOT NULL
);
""",
    ),
    (
        22,
        "archived days: the columns of each table's files",
        # the views read the files of days whose columns are alike without opening each one
        # to learn them (pipeline.ledger.working_store); days moved out before keep NULL and
        # are read as before. Written to run again over itself, as 17
        """
ALTER TABLE archived_days ADD COLUMN IF NOT EXISTS columns_json VARCHAR;
""",
    ),
    (
        23,
        "carried evidence: each gaming day's contribution to the pattern stage's windows",
        # the pattern stage reads a day's scored rounds per patron and its dealer-patron
        # pairs counted from here for every day of its window but the day itself, instead of
        # the window's rows (pipeline.patterns.carried); carried_days digests what each
        # day's rows were derived from, so a day loaded or replayed again is carried again.
        # Written to run again over itself, as 17
        """
CREATE TABLE IF NOT EXISTS carried_days (
    gaming_date DATE PRIMARY KEY,
    inputs_sha256 VARCHAR NOT NULL,
    carried_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS patron_day_rounds (
    gaming_date DATE NOT NULL,
    patron_id VARCHAR NOT NULL,
    stakes_cents BIGINT[],
    won BOOLEAN[],
    win_probability DOUBLE[],
    preview_steps DOUBLE[],
    PRIMARY KEY (gaming_date, patron_id)
);
CREATE TABLE IF NOT EXISTS pair_day_counts (
    gaming_date DATE NOT NULL,
    dealer_id VARCHAR NOT NULL,
    patron_id VARCHAR NOT NULL,
    seat_rounds BIGINT NOT NULL,
    erred BIGINT NOT NULL,
    in_patron_favour BIGINT NOT NULL,
    PRIMARY KEY (gaming_date, dealer_id, patron_id)
);
""",
    ),
    (
        24,
        "carried shoes: each gaming day's shoes as the slug search compares them",
        # the slug search reads the cards of every shoe of its window but the day's own from
        # here, as numbers, instead of the window's card rows (pipeline.patterns.stage
        # carry_window). The days carried before hold no shoes, so every day is carried
        # again. Written to run again over itself, as 17
        """
CREATE TABLE IF NOT EXISTS carried_shoes (
    gaming_date DATE NOT NULL,
    table_id VARCHAR NOT NULL,
    shoe_id VARCHAR NOT NULL,
    started_at BIGINT NOT NULL,
    cards_in_shoe INTEGER NOT NULL,
    pit VARCHAR NOT NULL,
    game VARCHAR NOT NULL,
    positions BIGINT[] NOT NULL,
    faces BIGINT[] NOT NULL,
    PRIMARY KEY (gaming_date, table_id, shoe_id)
);
DELETE FROM carried_days;
""",
    ),
    (
        25,
        "rounds: the dealer of each round",
        # the dealer history and the compliance search read who dealt a round from its row
        # instead of every stored day's RoundStarted deliveries (issue 26): the dealer its
        # RoundStarted names, else the one named before it (a RoundStarted names the dealer
        # only on a change), else the one who opened the table (pipeline.replay.machine).
        # Rows derived before read null: the history falls back to the deliveries for those
        # rounds alone (pipeline.ledger.history), and a day sealed before digests its rows
        # without the column (pipeline.ledger.seal_record). Written to run again over
        # itself, as 17
        """
ALTER TABLE rounds ADD COLUMN IF NOT EXISTS dealer_id VARCHAR;
""",
    ),
)
