package apptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/lbtest"
)

// Load numbers are URL path segments: createLoad refuses the ones a proxy
// would decode, fold or resolve elsewhere (not trimming them), and the
// loads other writers stored with such numbers before the rule stay
// readable by their percent-encoded number, through nginx as the fleet
// runs it (proxy_pass without a URI: the request line goes on as sent).
func TestLoadNumbersInPathsThroughNginx(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	lb := "http://" + lbtest.Nginx(t, `
	server {
		listen `+lbtest.Listen+`;
		location / { proxy_pass `+srv.URL+`; }
	}
`)
	tn := apptest.NewTenant(t, srv, "paths")
	token := srv.Token(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadRead)

	create := func(loadNumber, tripNumber string) map[string]any {
		in := map[string]any{"loadNumber": loadNumber, "subsidiaryId": tn.SubsidiaryID,
			"stops": []map[string]any{{"type": "Pickup", "name": "A"}}, "trips": []map[string]any{{"tripNumber": tripNumber}}}
		body, _ := json.Marshal(map[string]any{"query": `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
			"variables": map[string]any{"in": in}})
		var out map[string]any
		status := callJSON(t, http.MethodPost, lb+"/graphql", token, bytes.NewReader(body), &out)
		if status != http.StatusOK {
			t.Fatalf("createLoad %q: %d %v", loadNumber, status, out)
		}
		return out
	}
	for _, n := range []string{"../../LD-175396", `LD\175396`, " LD-175396", "LD-175396 ", "..", "LD\t1"} {
		errs, _ := create(n, "T-1")["errors"].([]any)
		if len(errs) != 1 || !strings.Contains(jsonText(errs[0]), `"BAD_USER_INPUT"`) || !strings.Contains(jsonText(errs[0]), `"LoadNumber"`) {
			t.Errorf("createLoad %q: %v, want one BAD_USER_INPUT naming LoadNumber", n, errs)
		}
	}
	if errs, _ := create("LD-2", "T/1")["errors"].([]any); len(errs) != 1 || !strings.Contains(jsonText(errs[0]), `TripNumber must not contain`) {
		t.Errorf("trip number T/1: %v, want a BAD_USER_INPUT on TripNumber", errs)
	}
	if out := create("LD-175396", "T-1"); out["errors"] != nil {
		t.Fatalf("createLoad LD-175396: %v", out["errors"])
	}

	// Rows another writer stored before the rule.
	odd := []string{"../../LD-175396", `LD\175396`, " LD-175396 "}
	err := srv.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for _, n := range odd {
			if _, err := tx.ExecContext(ctx, `INSERT INTO loads (id, tenant_id, load_number, status, billing_status, subsidiary_id, created_at, updated_at)
				VALUES (?, ?, ?, 'Open', 'Released', ?, ?, ?)`, uuid.New(), tn.ID, n, tn.SubsidiaryID, time.Now(), time.Now()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(odd, "LD-175396") {
		var load struct{ LoadNumber string }
		path := "/api/p/v1/loads/" + url.PathEscape(n)
		if status := callJSON(t, http.MethodGet, lb+path, token, nil, &load); status != http.StatusOK || load.LoadNumber != n {
			t.Errorf("GET %s through nginx: %d %q, want 200 and the load %q", path, status, load.LoadNumber, n)
		}
	}
}

// callJSON sends a request with the bearer token and decodes the JSON answer
// into out; it returns the status.
func callJSON(t *testing.T, method, u, token string, body io.Reader, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s %s: %d %s", method, u, res.StatusCode, b)
	}
	return res.StatusCode
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
