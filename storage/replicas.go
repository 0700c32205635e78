package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/domain"
)

// DefaultReplicaMaxLag is HAULGRAPH_REPLICA_MAX_LAG's default: a replica
// further behind the primary is skipped until it catches up.
const DefaultReplicaMaxLag = 5 * time.Second

// ReplicaCatchUpWait bounds how long a read waits for a replica to replay
// its client's last write before it goes to the primary instead.
const ReplicaCatchUpWait = 200 * time.Millisecond

type readOnlyKey struct{}

// readOnly is one read-only request's state: its client's last write
// position, looked up once however many reads the request makes, and the
// database its first read chose, which its later reads use too: a request
// never reads older data after newer (the response cache reads the
// versions of the data first, then the data, and relies on it).
type readOnly struct {
	once   sync.Once
	need   int64
	err    error
	pinned atomic.Pointer[DB]
}

// ReadOnly marks ctx as read-only work (REST reads, searches and exports,
// GraphQL queries, the events API): the tenant reads under it may be served
// by a healthy replica. Writes under it fail there, so only what never
// writes is marked. Mark once per request.
func ReadOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, &readOnly{})
}

func readOnlyFrom(ctx context.Context) *readOnly {
	r, _ := ctx.Value(readOnlyKey{}).(*readOnly)
	return r
}

func isReadOnly(ctx context.Context) bool { return readOnlyFrom(ctx) != nil }

// Replicas routes read-only tenant work to streaming standbys. A health
// check (Run) measures each one's lag by LSN against the primary; a replica
// that lags past maxLag or does not answer is skipped until it recovers, and
// with none healthy the primary serves the reads.
//
// Read-your-writes: after an API client's write commits, the primary's WAL
// insert position is recorded for that client in client_write_lsns (shared
// by every instance); that client's later reads take a replica only once it
// has replayed that far (waiting at most ReplicaCatchUpWait), else the
// primary.
type Replicas struct {
	primary  *DB
	nodes    []*replica
	maxLag   time.Duration
	interval time.Duration
	next     atomic.Uint32
	log      *slog.Logger

	mu      sync.Mutex
	samples []lsnSample // the primary's LSN over the last maxLag or so
}

type replica struct {
	db       *DB
	name     string // host and database, never credentials
	healthy  atomic.Bool
	replayed atomic.Int64 // pg_last_wal_replay_lsn() at the last check
	lag      atomic.Int64 // nanoseconds, at the last check
}

type lsnSample struct {
	at  time.Time
	lsn int64
}

// OpenReplicas connects (lazily: a replica down at start-up is only
// skipped) to the replicas at urls and routes db's read-only work to them;
// Run must run for any to be used. No URL: nil, and everything stays on db.
func (db *DB) OpenReplicas(ctx context.Context, urls []string, maxLag time.Duration, log *slog.Logger, opts ...Option) (*Replicas, error) {
	if len(urls) == 0 {
		return nil, nil
	}
	if maxLag <= 0 {
		maxLag = DefaultReplicaMaxLag
	}
	rs := &Replicas{primary: db, maxLag: maxLag, interval: min(max(maxLag/5, 50*time.Millisecond), time.Second), log: log}
	for _, u := range urls {
		r, err := open(ctx, u, false, opts...)
		if err != nil {
			rs.close()
			return nil, fmt.Errorf("replica: %w", err)
		}
		rs.nodes = append(rs.nodes, &replica{db: r, name: safeName(u)})
	}
	db.replicas = rs
	return rs, nil
}

func safeName(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "replica"
	}
	host := u.Host
	if host == "" {
		host = u.Query().Get("host")
	}
	return host + u.Path
}

func (rs *Replicas) close() {
	for _, r := range rs.nodes {
		r.db.Close()
	}
}

// Healthy reports which replicas the last check found usable, in the order
// of the URLs.
func (rs *Replicas) Healthy() []bool {
	out := make([]bool, len(rs.nodes))
	for i, r := range rs.nodes {
		out[i] = r.healthy.Load()
	}
	return out
}

