package storage

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TenantBatchOn runs queries (each answering one text column) as one tenant
// batch on conn, exactly as the hot reads do, and returns each query's rows.
func TenantBatchOn(ctx context.Context, conn *pgxpool.Conn, tenant uuid.UUID, queries ...string) ([][]string, error) {
	t := &Tx{conn: conn, tenant: tenant}
	t.start()
	out := make([][]string, len(queries))
	for i, q := range queries {
		t.query(q, func(r pgx.Rows) error {
			var s string
			err := r.Scan(&s)
			out[i] = append(out[i], s)
			return err
		})
	}
	return out, t.flush(ctx)
}
