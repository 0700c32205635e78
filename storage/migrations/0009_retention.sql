-- 0009_retention: indexes for the hourly pruning of delivery history and of
-- consumed outbox events (docs/architecture.md: attempts are kept for 30 days).
CREATE INDEX events_created ON events (created_at);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status <> 'Pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq);
