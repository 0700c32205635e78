package apptest_test

import (
	"context"
	"encoding/json"
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
		if err := json.Unmarshal(restDo(t, lb, token, http.MethodPost, "/graphql", body, http.StatusOK), &out); err != nil {
			t.Fatal(err)
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
		if err := json.Unmarshal(restDo(t, lb, token, http.MethodGet, path, nil, http.StatusOK), &load); err != nil || load.LoadNumber != n {
			t.Errorf("GET %s through nginx: %q %v, want the load %q", path, load.LoadNumber, err, n)
		}
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
