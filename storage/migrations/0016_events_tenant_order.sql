-- 0016_events_tenant_order: a resuming subscription replays one tenant's
-- events in outbox order (xact, seq) from a cursor; without this index that
-- read walks every tenant's events since the cursor.
CREATE INDEX events_tenant_order ON events (tenant_id, xact, seq);
