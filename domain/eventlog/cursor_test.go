package eventlog

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/uuid"
)

var (
	cursorKey    = []byte("0123456789abcdef0123456789abcdef")
	cursorTenant = uuid.MustParse("6f2c1a44-5d0b-4c7e-9a51-0e6f6d2b8a10")
	cursorOther  = uuid.MustParse("0d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5")
)

// TestEventCursors: a cursor opens to its position for its tenant only,
// reads as no position, is the same for the same event, and anything
// altered or unsealed does not open.
func TestEventCursors(t *testing.T) {
	t.Parallel()
	c := NewCursors(cursorKey)
	pos := Position{Xact: 1180, Seq: 4}
	s := c.Seal(cursorTenant, pos)
	if len(s) != EventCursorLength || s != c.Seal(cursorTenant, pos) {
		t.Fatalf("cursor %q (len %d), again %q", s, len(s), c.Seal(cursorTenant, pos))
	}
	if got, ok := c.Open(cursorTenant, s); !ok || got != pos {
		t.Fatalf("Open = %v, %v", got, ok)
	}
	if _, ok := c.Open(cursorOther, s); ok {
		t.Fatal("another tenant opened the cursor")
	}
	if s == c.Seal(cursorOther, pos) {
		t.Fatal("two tenants' cursors of one position are equal")
	}
	if b, _ := base64.RawURLEncoding.DecodeString(s); strings.Contains(string(b), "1180") {
		t.Fatalf("the cursor shows its position: %q", b)
	}
	if _, ok := NewCursors([]byte("fedcba9876543210fedcba9876543210")).Open(cursorTenant, s); ok {
		t.Fatal("another key opened the cursor")
	}
	old := base64.RawURLEncoding.EncodeToString([]byte("ev1:1180.4"))
	for _, bad := range []string{"", old, s[:42], s + "A", strings.ToUpper(s), s[:42] + "B", "!" + s[1:]} {
		if _, ok := c.Open(cursorTenant, bad); ok && bad != s {
			t.Errorf("Open(%q) opened", bad)
		}
	}
	for i := range s {
		b := []byte(s)
		b[i] ^= 0x01
		if _, ok := c.Open(cursorTenant, string(b)); ok {
			t.Errorf("altered at %d: opened", i)
		}
	}
}

// FuzzOpenEventCursor: any string either does not open or is exactly the
// cursor Seal makes for what it opens to; a cursor opens for its tenant
// only.
func FuzzOpenEventCursor(f *testing.F) {
	c := NewCursors(cursorKey)
	f.Add(c.Seal(cursorTenant, Position{Xact: 1180, Seq: 4}), int64(1180), int64(4))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("ev1:1180.4")), int64(0), int64(0))
	f.Add(strings.Repeat("A", EventCursorLength), int64(-1), int64(1<<62))
	f.Add("\x00", int64(1<<40), int64(0))
	f.Fuzz(func(t *testing.T, s string, xact, seq int64) {
		if pos, ok := c.Open(cursorTenant, s); ok {
			if pos.Xact < 0 || pos.Seq < 0 || c.Seal(cursorTenant, pos) != s {
				t.Fatalf("%q opened to %v, which seals otherwise", s, pos)
			}
			if _, ok := c.Open(cursorOther, s); ok {
				t.Fatalf("%q opened for two tenants", s)
			}
		}
		if xact < 0 || seq < 0 {
			return
		}
		pos := Position{Xact: xact, Seq: seq}
		sealed := c.Seal(cursorTenant, pos)
		if got, ok := c.Open(cursorTenant, sealed); !ok || got != pos {
			t.Fatalf("round trip of %v: %v %v", pos, got, ok)
		}
		if _, ok := c.Open(cursorOther, sealed); ok {
			t.Fatalf("%v opened for another tenant", pos)
		}
	})
}
