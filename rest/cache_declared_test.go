package rest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/testkit"
)

// The document declares what the response cache answers, on exactly the
// routes it answers. With the cache on, every GET and JSON POST under
// /api/p/v1/ is sent once (a GET its example, a POST a malformed body:
// nothing is written); an answer carrying Cache-Status is the cache's, and
// exactly those operations declare If-None-Match and a 304 (GET) or a 412
// (POST). Then each cacheable GET is sent again with the ETag of its 200
// (or * when its example names nothing) and must answer 304, and each
// cacheable POST with its valid example and If-None-Match: * must answer
// 412: every answer checked against the document (status, headers, body).
func TestCacheAnswersAreDeclared(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{Configure: func(c *app.Config) {
		c.ResponseCacheBytes = 16 << 20
		c.WebhookResolver = publicResolver{}
	}})
	doc := f.oas.doc
	token := f.srv.Token(t, f.tenant, readScopes...)
	send := func(method, path, body string, header map[string]string) (*http.Response, []byte) {
		t.Helper()
		h := map[string]string{"Authorization": "Bearer " + token}
		ct := ""
		if body != "" {
			ct = "application/json"
			h["Content-Type"] = ct
		}
		for k, v := range header {
			h[k] = v
		}
		res, b := testkit.Request(t, method, f.srv.URL+path, h, body)
		if body != "{" { // a malformed body is not the document's to describe
			f.oas.check(t, method, f.srv.URL+path, ct, body, res, b)
		}
		return res, b
	}
	var cacheable []string
	revalidated := 0
	for _, o := range jsonOperations(doc, "GET", "POST") { // multipart uploads are never cached
		method, path, op := o.method, o.path, o.op
		url := examplePath(t, path, op)
		body := ""
		if op.RequestBody != nil {
			body = "{"
		}
		res, _ := send(method, url, body, nil)
		name := method + " " + path
		isCached := res.Header.Get("Cache-Status") != ""
		conditional := map[string]int{"GET": http.StatusNotModified, "POST": http.StatusPreconditionFailed}[method]
		declared := declaresIfNoneMatch(op) && declares(op, conditional)
		if isCached != declared || !isCached && (declaresIfNoneMatch(op) || op.Responses.Value("304") != nil || op.Responses.Value("412") != nil) {
			t.Errorf("%s: answered by the cache %v, but declares If-None-Match %v, 304 %v, 412 %v", name, isCached,
				declaresIfNoneMatch(op), op.Responses.Value("304") != nil, op.Responses.Value("412") != nil)
			continue
		}
		if !isCached {
			continue
		}
		cacheable = append(cacheable, name)
		tag := "*"
		if method == "POST" {
			schema := op.RequestBody.Value.Content["application/json"].Schema.Value
			example, _ := schema.Example.(map[string]any)
			example = maps.Clone(example)
			if _, ok := schema.Properties["SubsidiaryId"]; ok {
				example["SubsidiaryId"] = f.tenant.SubsidiaryID.String()
			}
			b, _ := json.Marshal(example)
			body = string(b)
			if res, b := send(method, url, body, nil); res.StatusCode != http.StatusOK {
				t.Fatalf("%s: the example answers %d %s", name, res.StatusCode, b)
			}
		} else if res.StatusCode == http.StatusOK {
			tag = res.Header.Get("ETag")
			revalidated++
		} else {
			// "*" asks that an answer exists: an example that finds
			// nothing keeps its own answer.
			conditional = res.StatusCode
		}
		if res, b := send(method, url, body, map[string]string{"If-None-Match": tag}); res.StatusCode != conditional ||
			conditional < 400 && len(b) != 0 {
			t.Errorf("%s with If-None-Match %s: %d %q, want %d", name, tag, res.StatusCode, b, conditional)
		}
	}
	if len(cacheable) < 2 || revalidated == 0 {
		t.Fatalf("cacheable operations %v, %d revalidated with their ETag: the cache was not exercised", cacheable, revalidated)
	}
	t.Logf("cacheable: %v; %d GETs revalidated with their ETag", cacheable, revalidated)
}

// examplePath is path with its path parameters and required query
// parameters set to their examples.
func examplePath(t *testing.T, path string, op *openapi3.Operation) string {
	t.Helper()
	var query []string
	for _, p := range op.Parameters {
		switch {
		case p.Value.In == "path":
			path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", fmt.Sprint(p.Value.Example))
		case p.Value.In == "query" && p.Value.Required:
			query = append(query, p.Value.Name+"="+fmt.Sprint(p.Value.Example))
		}
	}
	if len(query) > 0 {
		path += "?" + strings.Join(query, "&")
	}
	return path
}

func declaresIfNoneMatch(op *openapi3.Operation) bool {
	return slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool {
		return p.Value.In == "header" && p.Value.Name == "If-None-Match"
	})
}
