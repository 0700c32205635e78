package benchkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"

	"github.com/jackc/pgx/v5"
)

// TempDatabase creates an empty database next to DATABASE_URL's and
// returns its URL and a function dropping it.
func TempDatabase(ctx context.Context) (string, func(), error) {
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		return "", nil, errors.New("DATABASE_URL is not set (run through ./scripts/with-pg.sh)")
	}
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "hg_bench_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		return "", nil, err
	}
	admin.Close(ctx)
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	}, nil
}
