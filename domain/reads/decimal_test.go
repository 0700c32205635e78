package reads

import (
	"encoding/json"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/shopspring/decimal"
)

// The numbers that are not Money render as JSON numbers by their own type,
// and loading domain changes nothing global in shopspring/decimal (which
// every other package linked into the binary shares).
func TestDecimalRendersAsANumberWithoutTheLibraryGlobal(t *testing.T) {
	t.Parallel()
	if decimal.MarshalJSONWithoutQuotes {
		t.Fatal("a package changed decimal.MarshalJSONWithoutQuotes")
	}
	w := domain.Decimal{Decimal: decimal.RequireFromString("131072.01")}
	totals := StatementTotals{LoadedMiles: &w}
	rate := LineRate{UnitOfMeasurement: "Mile", Units: domain.Decimal{Decimal: decimal.RequireFromString("12.5")}, Rate: domain.Decimal{Decimal: decimal.RequireFromString("2")}}
	for _, c := range []struct {
		v    any
		want string
	}{
		{totals, `{"LoadedMiles":131072.01}`},
		{rate, `{"UnitOfMeasurement":"Mile","Units":12.5,"Rate":2}`},
		{struct{ Weight *domain.Decimal }{&w}, `{"Weight":131072.01}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("got %s, want %s", b, c.want)
		}
	}
	var back LineRate
	if err := json.Unmarshal([]byte(`{"Units":12.50,"Rate":"2.25"}`), &back); err != nil {
		t.Fatal(err)
	}
	if back.Units.String() != "12.5" || back.Rate.String() != "2.25" {
		t.Errorf("read back %v and %v", back.Units, back.Rate)
	}
}
