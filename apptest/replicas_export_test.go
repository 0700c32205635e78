package apptest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage"
)

// A tenant's export slots are counted on the primary even when the export
// streams from a replica: with both of the tenant's slots held on the
// primary (by other instances' exports), an export routed to the replica
// is refused 429 instead of taking a slot of the replica's own.
func TestExportSlotsCountedOnThePrimary(t *testing.T) {
	t.Parallel()
	e := newReplicaEnv(t)
	srv := e.start(t, time.Minute, nil)
	tn := apptest.NewTenant(t, srv, "slots")
	token := srv.Token(t, tn, domain.ScopeDriverRead)
	e.standby.WaitReplay(30 * time.Second)
	waitHealthy(t, srv, true)
	path := "/api/p/v1/driver-settlement-statements/export?start=2025-01-01&end=2025-01-31"

	// Free slots: the export runs.
	restDo(t, srv.URL, token, http.MethodGet, path, nil, http.StatusOK)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	holder, err := pgx.Connect(ctx, e.c.Primary().URL(""))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	for i := range reads.MaxConcurrentExports {
		if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock($1, hashtext($2))", storage.ExportSlotLock+i, tn.ID.String()); err != nil {
			t.Fatal(err)
		}
	}
	restDo(t, srv.URL, token, http.MethodGet, path, nil, http.StatusTooManyRequests)

	if _, err := holder.Exec(ctx, "SELECT pg_advisory_unlock_all()"); err != nil {
		t.Fatal(err)
	}
	restDo(t, srv.URL, token, http.MethodGet, path, nil, http.StatusOK)
}
