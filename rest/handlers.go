package rest

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// handlers convert HTTP to domain inputs and back; every rule is domain's.
type handlers struct{ reads *reads.Service }

func (h *handlers) routes() []Route {
	return []Route{
		// An invoice is answered whole, its loads included.
		{Method: http.MethodGet, Path: "/invoices", Handle: h.invoice, Reads: reads.InvoiceReads | reads.InvoiceLoadReads},
		{Method: http.MethodPost, Path: "/driver-settlement-statements/search", Handle: h.searchStatements, Reads: reads.StatementReads},
		{Method: http.MethodGet, Path: "/driver-settlement-statements/{number}", Handle: h.statement, Reads: reads.StatementReads},
		{Method: http.MethodGet, Path: "/trailers", Handle: h.trailers, Reads: reads.TrailerReads},
		{Method: http.MethodPost, Path: "/locations/search", Handle: h.searchLocations, Reads: reads.LocationReads},
		{Method: http.MethodPost, Path: "/users/search", Handle: h.searchUsers, Reads: reads.UserReads},
		{Method: http.MethodGet, Path: "/loads/{loadNumber}", Handle: h.load, Reads: reads.LoadReads},
		{Method: http.MethodGet, Path: "/webhooks/event-types", Handle: h.eventTypes},
	}
}

// GET /invoices?id=&invoiceNumber= (docs/api-contract.md §4.1).
func (h *handlers) invoice(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	inv, err := h.reads.Invoice(r.Context(), reads.InvoiceKey{ID: queryParam(q, "id"), Number: queryParam(q, "invoiceNumber")})
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, inv)
	return nil
}

// POST /driver-settlement-statements/search (docs/api-contract.md §4.2).
func (h *handlers) searchStatements(w http.ResponseWriter, r *http.Request) error {
	var body statementSearchBody
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	page, err := h.reads.SearchStatements(r.Context(), in)
	if err != nil {
		return err
	}
	jsonHeader(w, http.StatusOK)
	_, _ = w.Write(appendStatementPage(make([]byte, 0, 64<<10), envelope(page)))
	return nil
}

// GET /driver-settlement-statements/{number} (docs/api-contract.md §4.3).
func (h *handlers) statement(w http.ResponseWriter, r *http.Request) error {
	var f fields
	s := r.PathValue("number")
	n := f.Int("number", &s)
	if err := f.Err(); err != nil {
		return err
	}
	st, err := h.reads.Statement(r.Context(), int32(*n))
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, st)
	return nil
}

// GET /trailers (docs/api-contract.md §4.4): a bare JSON array, read in slices of at most
// domain.MaxWholeList (?limit=, ?after=) with GitHub-style signals:
// X-Total-Count and a Link rel="next" while more items follow.
func (h *handlers) trailers(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var f fields
	limit := f.Int("limit", queryParam(q, "limit"))
	if err := f.Err(); err != nil {
		return err
	}
	after := queryParam(q, "after")
	if after != nil && *after == "" {
		after = nil
	}
	win, err := domain.WholeListWindow(limit, after)
	if err != nil {
		return err
	}
	page, err := h.reads.Trailers(r.Context(), win)
	if err != nil {
		return err
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(page.Total))
	if page.HasMore && len(page.Cursors) > 0 {
		next := url.Values{"after": {page.Cursors[len(page.Cursors)-1]}, "limit": {strconv.Itoa(win.Limit)}}
		w.Header().Set("Link", "<"+r.URL.Path+"?"+next.Encode()+`>; rel="next"`)
	}
	WriteJSON(w, http.StatusOK, nonNil(page.Items))
	return nil
}

// POST /locations/search (docs/api-contract.md §4.5).
func (h *handlers) searchLocations(w http.ResponseWriter, r *http.Request) error {
	var body locationSearchBody
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	page, err := h.reads.SearchLocations(r.Context(), in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, envelope(page))
	return nil
}

// POST /users/search (docs/api-contract.md §4.6).
func (h *handlers) searchUsers(w http.ResponseWriter, r *http.Request) error {
	var body userSearchBody
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	page, err := h.reads.SearchUsers(r.Context(), in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, envelope(page))
	return nil
}

// GET /loads/{loadNumber} (docs/architecture.md: the load snapshot of events).
func (h *handlers) load(w http.ResponseWriter, r *http.Request) error {
	l, err := h.reads.Load(r.Context(), r.PathValue("loadNumber"))
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, l)
	return nil
}

// GET /webhooks/event-types (docs/api-contract.md §4.8, docs/architecture.md: a JSON array of strings).
func (h *handlers) eventTypes(w http.ResponseWriter, r *http.Request) error {
	if _, err := domain.Authorize(r.Context(), webhooks.OpListEventTypes); err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, domain.EventTypes)
	return nil
}
