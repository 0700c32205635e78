-- Rate limiting (docs/architecture.md): one token bucket per key (a client, a tenant),
-- shared by every instance. Instances do not write here per request: each
-- leases a small slice of a bucket's tokens at once and spends it locally, so
-- two instances can never hand out more than the bucket holds.
CREATE TABLE rate_limit_buckets (
  key          text PRIMARY KEY,
  tokens       double precision NOT NULL,
  refreshed_at timestamptz NOT NULL
);
-- Idle buckets are full again and are pruned (callers from many addresses
-- would otherwise accumulate rows).
CREATE INDEX rate_limit_buckets_refreshed_at ON rate_limit_buckets (refreshed_at);

-- rate_limit_lease refills the bucket for the time elapsed since its last
-- lease (p_rate tokens per second, at most p_burst), takes up to p_want whole
-- tokens and returns how many it took and what is left. p_now comes from the
-- caller so that the limiter's clock can be injected in tests.
CREATE FUNCTION rate_limit_lease(p_key text, p_rate double precision, p_burst double precision,
                                 p_want integer, p_now timestamptz,
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
  avail := LEAST(p_burst, avail + GREATEST(0, EXTRACT(EPOCH FROM (p_now - last))) * p_rate);
  granted := LEAST(p_want, floor(avail))::integer;
  remaining := avail - granted;
  UPDATE rate_limit_buckets SET tokens = remaining, refreshed_at = GREATEST(last, p_now)
  WHERE key = p_key;
END
$$;
