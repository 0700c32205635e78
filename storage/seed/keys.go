package seed

import (
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// namespace makes every seeded id a name-based UUID (v5): the same tenant,
// kind and index always give the same id, and two tenants never collide.
var namespace = uuid.MustParse("6f1d3c1e-52a4-4f7b-9a43-8d1f0e6b2c57")

// epoch anchors every seeded timestamp; time.Now is never consulted.
var epoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// ids derives the ids of one tenant's rows.
type ids struct{ slug string }

func (k ids) of(kind string, i int) uuid.UUID {
	b := make([]byte, 0, len(k.slug)+len(kind)+24)
	b = append(b, k.slug...)
	b = append(b, '/')
	b = append(b, kind...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(i), 10)
	return uuid.NewSHA1(namespace, b)
}

// tenantID is the id of the tenant row itself.
func tenantID(slug string) uuid.UUID { return uuid.NewSHA1(namespace, []byte("tenant/"+slug)) }

// kindSeed turns a kind name into a PRNG stream selector.
func kindSeed(kind string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(kind))
	return h.Sum64()
}

// rows hands out a PRNG positioned at the start of one row's stream, so that a
// row's content depends only on (kind, index), never on generation order.
type rows struct {
	pcg  rand.PCG
	r    *rand.Rand
	seed uint64
}

func newRows(kind string) *rows {
	x := &rows{seed: kindSeed(kind)}
	x.r = rand.New(&x.pcg)
	return x
}

func (x *rows) at(i int) *rand.Rand {
	x.pcg.Seed(x.seed, uint64(i))
	return x.r
}

// pick is a pure function choosing one of n for (kind, i): cross references
// (a load's customer, a trip's driver) are computed, not stored.
func pick(kind string, i, n int) int {
	z := kindSeed(kind) ^ (uint64(i) * 0x9e3779b97f4a7c15)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}

// oneOf picks a random element.
func oneOf[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// cents is an exact money amount in hundredths.
type cents int64

// num encodes an amount for numeric columns without touching a float.
func (c cents) num() pgtype.Numeric {
	return pgtype.Numeric{Int: big.NewInt(int64(c)), Exp: -2, Valid: true}
}

// optNum is a nullable numeric: nil when absent.
func optNum(c cents, present bool) any {
	if !present {
		return nil
	}
	return c.num()
}

// decimalOf encodes v×10^exp exactly (rate units and rates).
func decimalOf(v int64, exp int32) pgtype.Numeric {
	return pgtype.Numeric{Int: big.NewInt(v), Exp: exp, Valid: true}
}

// between returns a uniformly random amount in [lo, hi] cents.
func between(r *rand.Rand, lo, hi cents) cents { return lo + cents(r.Int64N(int64(hi-lo)+1)) }

// opt returns a nullable value: nil when !ok.
func opt[T any](v T, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// day returns midnight UTC of the given date.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
