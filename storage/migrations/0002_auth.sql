-- 0002_auth: the token issuer's signing keys.
--
-- The private key is stored sealed with AES-256-GCM (HAULGRAPH_ENCRYPTION_KEY,
-- the kid as associated data). One key signs at a time; a rotated key keeps
-- verifying (and stays in the JWKS) until not_after, when its last token has expired.
CREATE TABLE signing_keys (
  kid         text PRIMARY KEY,
  algorithm   text NOT NULL DEFAULT 'ES256',
  private_key bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  retired_at  timestamptz,
  not_after   timestamptz,
  CHECK ((retired_at IS NULL) = (not_after IS NULL))
);
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;

-- Keys are system data: tenant transactions never see them.
REVOKE ALL ON signing_keys FROM haulgraph_tenant;

-- Counting a tenant's live client sets (docs/api-contract.md §5.1's limit of 10).
CREATE INDEX api_clients_tenant_live ON api_clients (tenant_id) WHERE revoked_at IS NULL;
