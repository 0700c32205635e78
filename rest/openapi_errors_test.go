package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/testkit"
)

// TestOpenAPIErrorAnswersMatch causes each kind of error answer and checks
// it against the document, which declares every status an operation may
// answer and no default: a status the document does not name fails.
func TestOpenAPIErrorAnswersMatch(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	c := newOpenAPIChecker(t, srv.URL)
	tenant := apptest.NewTenant(t, srv, "acme")
	reader := srv.Token(t, tenant, domain.ScopeInvoiceRead, domain.ScopeDriverRead)
	other := srv.Token(t, tenant, domain.ScopeTrailerRead)
	search := "/api/p/v1/driver-settlement-statements/search"
	valid := `{"Page":0,"PageSize":1,"StatementDateRange":{"Start":"2025-01-01T00:00:00Z","End":"2025-01-31T00:00:00Z"}}`
	for _, r := range []struct {
		name, method, path, token, contentType, accept, body string
		status                                               int
	}{
		{"400", "GET", "/api/p/v1/invoices", reader, "", "", "", http.StatusBadRequest},
		{"401", "GET", "/api/p/v1/invoices?id=" + uuid.NewString(), "not-a-token", "", "", "", http.StatusUnauthorized},
		{"403", "GET", "/api/p/v1/invoices?id=" + uuid.NewString(), other, "", "", "", http.StatusForbidden},
		{"404", "GET", "/api/p/v1/invoices?id=" + uuid.NewString(), reader, "", "", "", http.StatusNotFound},
		{"404 statement", "GET", "/api/p/v2/driver-settlement-statements/424242", reader, "", "", "", http.StatusNotFound},
		{"406", "GET", "/api/p/v1/invoices?id=" + uuid.NewString(), reader, "", "text/html", "", http.StatusNotAcceptable},
		{"413", "POST", search, reader, "application/json", "", `{"Page":0,"x":"` + strings.Repeat("a", 2<<20) + `"}`, http.StatusRequestEntityTooLarge},
		{"415", "POST", search, reader, "text/plain", "", valid, http.StatusUnsupportedMediaType},
		{"400 body", "POST", search, reader, "application/json", "", `{"Page":-1}`, http.StatusBadRequest},
	} {
		t.Run(r.name, func(t *testing.T) {
			h := map[string]string{"Authorization": "Bearer " + r.token}
			if r.contentType != "" {
				h["Content-Type"] = r.contentType
			}
			if r.accept != "" {
				h["Accept"] = r.accept
			}
			res, body := testkit.Request(t, r.method, srv.URL+r.path, h, r.body)
			wantProblem(t, res, body, r.status)
			c.check(t, r.method, srv.URL+r.path, r.contentType, r.body, res, body)
		})
	}
}

// TestOpenAPIStructure: every operation lists its typed error answers as
// shared components, none falls back to a default, and the answers that
// ask the client to wait or to authenticate declare their headers.
func TestOpenAPIStructure(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	doc := newOpenAPIChecker(t, srv.URL).doc
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Responses.Default() != nil {
				t.Errorf("%s %s answers an undeclared status through default", method, path)
			}
			if !strings.HasPrefix(path, "/api/p/v1/") {
				continue
			}
			want := []string{"400", "401", "404", "406", "429", "500", "503"}
			if op.Security != nil && slices.ContainsFunc(*op.Security, func(r openapi3.SecurityRequirement) bool { return len(r["oauth2"]) > 0 }) {
				want = append(want, "403")
			}
			if op.RequestBody != nil {
				want = append(want, "413", "415")
			}
			for _, code := range want {
				ref := op.Responses.Value(code)
				if ref == nil {
					t.Errorf("%s %s does not declare %s", method, path, code)
					continue
				}
				if !strings.HasPrefix(ref.Ref, "#/components/responses/") {
					t.Errorf("%s %s: %s is not a shared component (%q)", method, path, code, ref.Ref)
				}
			}
		}
	}
	// Enums are named schemas that properties and parameters reference.
	_, served, err := rest.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var raw any
	if err := json.Unmarshal(served, &raw); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["enum"]; ok && !regexp.MustCompile(`^/components/schemas/[^/]+$`).MatchString(path) {
				t.Errorf("an inline enum at %s: name it in components/schemas and reference it", path)
			}
			// Generators size numbers by format: float32 and int without one.
			types := fmt.Sprint(x["type"])
			if strings.Contains(types, "number") && x["format"] != "double" {
				t.Errorf("%s: a number without format double", path)
			}
			if strings.Contains(types, "integer") && x["format"] != "int32" && x["format"] != "int64" {
				t.Errorf("%s: an integer without format int32 or int64", path)
			}
			if types == "object" && x["properties"] == nil && x["additionalProperties"] == nil {
				t.Errorf("%s: a free-form object that does not say what it holds", path)
			}
			for k, e := range x {
				walk(path+"/"+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", path, i), e)
			}
		}
	}
	walk("", raw)
	if doc.Info.Contact == nil || doc.Info.Contact.Email == "" {
		t.Error("info.contact has no e-mail")
	}
	for path, item := range doc.Paths.Map() {
		if strings.Contains(path, "{version}") {
			t.Errorf("%s: a generated client would need a version argument", path)
		}
		for method, op := range item.Operations() {
			if op.OperationID == "" || len(op.Tags) == 0 || op.Description == "" {
				t.Errorf("%s %s lacks an operationId, tags or a description", method, path)
			}
			for code, r := range op.Responses.Map() {
				for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
					if r.Value.Headers[h] == nil {
						t.Errorf("%s %s %s does not declare %s", method, path, code, h)
					}
				}
			}
		}
	}
	for name, header := range map[string]string{"TooManyRequests": "Retry-After", "ServiceUnavailable": "Retry-After", "Unauthorized": "WWW-Authenticate", "Forbidden": "WWW-Authenticate"} {
		r := doc.Components.Responses[name]
		if r == nil || r.Value.Headers[header] == nil {
			t.Errorf("the %s answer does not declare %s", name, header)
		}
	}
}
