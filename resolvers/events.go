package resolvers

import (
	"fmt"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/graph/model"
)

// eventConnection renders one page of the events API as the same LoadEvent
// and TripEvent objects subscriptions deliver.
func eventConnection(p domain.Page[eventlog.LoggedEvent], after *string, previous bool) (*model.EventConnection, error) {
	c := &model.EventConnection{Edges: make([]*model.EventEdge, 0, len(p.Items)), Nodes: make([]model.Event, 0, len(p.Items)),
		PageInfo: &model.PageInfo{HasNextPage: p.HasMore, HasPreviousPage: after != nil && *after != ""}}
	for i, e := range p.Items {
		ts, data, err := eventlog.ParseEnvelope(e.Payload)
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		ev := &eventlog.LiveEvent{Seq: e.Position.Seq, Pos: e.Position, ID: e.ID, Type: e.Type, Timestamp: ts, SubsidiaryID: e.SubsidiaryID, Data: data}
		var node model.Event
		if e.Type == domain.EventTripChanged {
			node = tripEvent(ev, p.Cursors[i], previous)
		} else {
			node = loadEvent(ev, p.Cursors[i], previous)
		}
		c.Edges = append(c.Edges, &model.EventEdge{Cursor: p.Cursors[i], Node: node})
		c.Nodes = append(c.Nodes, node)
	}
	if n := len(p.Cursors); n > 0 {
		c.PageInfo.StartCursor, c.PageInfo.EndCursor = &p.Cursors[0], &p.Cursors[n-1]
	}
	return c, nil
}
