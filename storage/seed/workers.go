package seed

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/storage"
)

// inTx runs fn on a worker copy of s bound to a new transaction and merges
// the worker's partial result into res once the transaction committed.
func (s *seeder) inTx(ctx context.Context, db *storage.DB, res *Result, fn func(context.Context, *seeder) error) error {
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("seed: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	if s.skipRI {
		// pg_restore --disable-triggers' technique: no per-row foreign-key
		// trigger. Only chosen when no other trigger would be skipped; the
		// generator's references are checked by the package tests.
		if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	w := *s
	w.tx, w.res = tx, newResult()
	if err := fn(ctx, &w); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("seed: commit: %w", err)
	}
	res.merge(w.res)
	return nil
}

// concurrently runs each job in its own transaction; the first failure
// cancels the others and is returned.
func (s *seeder) concurrently(ctx context.Context, db *storage.DB, res *Result, jobs []func(context.Context, *seeder) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for _, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part := newResult()
			err := s.inTx(ctx, db, part, job)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				cancel()
				return
			}
			res.merge(part)
		}()
	}
	wg.Wait()
	return first
}

// seededTables are every table seeding writes, parents first.
var seededTables = []string{"tenants", "subsidiaries", "fleets", "vendors", "customers", "carriers", "drivers",
	"trucks", "trailers", "locations", "location_notes", "users", "loads", "stops", "trips", "invoices",
	"invoice_line_items", "invoice_loads", "invoice_payments", "settlement_statements", "statement_line_items",
	"statement_sub_lines"}

// bulkMode reports whether seeding may skip the per-row foreign-key
// triggers, which are most of the database's work: only as a superuser
// (session_replication_role needs it) and only when no table seeding writes
// has a trigger or rule of its own that replica mode would silently skip too.
func bulkMode(ctx context.Context, db *storage.DB) (bool, error) {
	var ok bool
	err := db.Pool.QueryRow(ctx, `SELECT r.rolsuper AND NOT EXISTS (
			SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1))
		AND NOT EXISTS (SELECT 1 FROM pg_rules WHERE schemaname = 'public' AND tablename = ANY($1))
		FROM pg_roles r WHERE r.rolname = current_user`, seededTables).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("seed: %w", err)
	}
	return ok, nil
}

// deleteTenant removes every row seeding wrote for the tenant, children first.
func deleteTenant(ctx context.Context, db *storage.DB, tid uuid.UUID) error {
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after commit
	for i := len(seededTables) - 1; i > 0; i-- {
		if _, err := tx.Exec(ctx, "DELETE FROM "+seededTables[i]+" WHERE tenant_id = $1", tid); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, "DELETE FROM tenants WHERE id = $1", tid); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
