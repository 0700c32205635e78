-- 0023_response_versions: per-tenant versions of the resources cached
-- answers are computed from (domain.ResourceNames), bumped by
-- triggers in the writing transaction of every writer (the API, the CLI, or
-- plain SQL of another system). A reader that sees the versions an answer
-- was computed at knows no write of those resources committed since.
-- A tenant's versions are spread over 8 rows (slot = the writing
-- transaction's id mod 8), summed when read, so that two writers of one
-- tenant committing at once rarely wait for one row; each column is one
-- resource, so a transaction bumps one row per tenant whatever it writes
-- (no lock order between resources, no deadlock).
-- No foreign key to tenants: a deleted tenant's counters stay, so that a
-- tenant made again with the same id (the seed's ids are fixed) counts on
-- from them and never meets an old answer's versions again.
CREATE TABLE response_versions (
  tenant_id  uuid NOT NULL,
  slot       smallint NOT NULL,
  invoices   bigint NOT NULL DEFAULT 0,
  statements bigint NOT NULL DEFAULT 0,
  trailers   bigint NOT NULL DEFAULT 0,
  locations  bigint NOT NULL DEFAULT 0,
  users      bigint NOT NULL DEFAULT 0,
  loads      bigint NOT NULL DEFAULT 0,
  parties    bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, slot)
);
ALTER TABLE response_versions ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON response_versions TO haulgraph_tenant
  USING (tenant_id = app_tenant()) WITH CHECK (tenant_id = app_tenant());

-- response_versions_bump(resource) bumps the version of TG_ARGV[0] for the
-- tenant of the row written, once per transaction and tenant (later rows
-- find their mark in a transaction-local setting and write nothing). It is
-- a deferred constraint trigger: it runs at commit, so the version row is
-- locked only while the transaction commits, and a tenant's concurrent
-- writers do not wait for each other while they work. It runs with the
-- owner's rights, so a writer of any role may write the tables.
CREATE FUNCTION response_versions_bump() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  res     text := TG_ARGV[0];
  tenants uuid[];
  t       uuid;
  mark    text;
  done    text := coalesce(current_setting('haulgraph.versions_bumped', true), '');
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    SELECT array_agg(id) INTO tenants FROM tenants;
  ELSIF TG_OP = 'INSERT' THEN
    tenants := ARRAY[NEW.tenant_id];
  ELSIF TG_OP = 'DELETE' OR OLD.tenant_id = NEW.tenant_id THEN
    tenants := ARRAY[OLD.tenant_id];
  ELSE
    tenants := ARRAY[OLD.tenant_id, NEW.tenant_id];
  END IF;
  FOREACH t IN ARRAY coalesce(tenants, '{}') LOOP
    mark := res || ':' || t::text || ';';
    CONTINUE WHEN position(mark IN done) > 0;
    done := done || mark;
    INSERT INTO response_versions AS v (tenant_id, slot, invoices, statements, trailers, locations, users, loads, parties)
      VALUES (t, (pg_current_xact_id()::text::bigint % 8)::smallint,
        (res = 'invoices')::int, (res = 'statements')::int, (res = 'trailers')::int, (res = 'locations')::int,
        (res = 'users')::int, (res = 'loads')::int, (res = 'parties')::int)
      ON CONFLICT (tenant_id, slot) DO UPDATE SET
        invoices = v.invoices + excluded.invoices, statements = v.statements + excluded.statements,
        trailers = v.trailers + excluded.trailers, locations = v.locations + excluded.locations,
        users = v.users + excluded.users, loads = v.loads + excluded.loads, parties = v.parties + excluded.parties;
  END LOOP;
  IF TG_OP <> 'TRUNCATE' THEN
    PERFORM set_config('haulgraph.versions_bumped', done, true);
  END IF;
  RETURN NULL;
END $$;

-- Two triggers per table: the rows' writes (deferred to commit) and TRUNCATE.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('invoices', 'invoices'), ('invoice_line_items', 'invoices'), ('invoice_loads', 'invoices'), ('invoice_payments', 'invoices'),
    ('settlement_statements', 'statements'), ('statement_line_items', 'statements'), ('statement_sub_lines', 'statements'),
    ('trailers', 'trailers'),
    ('locations', 'locations'), ('location_notes', 'locations'),
    ('users', 'users'),
    ('loads', 'loads'), ('stops', 'loads'), ('trips', 'loads'), ('documents', 'loads'),
    ('customers', 'parties'), ('vendors', 'parties'), ('carriers', 'parties'), ('drivers', 'parties'),
    ('trucks', 'parties'), ('fleets', 'parties'), ('subsidiaries', 'parties')
  ) AS v(tbl, res) LOOP
    EXECUTE format('CREATE CONSTRAINT TRIGGER response_versions AFTER INSERT OR UPDATE OR DELETE ON %I
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION response_versions_bump(%L)', t.tbl, t.res);
    EXECUTE format('CREATE TRIGGER response_versions_truncate AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION response_versions_bump(%L)', t.tbl, t.res);
  END LOOP;
END $$;
