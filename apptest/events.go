package apptest

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
)

// LoadEvent commits a load.changed event of an open load numbered
// loadNumber, in tenant's subsidiary, straight into the outbox as a write
// would, and returns its id. The envelope is whole: every body delivered
// of it is checked against the published schemas.
func (s *Server) LoadEvent(t testing.TB, tenant Tenant, loadNumber string) string {
	t.Helper()
	eventID := uuid.NewString() + "-0"
	load := domain.Load{ID: uuid.New(), LoadNumber: loadNumber, Status: domain.LoadOpen, BillingStatus: "Released", SubsidiaryID: tenant.SubsidiaryID,
		Rate: domain.NewMoney(decimal.Zero, domain.USD), Stops: []domain.Stop{}, Trips: []domain.Trip{}}
	payload, err := domain.Event{ID: eventID, Type: domain.EventLoadChanged, Timestamp: time.Now(), Data: domain.EventData{Load: &load}}.MarshalEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Pool.Exec(context.Background(), `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
		VALUES ($1, $2, $3, $4, $5, $6)`, eventID, tenant.ID, tenant.SubsidiaryID, domain.EventLoadChanged, uuid.New(), string(payload)); err != nil {
		t.Fatal(err)
	}
	return eventID
}