// Run checks the replicas until ctx ends (the primary's Close closes their
// pools).
func (rs *Replicas) Run(ctx context.Context) error {
	tick := time.NewTicker(rs.interval)
	defer tick.Stop()
	lastPrune := time.Now()
	for {
		rs.check(ctx)
		if time.Since(lastPrune) > time.Minute {
			rs.prune(ctx)
			lastPrune = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// check samples the primary's LSN, then each replica's replay LSN. A
// replica's lag is the age of the newest primary sample it has replayed
// (zero when it has replayed the current one): a clock-free measure, right
// on an idle primary too, at the resolution of the check interval.
func (rs *Replicas) check(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, rs.interval+time.Second)
	defer cancel()
	now := time.Now()
	var current int64
	if _, err := rs.primary.systemRow(cctx, "SELECT (pg_current_wal_lsn() - '0/0')::bigint", []any{&current}); err != nil {
		// Without the primary's position no lag is known: keep the last
		// verdicts (a primary outage is the failover's business).
		return
	}
	rs.mu.Lock()
	rs.samples = append(rs.samples, lsnSample{now, current})
	keep := now.Add(-rs.maxLag - 2*rs.interval)
	for len(rs.samples) > 1 && rs.samples[1].at.Before(keep) {
		rs.samples = rs.samples[1:]
	}
	samples := append([]lsnSample(nil), rs.samples...)
	rs.mu.Unlock()

	var wg sync.WaitGroup
	for _, r := range rs.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs.checkOne(cctx, r, now, samples)
		}()
	}
	wg.Wait()
}

func (rs *Replicas) checkOne(ctx context.Context, r *replica, now time.Time, samples []lsnSample) {
	var replayed *int64
	_, err := r.db.systemRow(ctx, "SELECT (pg_last_wal_replay_lsn() - '0/0')::bigint", []any{&replayed})
	if err == nil && replayed == nil {
		err = errors.New("not a standby")
	}
	if err != nil {
		if r.healthy.Swap(false) && rs.log != nil {
			rs.log.Warn("replica unusable, reads go elsewhere", "replica", r.name, "err", err)
		}
		return
	}
	r.replayed.Store(*replayed)
	lag := now.Sub(samples[0].at) // behind every sample kept: at least this
	for i := len(samples) - 1; i >= 0; i-- {
		if samples[i].lsn <= *replayed {
			lag = now.Sub(samples[i].at)
			break
		}
	}
	r.lag.Store(int64(lag))
	ok := lag <= rs.maxLag
	// With only young samples a replica behind all of them has an unknown
	// lag: it waits until the samples cover maxLag.
	if lag == now.Sub(samples[0].at) && samples[0].lsn > *replayed && now.Sub(samples[0].at) < rs.maxLag {
		ok = r.healthy.Load()
	}
	if was := r.healthy.Swap(ok); was != ok && rs.log != nil {
		if ok {
			rs.log.Info("replica usable", "replica", r.name, "lag", lag)
		} else {
			rs.log.Warn("replica lags past the bound, reads go elsewhere", "replica", r.name, "lag", lag, "max", rs.maxLag)
		}
	}
}

// prune forgets the recorded writes every healthy replica has replayed
// anyway: older than the lag bound, with a wide margin.
func (rs *Replicas) prune(ctx context.Context) {
	err := rs.primary.systemExec(ctx, "DELETE FROM client_write_lsns WHERE written_at < now() - make_interval(secs => $1)",
		(10 * max(rs.maxLag, time.Minute)).Seconds())
	if err != nil && rs.log != nil && ctx.Err() == nil {
		rs.log.Warn("replicas: prune recorded writes", "err", err)
	}
}

// reader is the database the tenant read idioms use for ctx: a healthy
// replica for read-only work that has caught up with its client's last
// write, else db itself.
func (db *DB) reader(ctx context.Context) *DB {
	rs := db.replicas
	if rs == nil || !isReadOnly(ctx) {
		return db
	}
	ro := readOnlyFrom(ctx)
	if p := ro.pinned.Load(); p != nil {
		return p
	}
	ro.pinned.CompareAndSwap(nil, rs.choose(ctx))
	return ro.pinned.Load()
}

