package rest

import (
	"net/url"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
)

func TestCheckQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw, field string // field "": accepted
	}{
		{"", ""},
		{"format=csv&start=2025-01-01", ""},
		{"format=csv&FORMAT=ndjson", "FORMAT"},
		{"format=csv&format=csv", "format"},
		{"start=a&Start=b", "Start"},
		{"driverId=a&DriverID=b", "DriverID"},
		{"ſtart=a&start=b", "start"}, // long s matches s, as strings.EqualFold has it
		{"type=a&type=b&TYPE=c", ""},
		{"type=a&limit=1&Limit=2", "Limit"},
		{"a=%zz", "query"},
		{"%zz=1", "query"},
		{"a;b=1", "query"},
		{"a=1&&b=2&", ""},
		{"a", ""},
		{"a&A", "A"},
	} {
		err := checkQuery(c.raw, []string{"type"})
		if c.field == "" {
			if err != nil {
				t.Errorf("%q: %v", c.raw, err)
			}
			continue
		}
		if de, ok := err.(*domain.Error); !ok || de.Code != domain.CodeInvalid || len(de.Fields[c.field]) == 0 {
			t.Errorf("%q: %v, want a 400 naming %s", c.raw, err, c.field)
		}
	}
}

// FuzzCheckQuery: a query checkQuery accepts is read one way: each name
// (folded as the lookups match it) has one value, unless repeatable, and
// nothing url.ParseQuery would drop silently.
func FuzzCheckQuery(f *testing.F) {
	for _, s := range []string{"format=csv&FORMAT=ndjson", "a=1&b=2", "type=x&Type=y", "%zz", "a;b", "ſ=1&S=2", "=&=", "k=1&\u212a=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkQuery(raw, []string{"type"}) != nil {
			return
		}
		q, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatalf("accepted %q, which url.ParseQuery refuses: %v", raw, err)
		}
		for name := range q {
			n := 0
			for k, vs := range q {
				if strings.EqualFold(k, name) {
					n += len(vs)
				}
			}
			if n > 1 && !strings.EqualFold(name, "type") {
				t.Fatalf("accepted %q: %s has %d values", raw, name, n)
			}
		}
	})
}
