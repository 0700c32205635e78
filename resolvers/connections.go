package resolvers

import (
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/graph/model"
)

// envelope is what every list connection carries besides its items: the
// API contract's page envelope and Relay's page info, from one storage page and the
// window domain validated.
type envelope struct {
	page     *int
	pageSize int
	total    int
	pageInfo *model.PageInfo
}

func envelopeOf[T any](p domain.Page[T]) envelope {
	e := envelope{pageSize: p.Window.Limit, total: p.Total}
	if n, ok := p.Window.PageNumber(); ok {
		e.page = &n
	}
	info := &model.PageInfo{HasNextPage: p.HasMore, HasPreviousPage: p.Window.HasPrevious()}
	if len(p.Cursors) > 0 {
		info.StartCursor, info.EndCursor = &p.Cursors[0], &p.Cursors[len(p.Cursors)-1]
	}
	e.pageInfo = info
	return e
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

func statementConnection(p domain.Page[reads.Statement]) *model.SettlementStatementConnection {
	e := envelopeOf(p)
	c := &model.SettlementStatementConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.SettlementStatementEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.SettlementStatementEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func trailerConnection(p domain.Page[reads.Trailer]) *model.TrailerConnection {
	e := envelopeOf(p)
	c := &model.TrailerConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.TrailerEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.TrailerEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func locationConnection(p domain.Page[reads.Location]) *model.LocationConnection {
	e := envelopeOf(p)
	c := &model.LocationConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.LocationEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.LocationEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func userConnection(p domain.Page[reads.User]) *model.UserConnection {
	e := envelopeOf(p)
	c := &model.UserConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.UserEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.UserEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func loadConnection(p domain.Page[domain.Load]) *model.LoadConnection {
	e := envelopeOf(p)
	c := &model.LoadConnection{TotalCount: e.total, PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.LoadEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.LoadEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}
