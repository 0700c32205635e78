package storage_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// A webhook's write is load, decide, save under the row lock: concurrent
// changes each see the one before (none is lost), what the change leaves is
// what is stored, and a change that fails stores nothing.
func TestChangeWebhookLoadsDecidesSaves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := newWriteFixture(t, db)
	store := storage.NewWebhookStore(db, testBox(t))
	now := time.Now().UTC().Truncate(time.Microsecond)
	w := &webhooks.Webhook{ID: uuid.New(), TenantID: f.tenant, SubsidiaryID: f.subsidiary, Name: "w", URL: "https://example.com/h",
		EventTypes: []string{"load.changed"}, State: webhooks.WebhookPending, SignatureScheme: webhooks.SchemeService, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateWebhook(ctx, w, "whsec_test"); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := store.ChangeWebhook(ctx, f.tenant, w.ID, func(w *webhooks.Webhook) error {
				w.Name += "+"
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()

	failing := now.Add(-time.Hour)
	got, err := store.ChangeWebhook(ctx, f.tenant, w.ID, func(w *webhooks.Webhook) error {
		w.State, w.StateReason, w.FailingSince, w.UpdatedAt = webhooks.WebhookDisabled, "why", &failing, now.Add(time.Second)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	read, err := store.GetWebhook(ctx, f.tenant, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if read.Name != "w"+strings.Repeat("+", 10) || read.State != webhooks.WebhookDisabled || read.StateReason != "why" ||
		read.FailingSince == nil || !read.FailingSince.Equal(failing) || !read.UpdatedAt.Equal(got.UpdatedAt) {
		t.Fatalf("stored %+v", read)
	}

	refused := errors.New("refused")
	if _, err := store.ChangeWebhook(ctx, f.tenant, w.ID, func(w *webhooks.Webhook) error {
		w.Name = "changed"
		return refused
	}); !errors.Is(err, refused) {
		t.Fatalf("a refused change: %v", err)
	}
	if again, _ := store.GetWebhook(ctx, f.tenant, w.ID); again.Name != read.Name {
		t.Fatalf("a refused change was stored: %q", again.Name)
	}
	if _, err := store.ChangeWebhook(ctx, uuid.New(), w.ID, func(*webhooks.Webhook) error { return nil }); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("another tenant's webhook: %v", err)
	}
}

func testBox(t *testing.T) *secretbox.Box {
	t.Helper()
	box, err := secretbox.New(secretbox.NewKey())
	if err != nil {
		t.Fatal(err)
	}
	return box
}
