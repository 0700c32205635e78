package storage

import (
	"context"
	"testing"
)

// The reads of one read-only request keep to the database its first read
// chose (replicas are otherwise taken in turn): a request never reads older
// data after newer, which the response cache relies on (it reads the
// versions of the data first).
func TestReadOnlyRequestKeepsToOneReplica(t *testing.T) {
	t.Parallel()
	primary := &DB{}
	rs := &Replicas{primary: primary, nodes: []*replica{{db: &DB{}}, {db: &DB{}}}}
	for _, r := range rs.nodes {
		r.healthy.Store(true)
	}
	primary.replicas = rs
	first, second := ReadOnly(context.Background()), ReadOnly(context.Background())
	a := primary.reader(first)
	if a == primary {
		t.Fatal("a read-only request read the primary with healthy replicas")
	}
	for range 4 {
		if got := primary.reader(first); got != a {
			t.Fatal("a request's reads went to two databases")
		}
	}
	if primary.reader(second) == a {
		t.Error("the next request took the same replica: not in turn")
	}
	if primary.reader(context.Background()) != primary {
		t.Error("work not marked read-only went to a replica")
	}
}
