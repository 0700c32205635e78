-- 0022_response_versions: per-tenant versions of the resources cached
-- answers are computed from (domain.ResourceNames), bumped by statement-level
-- triggers in the writing transaction of every writer (the API, the CLI, or
-- plain SQL of another system). A reader that sees the versions an answer
-- was computed at knows no write of those resources committed since.
-- A tenant's versions are spread over 8 rows (slot = the writing
-- transaction's id mod 8), summed when read, so that two writers of one
-- tenant rarely wait for one row; each column is one resource, so a
-- transaction bumps one row per tenant whatever it writes (no lock order
-- between resources, no deadlock).
CREATE TABLE response_versions (
  tenant_id  uuid NOT NULL REFERENCES tenants(id),
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

-- response_versions_bump(resource) bumps the version of TG_ARGV[0] for every
-- tenant whose rows the statement wrote (all tenants on TRUNCATE), once per
-- transaction and tenant: later statements of the same transaction find
-- their mark in a transaction-local setting and write nothing. It runs with
-- the owner's rights, so a writer of any role may write the tables.
CREATE FUNCTION response_versions_bump() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  res     text := TG_ARGV[0];
  tenants uuid[];
  mark    text;
  done    text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    SELECT array_agg(id) INTO tenants FROM tenants;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT tenant_id) INTO tenants FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT tenant_id) INTO tenants FROM old_rows;
  ELSE
    SELECT array_agg(DISTINCT t) INTO tenants FROM (SELECT tenant_id FROM old_rows UNION SELECT tenant_id FROM new_rows) AS u(t);
  END IF;
  IF tenants IS NULL THEN
    RETURN NULL; -- no row written
  END IF;
  IF cardinality(tenants) = 1 THEN
    mark := res || ':' || tenants[1]::text || ';';
    done := coalesce(current_setting('haulgraph.versions_bumped', true), '');
    IF position(mark IN done) > 0 THEN
      RETURN NULL;
    END IF;
    PERFORM set_config('haulgraph.versions_bumped', done || mark, true);
  END IF;
  INSERT INTO response_versions AS v (tenant_id, slot, invoices, statements, trailers, locations, users, loads, parties)
    SELECT t, (pg_current_xact_id()::text::bigint % 8)::smallint,
      (res = 'invoices')::int, (res = 'statements')::int, (res = 'trailers')::int, (res = 'locations')::int,
      (res = 'users')::int, (res = 'loads')::int, (res = 'parties')::int
    FROM unnest(tenants) AS t
    ON CONFLICT (tenant_id, slot) DO UPDATE SET
      invoices = v.invoices + excluded.invoices, statements = v.statements + excluded.statements,
      trailers = v.trailers + excluded.trailers, locations = v.locations + excluded.locations,
      users = v.users + excluded.users, loads = v.loads + excluded.loads, parties = v.parties + excluded.parties;
  RETURN NULL;
END $$;

-- Four triggers per table (transition tables allow one event per trigger).
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
    EXECUTE format('CREATE TRIGGER response_versions_insert AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION response_versions_bump(%L)', t.tbl, t.res);
    EXECUTE format('CREATE TRIGGER response_versions_update AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION response_versions_bump(%L)', t.tbl, t.res);
    EXECUTE format('CREATE TRIGGER response_versions_delete AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION response_versions_bump(%L)', t.tbl, t.res);
    EXECUTE format('CREATE TRIGGER response_versions_truncate AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION response_versions_bump(%L)', t.tbl, t.res);
  END LOOP;
END $$;
