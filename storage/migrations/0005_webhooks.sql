-- 0005_webhooks: what webhook delivery needs beyond 0001's tables.

-- Why a webhook is Disabled / FailedVerification (shown to the user).
ALTER TABLE webhooks ADD COLUMN state_reason text NOT NULL DEFAULT '';

-- A delivery keeps the webhook's IncludePreviousAttributes as it was when the
-- event was dispatched, so a settings change applies from the next event on.
ALTER TABLE webhook_deliveries ADD COLUMN include_previous_attributes boolean NOT NULL DEFAULT false;
-- Redeliveries are extra rows; the dispatcher's own rows are unique per
-- (webhook, event), which makes a re-run of a dispatch batch harmless.
ALTER TABLE webhook_deliveries ADD COLUMN redelivery boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (webhook_id, event_seq) WHERE NOT redelivery;

-- The webhook dispatcher's durable position in the outbox.
INSERT INTO event_cursors (consumer, last_seq) VALUES ('webhooks', 0) ON CONFLICT DO NOTHING;
