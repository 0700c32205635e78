package storage_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// barrierStore holds each writer's first transaction open, its events
// written, until every writer has got that far: with a lock between writers
// the barrier is never reached.
type barrierStore struct {
	*storage.LoadWrites
	arrive func() error
	once   sync.Map // writer id → struct{}
}

type writerKey struct{}

func (b *barrierStore) WriteLoads(ctx context.Context, tenant uuid.UUID, fn func(context.Context, loads.WriteTx) error) error {
	return b.LoadWrites.WriteLoads(ctx, tenant, func(ctx context.Context, tx loads.WriteTx) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		if _, loaded := b.once.LoadOrStore(ctx.Value(writerKey{}), struct{}{}); !loaded {
			return b.arrive()
		}
		return nil
	})
}

// TestOutboxConcurrentWritersNoSkips runs 16 writers at once (each create +
// two status changes per load) while a tailing reader (Outbox.After) and a
// durable consumer (Outbox.Consume) read: the writers hold uncommitted
// events at the same time, and neither reader skips or repeats an event or
// sees one load's events out of order.
func TestOutboxConcurrentWritersNoSkips(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	f := newWriteFixture(t, db)
	const writers, loadsEach = 16, 5
	const want = writers * loadsEach * 5 // create: 1 event; each status change: 2

	var mu sync.Mutex
	arrived, all := 0, make(chan struct{})
	barrier, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	store := &barrierStore{LoadWrites: &storage.LoadWrites{DB: db}, arrive: func() error {
		mu.Lock()
		arrived++
		if arrived == writers {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return nil
		case <-barrier.Done():
			return fmt.Errorf("writers waited on each other: %d of %d had uncommitted events at once", arrived, writers)
		}
	}}
	svc := &loads.Writes{Store: store}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	outbox := &storage.Outbox{DB: db}
	tail := make(chan []storage.OutboxEvent, 1)
	durable := make(chan []storage.OutboxEvent, 1)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { // a live tail, as the relay reads
		defer readers.Done()
		var got []storage.OutboxEvent
		var pos eventlog.Position
		for len(got) < want && ctx.Err() == nil {
			evs, _, err := outbox.After(ctx, pos, 7)
			if err != nil {
				t.Error(err)
				break
			}
			for _, e := range evs {
				got, pos = append(got, e), e.Pos()
			}
			if len(evs) == 0 {
				time.Sleep(time.Millisecond) // the relay's poll
			}
		}
		tail <- got
	}()
	go func() { // a durable consumer, as webhook dispatch reads
		defer readers.Done()
		var got []storage.OutboxEvent
		for len(got) < want && ctx.Err() == nil {
			n, err := outbox.Consume(ctx, "concurrency", 11, func(_ context.Context, _ *storage.Tx, evs []storage.OutboxEvent) error {
				got = append(got, evs...)
				return nil
			})
			if err != nil {
				t.Error(err)
				break
			}
			if n == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		durable <- got
	}()

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wctx := context.WithValue(f.ctx, writerKey{}, w)
			rate := loads.MoneyInput{Amount: decimal.RequireFromString("100")}
			for i := range loadsEach {
				n := fmt.Sprintf("W%02d-%d", w, i)
				_, err := svc.CreateLoad(wctx, loads.Input{LoadNumber: n, SubsidiaryID: f.subsidiary.String(), Rate: &rate,
					Stops: []loads.StopInput{{Type: "Pickup", Name: "A"}}})
				for _, s := range []string{"Covered", "Dispatched"} {
					if err == nil {
						_, err = svc.ChangeLoadStatus(wctx, n, s)
					}
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		cancel()
		readers.Wait()
		t.Fatal(err)
	}
	readers.Wait()

	var total int
	if err := db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM events").Scan(&total); err != nil || total != want {
		t.Fatalf("events written: %d (%v), want %d", total, err, want)
	}
	for name, got := range map[string][]storage.OutboxEvent{"tail": <-tail, "durable": <-durable} {
		if len(got) != want {
			t.Fatalf("%s reader got %d of %d events", name, len(got), want)
		}
		seen := map[string]bool{}
		last := map[uuid.UUID]int64{}
		for i, e := range got {
			if seen[e.ID] {
				t.Fatalf("%s reader: %s twice", name, e.ID)
			}
			seen[e.ID] = true
			if i > 0 && !got[i-1].Pos().Before(e.Pos()) {
				t.Fatalf("%s reader: position went back at %d", name, i)
			}
			// One load's events keep their write order.
			if e.Seq < last[e.SubjectID] {
				t.Fatalf("%s reader: load %s out of order", name, e.SubjectID)
			}
			last[e.SubjectID] = e.Seq
		}
	}
}
