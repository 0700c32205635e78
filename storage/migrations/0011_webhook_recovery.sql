-- 0011_webhook_recovery: recovering failed deliveries and bringing retries
-- forward once an endpoint answers again.

-- A recovered delivery starts a fresh retry chain: its retries follow the
-- schedule from attempt - chain_base (attempt numbers keep counting, so the
-- attempt log stays unique per delivery).
ALTER TABLE webhook_deliveries ADD COLUMN chain_base integer NOT NULL DEFAULT 0;

-- An endpoint's pending deliveries by due time (bringing retries forward) and
-- its failed ones by age (recover).
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status = 'Pending';
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (webhook_id, created_at) WHERE status = 'Failed';
