-- 0001_core: every resource of the specification, tenant-scoped.
--
-- Isolation is enforced twice: every query names tenant_id, and row-level
-- security filters on app.tenant_id. Tenant transactions run as the NOLOGIN
-- role haulgraph_tenant (SET LOCAL ROLE), which RLS binds; system work (the
-- outbox relay, token issuance, migrations, seeding) runs as the owner.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'haulgraph_tenant') THEN
    BEGIN
      CREATE ROLE haulgraph_tenant NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; -- a concurrent migration made it
    END;
  END IF;
  IF NOT pg_has_role(current_user, 'haulgraph_tenant', 'MEMBER') THEN
    EXECUTE format('GRANT haulgraph_tenant TO %I', current_user);
  END IF;
END $$;

CREATE FUNCTION app_tenant() RETURNS uuid LANGUAGE sql STABLE AS
$$ SELECT nullif(current_setting('app.tenant_id', true), '')::uuid $$;

CREATE TABLE tenants (
  id         uuid PRIMARY KEY,
  slug       text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE subsidiaries (
  id        uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  name      text NOT NULL
);
CREATE INDEX subsidiaries_tenant ON subsidiaries (tenant_id);

CREATE TABLE fleets (
  id                    uuid PRIMARY KEY,
  tenant_id             uuid NOT NULL REFERENCES tenants(id),
  name                  text NOT NULL,
  invoice_number_prefix text NOT NULL DEFAULT ''
);
CREATE INDEX fleets_tenant ON fleets (tenant_id);

-- API clients (docs/api-contract.md §5.1). The secret is stored only as a hash.
CREATE TABLE api_clients (
  id            uuid PRIMARY KEY,
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  client_id     text NOT NULL UNIQUE,
  secret_hash   bytea NOT NULL,
  name          text NOT NULL,
  description   text NOT NULL DEFAULT '',
  scopes        text[] NOT NULL,
  expires_at    timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_clients_tenant ON api_clients (tenant_id);

CREATE TABLE customers (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  name             text NOT NULL,
  email_addresses  text[] NOT NULL DEFAULT '{}',
  phone_numbers    text[] NOT NULL DEFAULT '{}',
  billing_street   text NOT NULL DEFAULT '', billing_city  text NOT NULL DEFAULT '',
  billing_state    text NOT NULL DEFAULT '', billing_zip   text NOT NULL DEFAULT '',
  shipping_street  text NOT NULL DEFAULT '', shipping_city text NOT NULL DEFAULT '',
  shipping_state   text NOT NULL DEFAULT '', shipping_zip  text NOT NULL DEFAULT ''
);
CREATE INDEX customers_tenant ON customers (tenant_id);

CREATE TABLE vendors (
  id            uuid PRIMARY KEY,
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  name          text NOT NULL,
  remit_street  text NOT NULL DEFAULT '', remit_city text NOT NULL DEFAULT '',
  remit_state   text NOT NULL DEFAULT '', remit_zip  text NOT NULL DEFAULT '',
  remit_email   text NOT NULL DEFAULT '',
  remit_phone   text NOT NULL DEFAULT ''
);
CREATE INDEX vendors_tenant ON vendors (tenant_id);

CREATE TABLE carriers (
  id        uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  name      text NOT NULL,
  mc_number text NOT NULL DEFAULT '',
  dot_number text NOT NULL DEFAULT ''
);
CREATE INDEX carriers_tenant ON carriers (tenant_id);

CREATE TABLE drivers (
  id            uuid PRIMARY KEY,
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  name          text NOT NULL,
  type          text NOT NULL CHECK (type IN ('COMPANY', 'OWNER_OPERATOR', 'CONTRACTOR')),
  company_name  text,
  subsidiary_id uuid REFERENCES subsidiaries(id),
  fleet_id      uuid REFERENCES fleets(id)
);
CREATE INDEX drivers_tenant ON drivers (tenant_id);

CREATE TABLE trucks (
  id        uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  number    text NOT NULL
);
CREATE INDEX trucks_tenant ON trucks (tenant_id);

-- Locations (docs/api-contract.md §2.5).
CREATE TABLE locations (
  id             uuid PRIMARY KEY,
  tenant_id      uuid NOT NULL REFERENCES tenants(id),
  name           text NOT NULL,
  company_number text NOT NULL DEFAULT '',
  type           text NOT NULL,
  status         text NOT NULL CHECK (status IN ('Active', 'Disabled', 'Inactive')),
  street         text NOT NULL DEFAULT '', city text NOT NULL DEFAULT '',
  state          text NOT NULL DEFAULT '', zip_code text NOT NULL DEFAULT '',
  email          text[] NOT NULL DEFAULT '{}',
  phone          text[] NOT NULL DEFAULT '{}',
  fax            text NOT NULL DEFAULT '',
  date_created   timestamptz NOT NULL,
  external_id    text
);
CREATE INDEX locations_search ON locations (tenant_id, status, date_created, id);
CREATE INDEX locations_created ON locations (tenant_id, date_created, id);

CREATE TABLE location_notes (
  id          uuid PRIMARY KEY,
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  location_id uuid NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
  description text NOT NULL,
  note_type   text NOT NULL,
  time        timestamptz NOT NULL,
  author      text NOT NULL
);
CREATE INDEX location_notes_location ON location_notes (tenant_id, location_id, time);

-- Users (docs/api-contract.md §2.6). Keyword search uses a trigram index.
CREATE TABLE users (
  id           uuid PRIMARY KEY,
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  user_name    text NOT NULL,
  name         text NOT NULL,
  email        text NOT NULL DEFAULT '',
  phone        text NOT NULL DEFAULT '',
  user_type    text NOT NULL,
  role         text NOT NULL,
  company_code text NOT NULL DEFAULT '',
  status       text NOT NULL CHECK (status IN ('Active', 'Disabled', 'Deleted')),
  permissions  text[] NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL,
  modified_at  timestamptz NOT NULL,
  search_text  text GENERATED ALWAYS AS (lower(user_name || ' ' || name || ' ' || email)) STORED
);
CREATE INDEX users_order ON users (tenant_id, user_name, id);
CREATE INDEX users_keyword ON users USING gin (search_text gin_trgm_ops);

-- Trailers (docs/api-contract.md §2.4); Notes and References are small value lists.
CREATE TABLE trailers (
  id                      uuid PRIMARY KEY,
  tenant_id               uuid NOT NULL REFERENCES tenants(id),
  created_at              timestamptz NOT NULL,
  trailer_num             text, make text, license_num text, license_state text, vin_num text,
  status                  text CHECK (status IN ('Active', 'Inactive', 'InShop', 'OutOfService', 'Sold')),
  subsidiary_id           uuid REFERENCES subsidiaries(id),
  equipment_type          text, equipment_size text,
  insurance_company       text, insurance_policy_number text,
  fleet_id                uuid REFERENCES fleets(id),
  year                    integer,
  license_country         text CHECK (license_country IN ('USA', 'Canada', 'Mexico')),
  plate_expires_at        date, license_expires_at date, insurance_expires_at date, inspection_expires_at date,
  capacity_pallets        integer, capacity_weight integer,
  notes                   jsonb NOT NULL DEFAULT '[]',
  refs                    jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX trailers_order ON trailers (tenant_id, created_at, id);

-- Loads, stops and trips (docs/architecture.md: the load snapshot).
CREATE TABLE loads (
  id             uuid PRIMARY KEY,
  tenant_id      uuid NOT NULL REFERENCES tenants(id),
  load_number    text NOT NULL,
  status         text NOT NULL CHECK (status IN ('Open','Quoted','Reserved','Covered','Dispatched','InTransit','Delivered','Cancelled','TONU')),
  billing_status text NOT NULL CHECK (billing_status IN ('Released','Queued','Invoiced','Financed','Completed','Paid')),
  subsidiary_id  uuid NOT NULL REFERENCES subsidiaries(id),
  customer_id    uuid REFERENCES customers(id),
  order_number   text NOT NULL DEFAULT '',
  po_number      text NOT NULL DEFAULT '',
  source         text NOT NULL DEFAULT '',
  rate           numeric(14,2) NOT NULL DEFAULT 0,
  currency       integer NOT NULL DEFAULT 840,
  weight         numeric(12,2),
  commodity      text NOT NULL DEFAULT '',
  equipment_type text NOT NULL DEFAULT '',
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  UNIQUE (tenant_id, load_number)
);
CREATE INDEX loads_status ON loads (tenant_id, status, updated_at);

CREATE TABLE stops (
  id                uuid PRIMARY KEY,
  tenant_id         uuid NOT NULL REFERENCES tenants(id),
  load_id           uuid NOT NULL REFERENCES loads(id) ON DELETE CASCADE,
  sequence          integer NOT NULL,
  type              text NOT NULL CHECK (type IN ('Pickup', 'Delivery')),
  location_id       uuid REFERENCES locations(id),
  name              text NOT NULL DEFAULT '',
  street            text NOT NULL DEFAULT '', city text NOT NULL DEFAULT '',
  state             text NOT NULL DEFAULT '', zip_code text NOT NULL DEFAULT '',
  appointment_start timestamptz, appointment_end timestamptz,
  arrived_at        timestamptz, departed_at timestamptz,
  UNIQUE (load_id, sequence)
);
CREATE INDEX stops_load ON stops (tenant_id, load_id, sequence);

CREATE TABLE trips (
  id          uuid PRIMARY KEY,
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  load_id     uuid NOT NULL REFERENCES loads(id) ON DELETE CASCADE,
  trip_number text NOT NULL,
  status      text NOT NULL,
  driver_ids  uuid[] NOT NULL DEFAULT '{}',
  truck_id    uuid REFERENCES trucks(id),
  trailer_id  uuid REFERENCES trailers(id),
  carrier_id  uuid REFERENCES carriers(id),
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);
CREATE INDEX trips_load ON trips (tenant_id, load_id, trip_number);

-- Invoices (docs/api-contract.md §2.2).
CREATE TABLE invoices (
  id                        uuid PRIMARY KEY,
  tenant_id                 uuid NOT NULL REFERENCES tenants(id),
  number                    text NOT NULL,
  type                      text NOT NULL CHECK (type IN ('LoadInvoice','OrderInvoice','SummaryInvoice','StandaloneInvoice')),
  status                    text NOT NULL CHECK (status IN ('Draft','AwaitingPayment','Paid')),
  created_date              timestamptz NOT NULL,
  invoiced_date             timestamptz, due_date timestamptz, paid_date timestamptz, last_send_date timestamptz,
  currency                  integer NOT NULL DEFAULT 840,
  total                     numeric(14,2) NOT NULL,
  amount_paid               numeric(14,2) NOT NULL DEFAULT 0,
  remaining_balance         numeric(14,2) NOT NULL,
  over_payment_amount       numeric(14,2) NOT NULL DEFAULT 0,
  is_submitted              boolean NOT NULL DEFAULT false,
  supplemental_invoice_type text,
  vendor_id                 uuid REFERENCES vendors(id),
  customer_id               uuid REFERENCES customers(id),
  UNIQUE (tenant_id, number)
);

CREATE TABLE invoice_line_items (
  id          uuid PRIMARY KEY,
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  invoice_id  uuid NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  position    integer NOT NULL,
  name        text NOT NULL,
  amount      numeric(14,2) NOT NULL,
  currency    integer NOT NULL DEFAULT 840,
  rate_unit_of_measurement text NOT NULL DEFAULT '',
  rate_units  numeric(14,4) NOT NULL DEFAULT 0,
  rate_rate   numeric(14,4) NOT NULL DEFAULT 0,
  load_number text NOT NULL DEFAULT '',
  customer_id text NOT NULL DEFAULT '',
  category    text NOT NULL DEFAULT ''
);
CREATE INDEX invoice_line_items_invoice ON invoice_line_items (tenant_id, invoice_id, position);

CREATE TABLE invoice_loads (
  tenant_id  uuid NOT NULL REFERENCES tenants(id),
  invoice_id uuid NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  load_id    uuid NOT NULL REFERENCES loads(id),
  PRIMARY KEY (invoice_id, load_id)
);
CREATE INDEX invoice_loads_tenant ON invoice_loads (tenant_id, invoice_id);

CREATE TABLE invoice_payments (
  id                uuid PRIMARY KEY,
  tenant_id         uuid NOT NULL REFERENCES tenants(id),
  invoice_id        uuid NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  payment_date      timestamptz NOT NULL,
  amount            numeric(14,2) NOT NULL,
  currency          integer NOT NULL DEFAULT 840,
  check_number      text NOT NULL DEFAULT '',
  payment_reference text NOT NULL DEFAULT ''
);
CREATE INDEX invoice_payments_invoice ON invoice_payments (tenant_id, invoice_id, payment_date);

-- Driver settlement statements (docs/api-contract.md §2.3). Only Processed and Failed are ever
-- visible; the others exist so that the rule is real.
CREATE TABLE settlement_statements (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  number           integer NOT NULL,
  status           text NOT NULL CHECK (status IN ('Processed','Failed','Generating','Reversing','Open','Draft')),
  statement_date   date NOT NULL,
  pay_period_id    text NOT NULL,
  pay_period_title text NOT NULL,
  driver_id        uuid NOT NULL REFERENCES drivers(id),
  driver_type      text NOT NULL CHECK (driver_type IN ('COMPANY', 'OWNER_OPERATOR', 'CONTRACTOR')),
  currency         integer,
  gross_income numeric(14,2), net_income numeric(14,2), line_haul numeric(14,2), accessorials numeric(14,2),
  echecks numeric(14,2), service_fee numeric(14,2), driver_payment numeric(14,2), deductions numeric(14,2),
  reimbursements numeric(14,2), credits numeric(14,2), escrow numeric(14,2), fuel numeric(14,2),
  tolls numeric(14,2), bonus numeric(14,2), shortfall numeric(14,2), daily_pay numeric(14,2),
  daily_per_diem numeric(14,2), statement_per_diem numeric(14,2), trip_value numeric(14,2),
  number_of_trips integer, loaded_miles numeric(12,2), empty_miles numeric(12,2), hours_worked numeric(10,2),
  UNIQUE (tenant_id, number)
);
-- The search filters of docs/api-contract.md §4.2: date window, driver type, driver id.
CREATE INDEX statements_search ON settlement_statements (tenant_id, statement_date, number)
  INCLUDE (driver_type, driver_id) WHERE status IN ('Processed', 'Failed');
CREATE INDEX statements_by_type ON settlement_statements (tenant_id, driver_type, statement_date, number)
  WHERE status IN ('Processed', 'Failed');
CREATE INDEX statements_by_driver ON settlement_statements (tenant_id, driver_id, statement_date, number)
  WHERE status IN ('Processed', 'Failed');

CREATE TABLE statement_line_items (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  statement_id     uuid NOT NULL REFERENCES settlement_statements(id) ON DELETE CASCADE,
  position         integer NOT NULL,
  category         text NOT NULL,
  title            text NOT NULL,
  policy_name      text,
  trip_number      text,
  load_number      text,
  amount           numeric(14,2) NOT NULL,
  currency         integer,
  transaction_type text CHECK (transaction_type IN ('Deposit', 'Withdrawal'))
);
CREATE INDEX statement_line_items_statement ON statement_line_items (statement_id, position);

CREATE TABLE statement_sub_lines (
  id           uuid PRIMARY KEY,
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  line_item_id uuid NOT NULL REFERENCES statement_line_items(id) ON DELETE CASCADE,
  position     integer NOT NULL,
  description  text NOT NULL,
  quantity     text NOT NULL,
  rate         text NOT NULL,
  amount       numeric(14,2) NOT NULL,
  currency     integer
);
CREATE INDEX statement_sub_lines_item ON statement_sub_lines (line_item_id, position);

-- Documents (docs/api-contract.md §2.7). The blob key never contains user input.
CREATE TABLE documents (
  id              uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  parent_type     text NOT NULL CHECK (parent_type IN ('Load', 'Trip', 'Driver', 'Carrier')),
  parent_id       text NOT NULL,
  parent_uuid     uuid NOT NULL,
  attachment_path text NOT NULL,
  attachment_type text NOT NULL,
  attachment_size bigint NOT NULL,
  content_type    text NOT NULL,
  blob_key        text NOT NULL,
  uploaded_at     timestamptz NOT NULL
);
CREATE INDEX documents_parent ON documents (tenant_id, parent_type, parent_uuid, uploaded_at);

-- The event outbox: written in the transaction of the change it describes.
CREATE TABLE events (
  seq           bigserial PRIMARY KEY,
  id            text NOT NULL UNIQUE,
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  subsidiary_id uuid,
  type          text NOT NULL,
  subject_id    uuid NOT NULL,
  payload       jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_tenant ON events (tenant_id, seq);

CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('haulgraph_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_notify();

-- Durable progress of each outbox consumer.
CREATE TABLE event_cursors (
  consumer text PRIMARY KEY,
  last_seq bigint NOT NULL DEFAULT 0
);

CREATE TABLE webhooks (
  id                          uuid PRIMARY KEY,
  tenant_id                   uuid NOT NULL REFERENCES tenants(id),
  subsidiary_id               uuid NOT NULL REFERENCES subsidiaries(id),
  name                        text NOT NULL,
  url                         text NOT NULL,
  event_types                 text[] NOT NULL,
  include_previous_attributes boolean NOT NULL DEFAULT false,
  state                       text NOT NULL CHECK (state IN ('Disabled', 'Pending', 'Active', 'FailedVerification')),
  secret_ciphertext           bytea NOT NULL,
  previous_secret_ciphertext  bytea,
  previous_secret_expires_at  timestamptz,
  failing_since               timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id, subsidiary_id, state);

CREATE TABLE webhook_deliveries (
  id              uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  webhook_id      uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id        text NOT NULL,
  event_seq       bigint NOT NULL REFERENCES events(seq),
  attempt         integer NOT NULL DEFAULT 0,
  status          text NOT NULL CHECK (status IN ('Pending', 'Delivered', 'Failed')),
  next_attempt_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'Pending';
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (tenant_id, webhook_id, created_at);

CREATE TABLE webhook_attempts (
  id            uuid PRIMARY KEY,
  tenant_id     uuid NOT NULL REFERENCES tenants(id),
  delivery_id   uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt       integer NOT NULL,
  status_code   integer,
  latency_ms    integer NOT NULL,
  error         text,
  attempted_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
CREATE INDEX webhook_attempts_age ON webhook_attempts (attempted_at);

-- Row-level security on every tenant table, for the haulgraph_tenant role.
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT unnest(ARRAY['subsidiaries','fleets','api_clients','customers','vendors','carriers','drivers','trucks',
      'locations','location_notes','users','trailers','loads','stops','trips','invoices','invoice_line_items',
      'invoice_loads','invoice_payments','settlement_statements','statement_line_items','statement_sub_lines',
      'documents','events','webhooks','webhook_deliveries','webhook_attempts'])
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %I TO haulgraph_tenant USING (tenant_id = app_tenant()) WITH CHECK (tenant_id = app_tenant())', t);
  END LOOP;
END $$;
ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants TO haulgraph_tenant USING (id = app_tenant());

GRANT USAGE ON SCHEMA public TO haulgraph_tenant;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO haulgraph_tenant;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO haulgraph_tenant;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO haulgraph_tenant;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO haulgraph_tenant;
