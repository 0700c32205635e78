package webhooksig

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

// FuzzParse: any header either parses into a timestamp and at least one
// signature or is refused with an error; it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"t=1,v1=ab", "t=1,v1=ab,v0=cd", "", "t=", "v1=x", "t=1", "t=1,,v1=a", "t=-9223372036854775808,v0=", "t=1,x=y,v1=a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		p, err := Parse(header)
		if err == nil && len(p.V1)+len(p.V0) == 0 {
			t.Fatalf("Parse(%q) accepted a header without signatures", header)
		}
	})
}

// FuzzVerify: a header this package built verifies exactly when its
// timestamp lies within the tolerance of the clock, and a changed body
// never verifies.
func FuzzVerify(f *testing.F) {
	f.Add(int64(1767225600), []byte(`{"id":"e-0"}`))
	f.Add(int64(1767225600+301), []byte(`{}`))
	f.Add(int64(-9223372036854775808), []byte(``))
	f.Add(int64(9223372036854775807), []byte(`x`))
	f.Add(int64(100000000000), []byte(`far future`))
	const secret = "whsec_test"
	now := time.Unix(1767225600, 0)
	f.Fuzz(func(t *testing.T, ts int64, body []byte) {
		h := Header(secret, "", ts, body)
		err := VerifyAt(body, h, secret, DefaultTolerance, now)
		within := ts >= now.Unix()-int64(DefaultTolerance/time.Second) && ts <= now.Unix()+int64(DefaultTolerance/time.Second)
		if within && err != nil {
			t.Fatalf("t=%d within tolerance refused: %v", ts, err)
		}
		if !within && !errors.Is(err, ErrTimestamp) {
			t.Fatalf("t=%d (%s) outside tolerance: err %v", ts, strconv.FormatInt(ts-now.Unix(), 10), err)
		}
		if within {
			if err := VerifyAt(append(body, 'x'), h, secret, DefaultTolerance, now); !errors.Is(err, ErrNoMatch) {
				t.Fatalf("a changed body verified: %v", err)
			}
		}
	})
}
