-- 0017_events_api: the events API reads one tenant's outbox in outbox order
-- ((xact, seq), 0010_outbox_horizon.sql), optionally for one load number.
CREATE INDEX events_tenant_order ON events (tenant_id, xact, seq);
CREATE INDEX events_tenant_load ON events (tenant_id, (payload #>> '{data,load,LoadNumber}'), xact, seq);
