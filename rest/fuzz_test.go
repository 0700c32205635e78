package rest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/haulgraph/haulgraph/domain"
)

// FuzzDecodeBodies: every REST body decoder answers any bytes either with
// a decoded body whose strings pass the text rule and whose conversion to
// domain input does not panic, or with a client error (400, 413): never an
// internal one.
func FuzzDecodeBodies(f *testing.F) {
	for _, s := range []string{`{"Page":0,"PageSize":10,"Keyword":"a"}`, `{"Keyword":"\u0000"}`, `{"StatementDateRange":{"Start":"0000-01-01T00:00:00Z","End":null}}`,
		`{"LocationIds":["x"],"Status":["Active"]}`, `[]`, `null`, `{"Page":1e400}`, `{} {}`, `{"Keyw`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, dst := range []func() (any, func() error){
			func() (any, func() error) {
				var b statementSearchBody
				return &b, func() error { _, err := b.input(); return err }
			},
			func() (any, func() error) {
				var b locationSearchBody
				return &b, func() error { _, err := b.input(); return err }
			},
			func() (any, func() error) { var b userSearchBody; return &b, func() error { return nil } },
		} {
			v, convert := dst()
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			err := decodeJSON(httptest.NewRecorder(), r, v)
			if err == nil {
				var val domain.Validation
				checkText(&val, reflect.ValueOf(v), "")
				if val.Err() != nil {
					t.Fatalf("decoded %q with text the rule refuses", body)
				}
				err = convert()
			}
			if err != nil && !isClientError(err) {
				t.Fatalf("%q: %v is not a client error", body, err)
			}
		}
	})
}

func isClientError(err error) bool {
	var de *domain.Error
	return errors.As(err, &de) && (de.Code == domain.CodeInvalid || de.Code == domain.CodeTooLarge)
}

// FuzzParseVersion: exactly docs/rest.md's four path versions are accepted.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v1", "v1.0", "v2", "v2.0", "v3", "V1", "v1.00", "", "v", "v\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseVersion(s)
		want := s == "v1" || s == "v1.0" || s == "v2" || s == "v2.0"
		if ok != want || (ok && "v"+v != s) {
			t.Fatalf("parseVersion(%q) = %q, %v", s, v, ok)
		}
	})
}

// FuzzCSVCell: a written cell reads back (encoding/csv) as the text itself,
// or, neutralised, as ' + the text when a spreadsheet would run it; a
// neutralised cell never starts with a formula character.
func FuzzCSVCell(f *testing.F) {
	for _, s := range []string{"", "plain", "=1+1", "-125.50", "+1", "@A1", "\t=1", "\r=1", `=HYPERLINK("x","y")`, `a,"b"`,
		" lead", `\.`, "line\r\nbreak", "\uFF1Dcmd", "'quoted"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, neutralise bool) {
		if !utf8.ValidString(s) {
			return
		}
		line := append(AppendCSVCell(nil, s, neutralise), ",end\r\n"...)
		recs, err := csv.NewReader(bytes.NewReader(line)).ReadAll()
		if err != nil || len(recs) != 1 || len(recs[0]) != 2 || recs[0][1] != "end" {
			t.Fatalf("%q wrote %q: %v %q", s, line, err, recs)
		}
		want := s
		if neutralise && formulaStart(s) {
			want = "'" + s
		}
		// encoding/csv reads a quoted CRLF as LF.
		if got := recs[0][0]; got != strings.ReplaceAll(want, "\r\n", "\n") {
			t.Fatalf("%q wrote %q, read back %q", s, line, got)
		}
		if neutralise && formulaStart(recs[0][0]) {
			t.Fatalf("%q: neutralised cell %q starts a formula", s, recs[0][0])
		}
	})
}
