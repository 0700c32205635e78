package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/haulgraph/haulgraph/graphiql"
)

// TestGraphiQLPrefillsOnlyTheDemoClient: GraphiQL's sign-in is pre-filled
// with the demo client's credentials in the demo (HAULGRAPH_DEMO_DIR), read
// when the page is served (the client may be created after start), and
// never outside the demo.
func TestGraphiQLPrefillsOnlyTheDemoClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := &App{Config: Config{Audience: "https://api.example", DemoDir: dir}}
	if got := a.graphiqlOptions(); got != (graphiql.Options{Audience: "https://api.example"}) {
		t.Fatalf("before the demo client exists: %+v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, DemoClientFile), []byte(`{"client_id": "hgc_demo", "client_secret": "hgcs_demo"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := a.graphiqlOptions(); got != (graphiql.Options{Audience: "https://api.example", ClientID: "hgc_demo", ClientSecret: "hgcs_demo"}) {
		t.Fatalf("in the demo: %+v", got)
	}
	a.Config.DemoDir = ""
	if got := a.graphiqlOptions(); got.ClientID != "" || got.ClientSecret != "" {
		t.Fatalf("outside the demo: %+v", got)
	}
}
