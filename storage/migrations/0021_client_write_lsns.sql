-- Read-your-writes across instances with read replicas: the primary's WAL
-- position after each API client's last write. A client's reads use a
-- replica only once it has replayed this far. Written and read with the
-- owner's rights only (no tenant data: no row-level security needed).
CREATE TABLE client_write_lsns (
    client_id  text PRIMARY KEY,
    lsn        pg_lsn NOT NULL,
    written_at timestamptz NOT NULL
);
