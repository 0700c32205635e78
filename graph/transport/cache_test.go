package transport

import (
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/graph/generated"
)

// Every object type of the schema is either read from resources the
// response cache knows (queryResources) or left out on purpose, so that a
// new type makes its author decide.
func TestEveryObjectTypeDecided(t *testing.T) {
	t.Parallel()
	uncached := map[string]bool{ // their own freshness: never cached
		"Mutation": true, "Subscription": true, "Document": true,
		"Webhook": true, "WebhookWithSecret": true, "WebhookDelivery": true, "WebhookAttempt": true,
		"EventDestination": true, "EventDestinationWithSecret": true,
		"EventConnection": true, "EventEdge": true, "LoadEvent": true, "LoadEventData": true, "TripEvent": true,
		"TripEventData": true, "EventDiff": true, "Change": true, "ChangeTarget": true,
	}
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	for name, def := range schema.Types {
		if def.Kind != ast.Object || def.BuiltIn || len(name) > 1 && name[:2] == "__" {
			continue
		}
		_, cached := queryResources[name]
		if cached == uncached[name] {
			t.Errorf("type %s: cached %t, left out %t: decide which", name, cached, uncached[name])
		}
	}
}
