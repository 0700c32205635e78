package rest_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Spectral OWASP's owasp:api4:2023-string-limit and array-limit, in Go over
// the served document and for every input: each string a request can carry
// (a parameter, a body member at any depth) has maxLength (or enum or
// const), each array maxItems. TestOpenAPILint runs Spectral itself where
// npm is reachable; this holds the rule everywhere.
func TestOpenAPIRequestLimits(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(servedDocument(t), &doc); err != nil {
		t.Fatal(err)
	}
	var findings []string
	seen := map[string]bool{}
	var walk func(at string, s any)
	walk = func(at string, s any) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			if seen[ref] {
				return
			}
			seen[ref] = true
			walk(ref, resolve(t, doc, ref))
			return
		}
		types := fmt.Sprint(m["type"])
		_, hasEnum := m["enum"]
		_, hasConst := m["const"]
		if strings.Contains(types, "string") && m["maxLength"] == nil && !hasEnum && !hasConst {
			findings = append(findings, at+": a string without maxLength")
		}
		if strings.Contains(types, "array") && m["maxItems"] == nil {
			findings = append(findings, at+": an array without maxItems")
		}
		walk(at+"/items", m["items"])
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, _ := m[k].([]any)
			for i, x := range list {
				walk(fmt.Sprintf("%s/%s/%d", at, k, i), x)
			}
		}
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			walk(at+"/properties/"+name, p)
		}
	}
	paths := doc["paths"].(map[string]any)
	requests := 0
	for path, item := range paths {
		item := item.(map[string]any)
		params := func(at string, list any) {
			l, _ := list.([]any)
			for i, p := range l {
				pm := p.(map[string]any)
				if ref, ok := pm["$ref"].(string); ok {
					pm = resolve(t, doc, ref).(map[string]any)
				}
				requests++
				walk(fmt.Sprintf("%s/parameters/%d(%v)", at, i, pm["name"]), pm["schema"])
			}
		}
		params(path, item["parameters"])
		for method, op := range item {
			op, ok := op.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			at := strings.ToUpper(method) + " " + path
			params(at, op["parameters"])
			body, _ := op["requestBody"].(map[string]any)
			content, _ := body["content"].(map[string]any)
			for mt, m := range content {
				requests++
				walk(at+" "+mt, m.(map[string]any)["schema"])
			}
		}
	}
	slices.Sort(findings)
	for _, f := range findings {
		t.Error(f)
	}
	if requests < 40 {
		t.Fatalf("walked %d parameters and bodies: the walk missed the document's inputs", requests)
	}
}

// resolve follows a local JSON pointer ("#/components/schemas/X").
func resolve(t *testing.T, doc map[string]any, ref string) any {
	t.Helper()
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("unresolvable %s", ref)
		}
		cur = m[part]
	}
	return cur
}
