package httpedge

import (
	"strconv"
	"testing"
)

// An IPv6 caller is bucketed by its /64 (one subscriber's block); IPv4 and
// IPv4-mapped addresses by the address.
func TestAddressKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"192.0.2.7":            "192.0.2.7",
		"::ffff:192.0.2.7":     "192.0.2.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64",
		"fe80::1%eth0":         "fe80::/64",
		"not-an-address":       "not-an-address",
		"2001:db8:1:3:3:4:5:6": "2001:db8:1:3::/64",
	} {
		if got := addressKey(in); got != want {
			t.Errorf("addressKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// However many client_ids are made up, they name at most ClientSlots
// buckets, so the rows a guesser writes into PostgreSQL are bounded.
func TestClientSlotKeysBounded(t *testing.T) {
	t.Parallel()
	keys := map[string]bool{}
	for i := range 4 * ClientSlots {
		keys[clientSlotKey("hgc_"+strconv.Itoa(i))] = true
	}
	if len(keys) > ClientSlots || len(keys) < ClientSlots*9/10 {
		t.Fatalf("%d ids named %d buckets, want at most %d (and most of them)", 4*ClientSlots, len(keys), ClientSlots)
	}
}
