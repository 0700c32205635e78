package resolvers

import (
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/model"
)

// paging is a list field's paging arguments as sent; domain validates them.
type paging struct {
	page, pageSize, first *int
	after                 *string
}

func (a paging) cursorMode() bool { return a.first != nil || a.after != nil }

// envelope is what every list connection carries besides its items: the
// spec's page envelope and Relay's page info, from one storage page.
type envelope struct {
	page     *int
	pageSize int
	total    int
	pageInfo *model.PageInfo
}

func envelopeOf[T any](p domain.Page[T], a paging) envelope {
	e := envelope{pageSize: domain.DefaultPageSize, total: p.Total}
	prev := false
	switch {
	case a.cursorMode():
		if a.first != nil {
			e.pageSize = *a.first
		}
		prev = a.after != nil
	case a.pageSize != nil:
		e.pageSize = *a.pageSize
		pg := 0
		if a.page != nil {
			pg = *a.page
		}
		e.page, prev = &pg, pg > 0
	}
	info := &model.PageInfo{HasNextPage: p.HasMore, HasPreviousPage: prev}
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

func statementConnection(p domain.Page[domain.Statement], a paging) *model.SettlementStatementConnection {
	e := envelopeOf(p, a)
	c := &model.SettlementStatementConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.SettlementStatementEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.SettlementStatementEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func trailerConnection(p domain.Page[domain.Trailer], a paging) *model.TrailerConnection {
	e := envelopeOf(p, a)
	c := &model.TrailerConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.TrailerEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.TrailerEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func locationConnection(p domain.Page[domain.Location], a paging) *model.LocationConnection {
	e := envelopeOf(p, a)
	c := &model.LocationConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.LocationEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.LocationEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func userConnection(p domain.Page[domain.User], a paging) *model.UserConnection {
	e := envelopeOf(p, a)
	c := &model.UserConnection{Page: e.page, PageSize: e.pageSize, Total: e.total, TotalCount: e.total,
		PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.UserEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.UserEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}

func loadConnection(p domain.Page[domain.Load], a paging) *model.LoadConnection {
	e := envelopeOf(p, a)
	c := &model.LoadConnection{TotalCount: e.total, PageInfo: e.pageInfo, Items: ptrs(p.Items)}
	c.Edges = make([]*model.LoadEdge, 0, len(c.Items))
	for i, it := range c.Items {
		c.Edges = append(c.Edges, &model.LoadEdge{Cursor: p.Cursors[i], Node: it})
	}
	return c
}
