package seed

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// table buffers rows for one COPY.
type table struct {
	name string
	cols []string
	rows [][]any
}

func newTable(name string, cols ...string) *table { return &table{name: name, cols: cols} }

func (t *table) add(vals ...any) {
	if len(vals) != len(t.cols) {
		panic(fmt.Sprintf("seed: %s row has %d values for %d columns", t.name, len(vals), len(t.cols)))
	}
	for i, v := range vals {
		vals[i] = pgValue(v)
	}
	t.rows = append(t.rows, vals)
}

// pgValue hands pgx UUIDs in its own type: uuid.UUID is a driver.Valuer,
// whose encode path costs a failed attempt (and an error value) per cell.
func pgValue(v any) any {
	switch x := v.(type) {
	case uuid.UUID:
		return pgtype.UUID{Bytes: x, Valid: true}
	case []uuid.UUID:
		out := make([]pgtype.UUID, len(x))
		for i, u := range x {
			out[i] = pgtype.UUID{Bytes: u, Valid: true}
		}
		return out
	}
	return v
}

// batch writes related tables with COPY. Its tables are listed parents first,
// so a flush never inserts a child before the row it references.
type batch struct {
	tx     pgx.Tx
	tables []*table
	limit  int
	counts map[string]int
}

// batchRows bounds the memory a phase holds before it flushes.
const batchRows = 20000

func (s *seeder) batch(tables ...*table) *batch {
	return &batch{tx: s.tx, tables: tables, limit: batchRows, counts: s.res.Counts}
}

// maybeFlush copies the buffered rows once enough have accumulated.
func (b *batch) maybeFlush(ctx context.Context) error {
	n := 0
	for _, t := range b.tables {
		n += len(t.rows)
	}
	if n < b.limit {
		return nil
	}
	return b.flush(ctx)
}

// flush copies every buffered row, parents first.
func (b *batch) flush(ctx context.Context) error {
	for _, t := range b.tables {
		if len(t.rows) == 0 {
			continue
		}
		n, err := b.tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(t.rows))
		if err != nil {
			return fmt.Errorf("seed: copy %s: %w", t.name, err)
		}
		b.counts[t.name] += int(n)
		clear(t.rows)
		t.rows = t.rows[:0]
	}
	return nil
}
