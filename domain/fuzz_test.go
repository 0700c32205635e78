package domain

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// FuzzParseDateTime: what the one date-time parser accepts lies in
// [MinTime, MaxTime] and survives a round trip through RFC 3339; what it
// refuses carries a message for the client.
func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2025-01-31T00:00:00Z", "2025-01-31T02:00:00+02:00", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
		"9999-12-31T23:59:59-01:00", "1900-01-01T00:00:00+00:01", "2025-01-31", "2025-01-31T00:00:00", "\x00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseDateTime(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if u := tm.UTC(); u.Before(MinTime) || u.After(MaxTime) {
			t.Fatalf("ParseDateTime(%q) = %v, outside the range", s, tm)
		}
		back, err := ParseDateTime(tm.Format(time.RFC3339Nano))
		if err != nil || !back.Equal(tm) {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

// FuzzCheckText: the text rule passes exactly the valid UTF-8 strings
// without control characters other than tab, LF and CR.
func FuzzCheckText(f *testing.F) {
	for _, s := range []string{"", "ok", "a\x00", "\t\n\r", "\xff", "\u0085", "\u202e", "\uFFFD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		clean := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'
		})
		if err := CheckText(s); (err == nil) != clean {
			t.Fatalf("CheckText(%q) = %v, want clean=%v", s, err, clean)
		}
	})
}

// FuzzIdentifier: the identifier rule and the pattern the documents state
// (with the length bound beside it) accept exactly the same valid UTF-8
// strings.
func FuzzIdentifier(f *testing.F) {
	for _, s := range []string{"LD-1", ".", "..", "...", "a/b", `a\b`, " a", "a ", "a\tb", "\u2028", "x\u00A0", "é"} {
		f.Add(s)
	}
	re := regexp.MustCompile(IdentifierPattern)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		matched := re.MatchString(s) && Length(s) <= MaxLoadNumber
		if why := CheckIdentifier(s); (why == "") != matched {
			t.Fatalf("CheckIdentifier(%q) = %q but the pattern matches: %v", s, why, matched)
		}
	})
}
