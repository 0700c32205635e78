package jsonkey

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRepeated(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"CLIENT_ID":"x","client_id":"y"}`, "client_id"},
		{`{"client_secret":"x","client_ſecret":"y"}`, "client_ſecret"},
		{`{"k":1,"K":2}`, "K"}, // Kelvin sign folds to k
		{`{"a":{"b":1},"c":{"b":2}}`, ""},
		{`{"a":{"b":1,"B":2}}`, "a.B"},
		{`{"a":[{"x":1},{"x":1,"X":2}]}`, "a[1].X"},
		{`{"a":[[1,2],{"y":{}, "Y":[]}]}`, "a[1].Y"},
		{`[{"a":1},{"a":2}]`, ""},
		{`[{"a":1},{"a":2,"A":3}]`, "[1].A"},
		{`{"a":"{\"a\":1}","b":1}`, ""},
		{`{"a":1}{"a":1,"A":2}`, ""}, // trailing data is the decoder's to refuse
		{`{"a":1,`, ""},
		{`"x"`, ""},
		{`{"a":null,"b":true,"c":1.5e3,"A":0}`, "A"},
		{`{"":0,"":1}`, `""`},
		{`{"":{"x":0,"X":1}}`, `"".X`},
	} {
		got, ok := Repeated([]byte(c.in))
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Repeated(%s) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

func TestRepeatedDeep(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", maxDepth+10) + strings.Repeat("]", maxDepth+10)
	if _, ok := Repeated([]byte(deep)); ok {
		t.Fatal("a repeat in an array nest")
	}
}

// FuzzRepeated: any input, no panic, a reported repeat has a path, and a
// valid document whose decoded objects hold two keys folding alike (a
// repeat in another spelling) is reported.
func FuzzRepeated(f *testing.F) {
	for _, s := range []string{`{"a":1,"A":2}`, `{"a":[{"b":1,"B":1}]}`, `[]`, `{"ſ":1,"s":2}`, `{"a":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, ok := Repeated([]byte(s))
		if ok && path == "" {
			t.Fatalf("repeat without a path in %q", s)
		}
		var v any
		if ok || json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		if foldsAlike(v) {
			t.Fatalf("%q repeats a key in another spelling, not reported", s)
		}
	})
}

func foldsAlike(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		seen := map[string]bool{}
		for k, e := range v {
			if seen[Fold(k)] || foldsAlike(e) {
				return true
			}
			seen[Fold(k)] = true
		}
	case []any:
		for _, e := range v {
			if foldsAlike(e) {
				return true
			}
		}
	}
	return false
}

// FuzzFold: Fold agrees with strings.EqualFold, encoding/json's matching.
func FuzzFold(f *testing.F) {
	f.Add("client_secret", "CLIENT_ſECRET")
	f.Add("k", "K")
	f.Fuzz(func(t *testing.T, a, b string) {
		if (Fold(a) == Fold(b)) != strings.EqualFold(a, b) {
			t.Fatalf("Fold(%q)=%q Fold(%q)=%q, EqualFold %v", a, Fold(a), b, Fold(b), strings.EqualFold(a, b))
		}
	})
}
