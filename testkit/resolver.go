package testkit

import (
	"context"
	"net/netip"
	"sync/atomic"
)

// Resolver answers every name with one address that the test may change at
// any time, as a DNS server under an attacker's control would (name
// rebinding). Set it before the first lookup.
type Resolver struct{ addr atomic.Value }

// Set makes addr the answer from now on.
func (r *Resolver) Set(addr string) { r.addr.Store(addr) }

// LookupNetIP answers the current address, whatever the name.
func (r *Resolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr(r.addr.Load().(string))}, nil
}
