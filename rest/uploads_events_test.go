package rest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// A document on a load or on one of its trips changes the load: one
// load.changed per upload goes to the outbox with the upload, and matches
// the published schema (apptest checks every envelope appended to the
// outbox); driver and carrier documents, and refused uploads, emit nothing.
func TestUploadEmitsLoadChanged(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes)
	for _, p := range []struct{ path, docType string }{
		{"/api/p/v1/loads/" + e.a.loadNumber + "/document", "Proof of Delivery"},
		{"/api/p/v1/trips/" + e.a.tripID.String() + "/document", "Scale Ticket"},
		{"/api/p/v1/drivers/" + e.a.driverID.String() + "/document", "License"},
		{"/api/p/v1/carriers/" + e.a.carrierID.String() + "/document", "Carrier Agreement"},
	} {
		if status, body, _ := e.post(p.path, who, fieldP("DocumentType", p.docType), fileP("a.pdf", pdfBytes)); status != 200 {
			t.Fatalf("%s: %d %v", p.path, status, body)
		}
	}
	if status, _, _ := e.post("/api/p/v1/loads/"+e.a.loadNumber+"/document", who, fieldP("DocumentType", "Selfie"), fileP("a.pdf", pdfBytes)); status != 400 {
		t.Fatalf("refused upload: %d", status)
	}
	rows, err := e.app.DB.Bun.QueryContext(context.Background(),
		`SELECT id, type, tenant_id, subject_id, payload FROM events ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		var id, typ string
		var tenant, subject uuid.UUID
		var payload []byte
		if err := rows.Scan(&id, &typ, &tenant, &subject, &payload); err != nil {
			t.Fatal(err)
		}
		n++
		var env struct {
			ID, Type, Version string
			Data              struct {
				Load map[string]any
				Diff struct {
					Changes []struct {
						Kind   string
						Target struct{ Type, ID string }
					}
				}
			}
		}
		if err := json.Unmarshal(payload, &env); err != nil {
			t.Fatal(err)
		}
		if typ != "load.changed" || tenant != e.a.tenantID || subject != e.a.loadID || env.ID != id || env.Version != "v1" {
			t.Errorf("event %s %s tenant %s subject %s", id, typ, tenant, subject)
		}
		if env.Data.Load["LoadNumber"] != e.a.loadNumber || env.Data.Load["UpdatedAt"] == nil {
			t.Errorf("data.load %v", env.Data.Load)
		}
		if c := env.Data.Diff.Changes; len(c) != 1 || c[0].Kind != "FieldChanged" || c[0].Target.ID != "Documents" || c[0].Target.Type != "Field" {
			t.Errorf("data.diff.changes %+v", c)
		}
	}
	if n != 2 {
		t.Errorf("%d load.changed events, want 2 (the load and the trip upload)", n)
	}
	if got := e.srv.EmittedChecked()[eventlog.ChannelOutbox]; got != 2 {
		t.Errorf("%d outbox envelopes checked against the schema, want the 2 uploads'", got)
	}
}
