-- 0022_event_destinations: a webhook is one type of event destination; the
-- others publish to a message broker (NATS JetStream, RabbitMQ) through the
-- same delivery rows, claims, retries and failure states.

-- type: webhook (an HTTPS endpoint in url), nats-jetstream or rabbitmq (the
-- broker's URL in url, without credentials). broker holds the type's
-- settings (subject prefix, exchange, routing key); the credentials are
-- sealed in credentials_ciphertext, like secrets.
ALTER TABLE webhooks ADD COLUMN type text NOT NULL DEFAULT 'webhook'
  CHECK (type IN ('webhook', 'nats-jetstream', 'rabbitmq'));
ALTER TABLE webhooks ADD COLUMN broker jsonb;
ALTER TABLE webhooks ADD COLUMN credentials_ciphertext bytea;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_broker_config CHECK ((type = 'webhook') = (broker IS NULL));

-- A delivery's load (its load number): the events of one load reach one
-- destination in commit order, so a delivery waits while an earlier one of
-- its load and destination is still Pending.
ALTER TABLE webhook_deliveries ADD COLUMN load_key text;
CREATE INDEX webhook_deliveries_load_order ON webhook_deliveries (webhook_id, load_key, event_seq) WHERE status = 'Pending';
