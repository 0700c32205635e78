package storage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// Reads implements reads.Store (and the batch loaders behind GraphQL's
// dataloaders). Every method reads as its tenant (readTenant) and names tenant_id; every
// relation is fetched with one query per level (WHERE x_id = ANY(...)).
type Reads struct{ DB *DB }

var _ reads.Store = (*Reads)(nil)

// maxUnpaged bounds a list that the caller asked for whole (REST trailers).
const maxUnpaged = domain.MaxWholeList

// keyset describes the sort key of a list: the SQL columns (in ORDER BY
// order) and the Postgres type each cursor part is cast to.
type keyset struct {
	cols  []string
	types []string
}

// window is the paging part of a list query, shared by offset and cursor
// paging: one query builder answers both.
type window struct {
	where string // "" or "AND (cols) > (...)"
	tail  string // ORDER BY ... LIMIT ... [OFFSET ...]
	limit int
}

// params are a statement's bind parameters in the order its text numbers
// them: bind appends one and returns its placeholder ($1, $2, ...), so a
// text built piece by piece numbers its parameters as it goes.
type params []any

func (p *params) bind(v any) string {
	*p = append(*p, v)
	return "$" + strconv.Itoa(len(*p))
}

// window binds the cursor's parts after the parameters p already holds.
func (k keyset) window(w domain.Window, p *params) (window, error) {
	limit := w.Limit
	if limit <= 0 || limit > maxUnpaged {
		limit = maxUnpaged
	}
	out := window{limit: limit}
	order := strings.Join(k.cols, ", ")
	if w.After != "" {
		parts, err := decodeCursor(w.After, k.types)
		if err != nil {
			return out, err
		}
		ph := make([]string, len(parts))
		for i, part := range parts {
			ph[i] = p.bind(part) + "::" + k.types[i]
		}
		out.where = fmt.Sprintf("AND (%s) > (%s)", order, strings.Join(ph, ", "))
		out.tail = fmt.Sprintf("ORDER BY %s LIMIT %d", order, limit+1)
		return out, nil
	}
	out.tail = fmt.Sprintf("ORDER BY %s LIMIT %d OFFSET %d", order, limit+1, max(w.Offset, 0))
	return out, nil
}

// trim cuts the extra row fetched to learn whether more follow.
func trim[T any](rows []T, limit int) ([]T, bool) {
	if len(rows) > limit {
		return rows[:limit], true
	}
	return rows, false
}

// encodeCursor makes an opaque cursor of a row's sort key.
func encodeCursor(parts ...string) string {
	b, _ := json.Marshal(parts)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor and checks each part against its column type,
// so a forged cursor is a client error, never a failing SQL cast.
func decodeCursor(s string, types []string) ([]string, error) {
	bad := &domain.Error{Code: domain.CodeInvalid, Message: "invalid cursor", Fields: map[string][]string{"after": {"after is not a cursor returned by this list"}}}
	if len(s) > domain.MaxCursorLength {
		return nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	var parts []string
	if json.Unmarshal(b, &parts) != nil || len(parts) != len(types) {
		return nil, bad
	}
	for i, p := range parts {
		var err error
		switch types[i] {
		case "date":
			_, err = time.Parse(time.DateOnly, p)
		case "integer":
			_, err = strconv.ParseInt(p, 10, 32)
		case "timestamptz":
			_, err = time.Parse(time.RFC3339Nano, p)
		case "uuid":
			_, err = uuid.Parse(p)
		}
		if err != nil {
			return nil, bad
		}
	}
	return parts, nil
}

// count queues a COUNT(*) over the same FROM/WHERE as the page query; n
// is set by the flush that sends it.
func count(tx *Tx, n *int, from string, args ...any) {
	tx.query("SELECT count(*) "+from, func(r pgx.Rows) error { return r.Scan(n) }, args...)
}

// selectRows queues a query whose rows are appended to *rows, columns
// matched to T's fields by their db tags, by the flush that sends it.
func selectRows[T any](tx *Tx, rows *[]T, query string, args ...any) {
	tx.query(query, func(r pgx.Rows) error {
		v, err := pgx.RowToStructByName[T](r)
		*rows = append(*rows, v)
		return err
	}, args...)
}

// byName is a row callback that reads the row into *dst, columns matched
// to T's fields by name (their db tags, else the field names).
func byName[T any](dst *T) func(pgx.Rows) error {
	return func(r pgx.Rows) (err error) {
		*dst, err = pgx.RowToStructByName[T](r)
		return err
	}
}

// ids collects distinct non-nil ids.
func ids[T any](items []T, get func(T) *uuid.UUID) []uuid.UUID {
	seen := map[uuid.UUID]bool{}
	var out []uuid.UUID
	for _, it := range items {
		if id := get(it); id != nil && *id != uuid.Nil && !seen[*id] {
			seen[*id] = true
			out = append(out, *id)
		}
	}
	return out
}

func (r *Reads) in(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx *Tx) error) error {
	return r.DB.readTenant(ctx, tenant, fn)
}
