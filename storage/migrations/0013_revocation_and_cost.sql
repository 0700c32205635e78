-- 0013: token revocation (RFC 7009) and leases that take n tokens and give
-- unspent ones back (the GraphQL cost budget charges a query's requested cost
-- and refunds what it did not use).

-- One revoked access token, by its jti (POST /oauth/revoke). A row matters
-- only until the token would have expired anyway; later it is pruned.
CREATE TABLE token_revocations (
  client_id  text NOT NULL,
  jti        text NOT NULL,
  tenant_id  uuid NOT NULL,
  revoked_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (client_id, jti)
);
CREATE INDEX token_revocations_expires ON token_revocations (expires_at);
-- System data: every instance reads the whole (small) list each poll.
REVOKE ALL ON token_revocations FROM haulgraph_tenant;
-- Row-level security with no policy: a tenant transaction sees no row even if
-- granted one later; the owner (system work) is not subject to it.
ALTER TABLE token_revocations ENABLE ROW LEVEL SECURITY;

-- The revocation poll reads the clients revoked within one token lifetime.
CREATE INDEX api_clients_revoked ON api_clients (revoked_at) WHERE revoked_at IS NOT NULL;

-- rate_limit_lease with p_return: first gives back p_return tokens an
-- instance leased and did not spend (capped at the burst, so giving back
-- never lets a caller exceed it), then leases as the five-argument version.
CREATE FUNCTION rate_limit_lease(p_key text, p_rate double precision, p_burst double precision,
                                 p_want integer, p_return integer, p_now timestamptz,
                                 OUT granted integer, OUT remaining double precision)
LANGUAGE plpgsql AS $$
DECLARE
  avail double precision;
  last  timestamptz;
BEGIN
  INSERT INTO rate_limit_buckets (key, tokens, refreshed_at)
  VALUES (p_key, p_burst, p_now)
  ON CONFLICT (key) DO NOTHING;
  SELECT tokens, refreshed_at INTO avail, last
  FROM rate_limit_buckets WHERE key = p_key FOR UPDATE;
  avail := LEAST(p_burst, avail + GREATEST(0, p_return)
                 + GREATEST(0, EXTRACT(EPOCH FROM (p_now - last))) * p_rate);
  granted := LEAST(p_want, floor(avail))::integer;
  remaining := avail - granted;
  UPDATE rate_limit_buckets SET tokens = remaining, refreshed_at = GREATEST(last, p_now)
  WHERE key = p_key;
END
$$;
