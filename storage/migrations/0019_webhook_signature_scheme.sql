-- 0019_webhook_signature_scheme: how a webhook's deliveries are signed.

-- Fixed when the webhook is created; existing webhooks keep the
-- X-Service-Signature they were created with.
ALTER TABLE webhooks ADD COLUMN signature_scheme text NOT NULL DEFAULT 'service'
  CHECK (signature_scheme IN ('service', 'standard-webhooks', 'standard-webhooks-ed25519'));
-- The "whpk_" key that verifies ed25519 signatures (public; the private key
-- is sealed in secret_ciphertext like any secret).
ALTER TABLE webhooks ADD COLUMN public_key text
  CHECK ((signature_scheme = 'standard-webhooks-ed25519') = (public_key IS NOT NULL));

-- The delivery log shows what each delivery and attempt was signed with.
ALTER TABLE webhook_deliveries ADD COLUMN signature_scheme text NOT NULL DEFAULT 'service';
ALTER TABLE webhook_attempts ADD COLUMN signature_scheme text NOT NULL DEFAULT 'service';
