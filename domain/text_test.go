package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/domain"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "tab\there", "two\nlines", "crlf\r\n", "Zürich ✓", "\uFFFD literal replacement"} {
		if err := domain.CheckText(s); err != nil {
			t.Errorf("CheckText(%q) = %v, want nil", s, err)
		}
	}
	for s, off := range map[string]int{"\x00": 0, "a\x00b": 1, "bell\a": 4, "esc\x1b[0m": 3, "del\x7f": 3, "c1\u0085": 2, "bad\xffutf8": 3, "\xc3": 0} {
		err := domain.CheckText(s)
		var te *domain.TextError
		if !errors.As(err, &te) || te.Offset != off {
			t.Errorf("CheckText(%q) = %v, want a TextError at byte %d", s, err, off)
		}
	}
	err := domain.InvalidText("Keyword", "a\x00")
	if domain.CodeOf(err) != domain.CodeInvalid || err.(*domain.Error).Fields["Keyword"] == nil {
		t.Fatalf("InvalidText = %#v, want a BAD_USER_INPUT naming Keyword", err)
	}
}

func TestParseDateTime(t *testing.T) {
	t.Parallel()
	ok := map[string]time.Time{
		"2025-01-31T00:00:00Z":           time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC),
		"2025-01-31T02:00:00+02:00":      time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC),
		"1900-01-01T00:00:00Z":           domain.MinTime,
		"9999-12-31T23:59:59.999999999Z": domain.MaxTime,
	}
	for s, want := range ok {
		got, err := domain.ParseDateTime(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseDateTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "2025-01-31", "2025-01-31T00:00:00", "next week", "0000-01-01T00:00:00Z",
		"1899-12-31T23:59:59Z", "1900-01-01T00:30:00+01:00", "2025-13-01T00:00:00Z", "2025-01-31T00:00:00Z\x00"} {
		if _, err := domain.ParseDateTime(s); err == nil {
			t.Errorf("ParseDateTime(%q) accepted", s)
		}
	}
	if _, err := domain.ParseDate("0000-01-01"); err == nil {
		t.Error("ParseDate accepted year 0")
	}
	if d, err := domain.ParseDate("2025-02-28"); err != nil || d.String() != "2025-02-28" {
		t.Errorf("ParseDate(2025-02-28) = %v, %v", d, err)
	}
}

func TestWindowPaging(t *testing.T) {
	t.Parallel()
	two, five := 2, 5
	w, err := domain.PageWindow(&two, &five, nil, nil)
	if n, ok := w.PageNumber(); err != nil || !ok || n != 2 || w.Limit != 5 || !w.HasPrevious() {
		t.Fatalf("page 2 of 5: %+v %v", w, err)
	}
	w, _ = domain.PageWindow(nil, nil, nil, nil)
	if _, ok := w.PageNumber(); ok || w.Limit != domain.DefaultPageSize || w.HasPrevious() {
		t.Fatalf("default window: %+v", w)
	}
	cursor := "c"
	w, _ = domain.CursorWindow(&five, &cursor)
	if _, ok := w.PageNumber(); ok || !w.HasPrevious() {
		t.Fatalf("keyset window after a cursor: %+v", w)
	}
	_, err = domain.CursorWindow(new(int), nil)
	if e, ok := err.(*domain.Error); !ok || e.Fields["first"][0] != "first must be between 1 and 100" {
		t.Fatalf("message from MaxPageSize: %v", err)
	}
}
