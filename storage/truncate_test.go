package storage

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateKeepsWholeCharacters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"},   // é is 2 bytes: cutting at 2 would split it
		{"a€b", 3, "a"},  // € is 3 bytes
		{"a€b", 4, "a€"}, // a whole € fits
		{"😀😀", 5, "😀"},   // 4-byte runes
		{"😀", 3, ""},     // not even one rune fits
		{strings.Repeat("é", 600), 1000, strings.Repeat("é", 500)},
	} {
		got := truncate(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) || len(got) > c.n {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
