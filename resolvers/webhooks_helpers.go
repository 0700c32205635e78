package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/graph/model"
)

func node(w *webhooks.Webhook) *model.WebhookNode {
	if w == nil {
		return nil
	}
	return &model.WebhookNode{Webhook: *w}
}

// parseID turns a GraphQL ID into a uuid, or a field-level validation error.
func parseID(field, id string) (uuid.UUID, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		var v domain.Validation
		v.Add(field, "must be a valid id")
		return u, v.Err()
	}
	return u, nil
}

// createInput is what a webhook's and a destination's create share: the
// fields and the subsidiary's id, parsed.
func createInput(name, url *string, eventTypes []string, previous *bool, scheme *webhooks.SignatureScheme, subsidiaryID *string) (webhooks.Input, error) {
	in := webhooks.Input{Name: name, URL: url, EventTypes: eventTypes, IncludePreviousAttributes: previous, SignatureScheme: scheme}
	if subsidiaryID != nil {
		id, err := parseID("subsidiaryId", *subsidiaryID)
		if err != nil {
			return in, err
		}
		in.SubsidiaryID = &id
	}
	return in, nil
}

// deliveriesLimit validates Webhook.deliveries(first:) (1..100, default 20).
func deliveriesLimit(first *int) (int, error) {
	w, err := domain.CursorWindow(first, nil)
	return w.Limit, err
}

// prefetchDeliveries loads the deliveries of every listed webhook in one
// query when the query selects deliveries once (with one first: value);
// otherwise each webhook's field loads its own.
func (r *queryResolver) prefetchDeliveriesOf(ctx context.Context, svc *webhooks.Service, nodes []*model.WebhookNode) error {
	if len(nodes) == 0 || graphql.GetFieldContext(ctx) == nil {
		return nil
	}
	var selected []graphql.CollectedField
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == "deliveries" {
			selected = append(selected, f)
		}
	}
	if len(selected) != 1 {
		return nil
	}
	args := selected[0].ArgumentMap(graphql.GetOperationContext(ctx).Variables)
	var first *int
	if v, ok := args["first"].(int64); ok {
		n := int(v)
		first = &n
	} else if v, ok := args["first"].(int); ok {
		first = &v
	} else if args["first"] != nil {
		return nil // an unexpected shape: let the field resolve itself
	}
	limit, err := deliveriesLimit(first)
	if err != nil {
		return nil // the field reports the error
	}
	ids := make([]uuid.UUID, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	byWebhook, err := svc.DeliveriesFor(ctx, ids, limit)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		n.Prefetched, n.HasPrefetched = byWebhook[n.ID], true
	}
	return nil
}

// nodeDeliveries resolves a webhook's or destination's deliveries: the
// prefetched ones, or svc's.
func nodeDeliveries(ctx context.Context, svc *webhooks.Service, obj *model.WebhookNode, first *int) ([]*webhooks.Delivery, error) {
	limit, err := deliveriesLimit(first)
	if err != nil {
		return nil, err
	}
	ds := obj.Prefetched
	if !obj.HasPrefetched {
		if ds, err = svc.Deliveries(ctx, obj.ID, limit); err != nil {
			return nil, err
		}
	}
	out := make([]*webhooks.Delivery, len(ds))
	for i := range ds {
		out[i] = &ds[i]
	}
	return out, nil
}

// brokerSetting is one of a broker destination's settings, null when unset.
func brokerSetting(obj *model.WebhookNode, get func(*webhooks.Broker) string) *string {
	if obj.Broker == nil || get(obj.Broker) == "" {
		return nil
	}
	v := get(obj.Broker)
	return &v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// listNodes is svc's list with the deliveries prefetched when selected.
func (r *queryResolver) listNodes(ctx context.Context, svc *webhooks.Service) ([]*model.WebhookNode, error) {
	ws, err := svc.List(ctx)
	if err != nil {
		return nil, err
	}
	nodes := make([]*model.WebhookNode, len(ws))
	for i := range ws {
		nodes[i] = node(&ws[i])
	}
	return nodes, r.prefetchDeliveriesOf(ctx, svc, nodes)
}

// getNode is one of svc's, null when it is not the tenant's.
func getNode(ctx context.Context, svc *webhooks.Service, id string) (*model.WebhookNode, error) {
	wid, err := parseID("id", id)
	if err != nil {
		return nil, err
	}
	w, err := svc.Get(ctx, wid)
	if domain.CodeOf(err) == domain.CodeNotFound {
		return nil, nil
	}
	return node(w), err
}
