package operation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
)

func TestErrorPresenterHidesInternals(t *testing.T) {
	t.Parallel()
	var logged strings.Builder
	present := PresentError(slog.New(slog.NewTextHandler(&logged, nil)))
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, nil)
	e := present(ctx, errors.New(`ERROR: relation "secret_table" does not exist (SQLSTATE 42P01)`))
	if e.Message != "internal error" || e.Extensions["code"] != "INTERNAL" || strings.Contains(e.Error(), "SQLSTATE") {
		t.Errorf("internal error shown as %+v", e)
	}
	if !strings.Contains(logged.String(), "SQLSTATE") {
		t.Errorf("the cause was not logged")
	}
	e = present(ctx, &domain.Error{Code: domain.CodeInvalid, Message: "bad", Fields: map[string][]string{"PageSize": {"too big"}}})
	if e.Message != "bad" || e.Extensions["code"] != "BAD_USER_INPUT" || e.Extensions["fields"] == nil {
		t.Errorf("domain error shown as %+v", e)
	}
}

// A client that goes away mid-operation (a subscriber reset during its
// replay) is no server error: the database's "context canceled" is
// answered quietly and logs nothing at ERROR.
func TestErrorPresenterQuietWhenTheClientLeft(t *testing.T) {
	t.Parallel()
	var logged strings.Builder
	present := PresentError(slog.New(slog.NewTextHandler(&logged, nil)))
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	ctx := graphql.WithResponseContext(gone, graphql.DefaultErrorPresenter, nil)
	e := present(ctx, fmt.Errorf("storage: replay: %w", context.Canceled))
	if e.Extensions["code"] == "INTERNAL" || strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("a canceled request shown as %+v, logged %s", e, logged.String())
	}
	// The same error while the request is still wanted is the server's.
	logged.Reset()
	e = present(graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, nil), fmt.Errorf("x: %w", context.Canceled))
	if e.Extensions["code"] != "INTERNAL" || !strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("an internal cancellation shown as %+v", e)
	}
}
