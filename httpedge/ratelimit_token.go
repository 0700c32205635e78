package httpedge

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"net/http"
	"net/netip"
	"strconv"

	"github.com/haulgraph/haulgraph/ratelimit"
)

// TokenLimits are the token endpoint's buckets.
type TokenLimits struct {
	// Address is each remote address's bucket, kept in Addresses (this
	// instance's memory, a MemStore): a made-up client_id or a malformed
	// request costs no database write.
	Address   ratelimit.Limit
	Addresses *ratelimit.Limiter
	// Global is the endpoint's one bucket, shared by every instance.
	Global ratelimit.Limit
	// Client is the bucket of each client_id presented (one of
	// ClientSlots, by the id's hash), shared by every instance: guessing one
	// client's secret is slow from any number of addresses.
	Client ratelimit.Limit
}

// TokenThrottle is the token endpoint's limit (auth.Config.Throttle). Every
// request is charged first to its address and then to the global bucket
// (clientID ""), before its body is judged; a well-formed request is then
// charged to the bucket of the client_id it names, before the client is
// looked up: an existing id, an unknown, a revoked or another tenant's are
// limited alike, so when the limit refuses tells nothing of which exist.
// Ids share ClientSlots buckets by hash, so the rows in PostgreSQL are
// bounded whatever ids are made up. Any failure of a limiter refuses
// (domain.ErrUnavailable): what guards credentials fails closed.
func (rl *RateLimits) TokenThrottle(tl TokenLimits) func(w http.ResponseWriter, r *http.Request, clientID string) error {
	return func(w http.ResponseWriter, r *http.Request, clientID string) error {
		if clientID == "" {
			return rl.AdmitOrRefuse(w, r,
				Check{Key: "token:addr:" + addressKey(ClientHost(r)), Limit: tl.Address, Limiter: tl.Addresses},
				Check{Key: "token:global", Limit: tl.Global})
		}
		// This bucket's headers show only when it refuses, so that an
		// admitted request's headers are the caller's buckets' whatever
		// client_id it names.
		own := headersOnly{}
		err := rl.AdmitOrRefuse(own, r, Check{Key: clientSlotKey(clientID), Limit: tl.Client})
		if err != nil {
			maps.Copy(w.Header(), http.Header(own))
		}
		return err
	}
}

// ClientSlots is how many client buckets the token endpoint keeps at most:
// a client_id is charged to the slot its hash names. Two clients sharing a
// slot share 5 token requests a second (minting is rare); an attacker who
// empties a slot could empty the victim's own bucket as well.
const ClientSlots = 1 << 16

// clientSlotKey is the bucket key of a client_id.
func clientSlotKey(clientID string) string {
	h := sha256.Sum256([]byte(clientID))
	return "token:client:" + strconv.FormatUint(uint64(binary.BigEndian.Uint32(h[:4])%ClientSlots), 10)
}

// headersOnly is a ResponseWriter that keeps the headers set on it.
type headersOnly http.Header

func (h headersOnly) Header() http.Header       { return http.Header(h) }
func (headersOnly) Write(b []byte) (int, error) { return len(b), nil }
func (headersOnly) WriteHeader(int)             {}

// addressKey is the bucket of a remote address: an IPv6 address by its /64,
// the block one subscriber is given, so that one subscriber's 2^64
// addresses share a bucket.
func addressKey(host string) string {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}
