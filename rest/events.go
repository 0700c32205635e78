package rest

import (
	"bytes"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"strings"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// eventRoutes serve the events API: the outbox read back for
// reconciliation, as Stripe's /v1/events.
func eventRoutes(log *eventlog.Log, emitted eventschema.EmitFunc) []Route {
	h := &eventHandlers{log: log, emitted: emitted}
	return []Route{{Method: http.MethodGet, Path: "/events", Handle: h.list, RepeatableQuery: []string{"type"}}}
}

type eventHandlers struct {
	log *eventlog.Log
	// emitted, when set, is told every item written (tests validate them).
	emitted eventschema.EmitFunc
}

// eventFields names domain's (GraphQL's) fields as this route's parameters.
var eventFields = map[string]string{"first": "limit", "types": "type"}

// GET /events?after=&limit=&type=&loadNumber=&subsidiaryId=&since=&includePreviousAttributes=
// answers a JSON array of docs/api-contract.md §6.3 envelopes, oldest first, each exactly the
// body a webhook receives; Link rel="next" while more follow.
func (h *eventHandlers) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var f fields
	in := eventlog.ListInput{After: queryParam(q, "after"), LoadNumber: queryParam(q, "loadNumber"),
		SubsidiaryID: queryParam(q, "subsidiaryId"), Types: queryList(q, "type"),
		First: f.Int("limit", queryParam(q, "limit")), Since: f.DateTime("since", queryParam(q, "since"))}
	previous := f.Bool("includePreviousAttributes", queryParam(q, "includePreviousAttributes"))
	if err := f.Err(); err != nil {
		return err
	}
	page, err := h.log.List(r.Context(), in)
	if err != nil {
		return renameFields(err, eventFields)
	}
	// The stored envelopes are written as they are, not re-encoded: the same
	// bytes as a delivery's body.
	var body bytes.Buffer
	body.WriteByte('[')
	for i, e := range page.Items {
		b, err := eventlog.WebhookBody(e.Payload, previous)
		if err != nil {
			return err
		}
		if h.emitted != nil {
			h.emitted(eventschema.ChannelEventsAPI, e.Type, b)
		}
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(b)
	}
	body.WriteString("]\n")
	if page.HasMore {
		w.Header().Set("Link", "<"+nextURL(r, page.Cursors[len(page.Cursors)-1])+`>; rel="next"`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body.Bytes())
	return nil
}

// nextURL is the request's URL with after replaced by cursor.
func nextURL(r *http.Request, cursor string) string {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		if !strings.EqualFold(k, "after") {
			q[k] = vs
		}
	}
	q.Set("after", cursor)
	return r.URL.Path + "?" + q.Encode()
}

// renameFields renames the fields of a validation error from domain's names
// to the route's (a conversion only: the rules stay domain's).
func renameFields(err error, names map[string]string) error {
	var de *domain.Error
	if !errors.As(err, &de) || len(de.Fields) == 0 {
		return err
	}
	out := *de
	out.Fields = make(map[string][]string, len(de.Fields))
	for f, msgs := range maps.All(de.Fields) {
		if n, ok := names[f]; ok {
			f = n
		}
		out.Fields[f] = append(out.Fields[f], msgs...)
	}
	return &out
}
