-- 0004_events: the outbox commits in seq order.
--
-- bigserial values are handed out at insert time but become visible at
-- commit, so two writers can commit seq 11 before seq 10; a reader that had
-- advanced past 11 would never see 10. Every insert into events therefore
-- takes one transaction-scoped advisory lock first (a statement trigger, so no
-- code path can forget it): the writer that draws a seq holds the lock until
-- it commits or aborts, and the next writer draws its seq only after that.
-- Whatever seq a reader sees, every lower seq is already committed or gone.
CREATE FUNCTION events_serialize() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7340218);
  RETURN NULL;
END $$;
CREATE TRIGGER events_serialize BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_serialize();

