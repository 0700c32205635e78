package rest

import (
	"strings"
	"testing"
)

// A schema name the REST document and the event catalogue both define is
// refused, never silently replaced; a document with its own webhooks too.
func TestMergeWebhooksRefusesCollisions(t *testing.T) {
	t.Parallel()
	base := []byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    EmittedLoad: {type: object}\n")
	fragment := []byte(`{"webhooks": {}, "components": {"schemas": {"EmittedLoad": {"type": "string"}}}}`)
	if _, err := mergeWebhooks(base, fragment); err == nil || !strings.Contains(err.Error(), "EmittedLoad") {
		t.Fatalf("collision: %v", err)
	}
	withHooks := []byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\nwebhooks: {x: {}}\n")
	if _, err := mergeWebhooks(withHooks, []byte(`{"webhooks": {}, "components": {"schemas": {}}}`)); err == nil {
		t.Fatal("a second webhooks section was accepted")
	}
	merged, err := mergeWebhooks([]byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n"),
		[]byte(`{"webhooks": {"a.b": {"post": {"responses": {"200": {"description": "ok"}}}}}, "components": {"schemas": {"X": {"type": "string"}}}}`))
	if err != nil || !strings.Contains(string(merged), `"a.b"`) || !strings.Contains(string(merged), `"X"`) {
		t.Fatalf("merge: %v %s", err, merged)
	}
}