func (rs *Replicas) choose(ctx context.Context) *DB {
	n := len(rs.nodes)
	start := int(rs.next.Add(1))
	var first *replica
	for i := range n {
		if r := rs.nodes[(start+i)%n]; r.healthy.Load() {
			first = r
			break
		}
	}
	if first == nil {
		return rs.primary
	}
	ro := readOnlyFrom(ctx)
	ro.once.Do(func() { ro.need, ro.err = rs.lastWrite(ctx) })
	need, err := ro.need, ro.err
	if err != nil {
		return rs.primary
	}
	if need == 0 {
		return first.db
	}
	for i := range n {
		if r := rs.nodes[(start+i)%n]; r.healthy.Load() && r.replayed.Load() >= need {
			return r.db
		}
	}
	if first.waitReplay(ctx, need) {
		return first.db
	}
	return rs.primary
}

// unreachable reports whether a read on a replica failed before anything
// was sent (down, restarting: no connection, or one that was already dead),
// so that it may run again, whole, on the primary.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err)
}

// lastWrite is the WAL position the context's client must see (0: none
// recorded).
func (rs *Replicas) lastWrite(ctx context.Context) (int64, error) {
	p := domain.PrincipalFrom(ctx)
	if p == nil || p.ClientID == "" {
		return 0, nil
	}
	var lsn int64
	found, err := rs.primary.systemRow(ctx, "SELECT (lsn - '0/0')::bigint FROM client_write_lsns WHERE client_id = $1", []any{&lsn}, p.ClientID)
	if err == nil && !found {
		return 0, nil
	}
	return lsn, err
}

// waitReplay polls the replica until it has replayed need, for at most
// ReplicaCatchUpWait.
func (r *replica) waitReplay(ctx context.Context, need int64) bool {
	ctx, cancel := context.WithTimeout(ctx, ReplicaCatchUpWait)
	defer cancel()
	for {
		var reached *bool
		_, err := r.db.systemRow(ctx, "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", []any{&reached}, lsnText(need))
		if err == nil && reached != nil && *reached {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// noteWrite records, after a tenant transaction of an API client committed
// outside read-only work, the primary's WAL position for that client, so
// that its next reads on any instance wait for a replica to reach it. A
// failure leaves the write in place and only loses that guarantee (logged).
func (db *DB) noteWrite(ctx context.Context) {
	rs := db.replicas
	if rs == nil || isReadOnly(ctx) {
		return
	}
	p := domain.PrincipalFrom(ctx)
	if p == nil || p.ClientID == "" {
		return
	}
	err := db.systemExec(context.WithoutCancel(ctx), `INSERT INTO client_write_lsns (client_id, lsn, written_at)
		VALUES ($1, pg_current_wal_insert_lsn(), now())
		ON CONFLICT (client_id) DO UPDATE SET lsn = greatest(client_write_lsns.lsn, excluded.lsn), written_at = excluded.written_at`, p.ClientID)
	if err != nil && rs.log != nil {
		rs.log.WarnContext(ctx, "replicas: record a client's write", "err", err)
	}
}

func lsnText(lsn int64) string { return fmt.Sprintf("%X/%X", uint64(lsn)>>32, uint64(lsn)&0xffffffff) }

// systemRow runs one statement with the owner's rights on db (the primary or
// a replica) and scans its row into dest; found is false without one.
func (db *DB) systemRow(ctx context.Context, sql string, dest []any, args ...any) (found bool, err error) {
	err = db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		found, err = tx.queryRow(ctx, sql, dest, args...)
		return err
	})
	return found, err
}

// systemExec runs one statement without rows with the owner's rights on db.
func (db *DB) systemExec(ctx context.Context, sql string, args ...any) error {
	return db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.exec(sql, args...)
		return nil
	})
}
