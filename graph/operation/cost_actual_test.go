package operation

import (
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// TestActualCostCountsObjectsOnly: the actual cost is the objects returned
// below data; braces inside strings (escaped quotes included), scalars,
// enums and lists of scalars are free.
func TestActualCostCountsObjectsOnly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		data string
		want int
	}{
		{``, 0},
		{`null`, 0},
		{`{}`, 0},
		{`{"load":null}`, 0},
		{`{"load":{"loadNumber":"LD-1"}}`, 1},
		{`{"load":{"loadNumber":"{not an object}","note":"a \"quoted {\" brace","path":"C:\\"}}`, 1},
		{`{"statements":{"total":2,"items":[{"driver":{"name":"A"},"tags":["x","{y}"]},{"driver":null}]}}`, 4},
		{`{"a":{"b":{"c":{"d":{}}}},"e":[{},{},{}]}`, 7},
	} {
		if got := actualCost([]byte(c.data)); got != c.want {
			t.Errorf("actualCost(%s) = %d, want %d", c.data, got, c.want)
		}
	}
}

// TestCostExtensionHasNoFieldHook: the cost extension no longer runs on
// every field of every response.
func TestCostExtensionHasNoFieldHook(t *testing.T) {
	t.Parallel()
	var ext any = &Cost{}
	if _, ok := ext.(graphql.FieldInterceptor); ok {
		t.Fatal("Cost is a graphql.FieldInterceptor: it hooks every field again")
	}
}
