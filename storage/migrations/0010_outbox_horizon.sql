-- 0010_outbox_horizon: writers commit concurrently; readers wait for the
-- visibility horizon instead (the ordering watermill-sql's PostgreSQL
-- adapter uses).
--
-- 0004 made every event-writing transaction take one advisory lock so that
-- seq values committed in order; that serialised all writers. Now each event
-- records the id of the transaction that wrote it (xact, xid8, never wraps)
-- and readers order by (xact, seq) and read only events whose xact is below
-- pg_snapshot_xmin(pg_current_snapshot()): every transaction with a lower id
-- has ended, so no event can later appear before what a reader has passed.
-- A transaction that commits late holds readers back until it ends; it is
-- never skipped.
DROP TRIGGER events_serialize ON events;
DROP FUNCTION events_serialize();

-- Existing events all get this migration's transaction id: their seq keeps
-- their order.
ALTER TABLE events ADD COLUMN xact xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_order ON events (xact, seq);

-- Durable cursors become positions (xact, seq): a cursor at last_seq now
-- stands at (this migration's xact, last_seq), which is the same place.
ALTER TABLE event_cursors ADD COLUMN last_xact xid8 NOT NULL DEFAULT '0';
UPDATE event_cursors SET last_xact = pg_current_xact_id() WHERE last_seq > 0;
