package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// A new tenant made with the CLI is usable at once: a subsidiary, a client
// whose token reads the (empty) API, and a webhook that verifies and is
// Active. Creating again is idempotent; conflicts and bad input are refused.
func TestTenantsCLIThenClientAndWebhook(t *testing.T) {
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	t.Setenv("DATABASE_URL", srv.Config.DatabaseURL) // webhooks reads it
	t.Setenv("HAULGRAPH_ENCRYPTION_KEY", srv.Config.EncryptionKey)
	t.Setenv("HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS", "true")
	run := func(kind string, args ...string) (map[string]any, error) {
		t.Helper()
		var out bytes.Buffer
		err := runTenants(ctx, srv.DB, kind, append(args, "--json"), &out)
		var v map[string]any
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
				t.Fatalf("%s %v printed %q", kind, args, out.String())
			}
		}
		return v, err
	}
	list := func(kind string, args ...string) []map[string]any {
		t.Helper()
		var out bytes.Buffer
		if err := runTenants(ctx, srv.DB, kind, append([]string{"list", "--json"}, args...), &out); err != nil {
			t.Fatal(err)
		}
		var v []map[string]any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("%s list printed %q", kind, out.String())
		}
		return v
	}

	if got := list("tenants"); len(got) != 0 {
		t.Fatalf("tenants in a new database: %v", got)
	}
	tn, err := run("tenants", "create", "--slug", "northwind", "--name", "Northwind Freight")
	if err != nil || tn["created"] != true || tn["slug"] != "northwind" || tn["name"] != "Northwind Freight" {
		t.Fatalf("create tenant: %v %v", tn, err)
	}
	again, err := run("tenants", "create", "--slug", "northwind", "--name", "Northwind Freight")
	if err != nil || again["created"] != false || again["id"] != tn["id"] {
		t.Fatalf("create tenant again: %v %v", again, err)
	}
	if _, err := run("tenants", "create", "--slug", "northwind", "--name", "Other"); domain.CodeOf(err) != domain.CodeConflict {
		t.Fatalf("same slug, other name: %v", err)
	}
	for _, bad := range [][]string{{"--slug", "North Wind", "--name", "x"}, {"--slug", "-x", "--name", "x"}, {"--slug", "ok", "--name", "  "}, {"--name", "x"}} {
		if _, err := run("tenants", append([]string{"create"}, bad...)...); err == nil {
			t.Errorf("tenants create %v accepted", bad)
		}
	}
	if got := list("tenants"); len(got) != 1 || got[0]["slug"] != "northwind" {
		t.Fatalf("tenants list: %v", got)
	}

	sub, err := run("subsidiaries", "create", "--tenant", "northwind", "--name", "Northwind East")
	if err != nil || sub["created"] != true || sub["tenant_id"] != tn["id"] {
		t.Fatalf("create subsidiary: %v %v", sub, err)
	}
	if again, err := run("subsidiaries", "create", "--tenant", "northwind", "--name", "Northwind East"); err != nil || again["id"] != sub["id"] || again["created"] != false {
		t.Fatalf("create subsidiary again: %v %v", again, err)
	}
	if _, err := run("subsidiaries", "create", "--tenant", "nobody", "--name", "x"); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("subsidiary of an unknown tenant: %v", err)
	}
	if got := list("subsidiaries", "--tenant", "northwind"); len(got) != 1 || got[0]["name"] != "Northwind East" {
		t.Fatalf("subsidiaries list: %v", got)
	}

	// A client of the new tenant gets a token that reads its empty lists.
	out, err := runCLI(t, srv, "create", "--tenant", "northwind", "--name", "ERP", "--scopes", "load:read trailer:read webhook:manage", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var creds struct{ ClientID, ClientSecret string }
	_ = json.Unmarshal([]byte(strings.NewReplacer("client_id", "ClientID", "client_secret", "ClientSecret").Replace(out)), &creds)
	tok, err := srv.OAuth(creds.ClientID, creds.ClientSecret).Token(ctx)
	if err != nil {
		t.Fatalf("token of the new tenant's client: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/p/v1/trailers", nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var trailers []any
	_ = json.NewDecoder(res.Body).Decode(&trailers)
	res.Body.Close()
	if res.StatusCode != 200 || trailers == nil || len(trailers) != 0 {
		t.Fatalf("trailers of the new tenant: %d %v", res.StatusCode, trailers)
	}

	// A webhook on the new subsidiary verifies and becomes Active.
	rcv := testkit.NewReceiver(t)
	var hookOut bytes.Buffer
	if err := webhooksCmd(ctx, []string{"create", "--tenant", "northwind", "--name", "ERP", "--url", rcv.URL, "--events", "load.changed", "--subsidiary", sub["id"].(string)}, &hookOut); err != nil {
		t.Fatal(err)
	}
	var created struct{ Webhook struct{ ID string } }
	_ = json.Unmarshal(hookOut.Bytes(), &created)
	hookOut.Reset()
	if err := webhooksCmd(ctx, []string{"enable", "--tenant", "northwind", "--id", created.Webhook.ID}, &hookOut); err != nil {
		t.Fatal(err)
	}
	var enabled struct{ State string }
	if _ = json.Unmarshal(hookOut.Bytes(), &enabled); enabled.State != "Active" {
		t.Fatalf("webhook of the new tenant: %s", hookOut.String())
	}
}
