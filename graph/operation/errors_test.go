package operation

import (
	"context"
	"errors"
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
