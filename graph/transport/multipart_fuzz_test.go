package transport

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// FuzzReadMultipart: the GraphQL multipart reader answers any body either
// with parameters in which every mapped path holds an upload, or with an
// error it blames on the client (400); it never panics, as gqlgen's reader
// did on a path through a value of the wrong shape.
func FuzzReadMultipart(f *testing.F) {
	ops := `--B` + "\r\n" + `Content-Disposition: form-data; name="operations"` + "\r\n\r\n"
	mp := "\r\n--B\r\n" + `Content-Disposition: form-data; name="map"` + "\r\n\r\n"
	file := "\r\n--B\r\n" + `Content-Disposition: form-data; name="0"; filename="a.pdf"` + "\r\n\r\n%PDF-1.4\r\n--B--\r\n"
	for _, s := range []string{
		ops + `{"query":"mutation($f:Upload!){x(f:$f)}","variables":{"f":null}}` + mp + `{"0":["variables.f"]}` + file,
		ops + `{"query":"q","variables":{"f":[null,null]}}` + mp + `{"0":["variables.f.1","variables.f.0"]}` + file,
		ops + `{"query":"q","variables":{"f":"s"}}` + mp + `{"0":["variables.f.0"]}` + file,
		ops + `{"query":"q","variables":{"f":{"a":null}}}` + mp + `{"0":["variables.f.7"]}` + file,
		ops + `{"query":"q","variables":{"f":null}}` + mp + `{"0":["variables.f"],"1":["variables.f"]}` + file,
		"--B\r\nContent-Disposition form-data\r\n\r\nx\r\n--B--\r\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=B")
		p, cleanup, err := readMultipart(r)
		defer cleanup()
		if err != nil {
			if !isBadMultipart(err) {
				t.Fatalf("%q: %v is not the client's error", body, err)
			}
			return
		}
		if p.Query == "" && p.Extensions["persistedQuery"] == nil {
			t.Fatalf("%q: accepted without a query", body)
		}
		if countUploads(p.Variables) == 0 {
			t.Fatalf("%q: accepted without an upload in the variables", body)
		}
	})
}

func countUploads(v any) int {
	switch x := v.(type) {
	case graphql.Upload:
		return 1
	case map[string]any:
		n := 0
		for _, e := range x {
			n += countUploads(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += countUploads(e)
		}
		return n
	}
	return 0
}
