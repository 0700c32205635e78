package haulgraph

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/oauth2"
)

// Every REST route of the OpenAPI document, one method each. Reads, searches
// and deletes are idempotent (retried on 503 as on 429); the other writes
// are retried on 429 only, which the server answers before acting.

func (c *Client) getJSON(ctx context.Context, path string, q url.Values, out any) (http.Header, error) {
	return c.call(ctx, request{method: http.MethodGet, path: path, query: q, idempotent: true}, out)
}

func (c *Client) postJSON(ctx context.Context, path string, in any, idempotent bool, out any) (http.Header, error) {
	body, err := jsonBody(in)
	if err != nil {
		return nil, err
	}
	r := request{method: http.MethodPost, path: path, body: body, idempotent: idempotent}
	if body != nil {
		r.ctype = "application/json"
	}
	return c.call(ctx, r, out)
}

// GetInvoice reads an invoice by id or by number (GET /invoices).
func (c *Client) GetInvoice(ctx context.Context, p GetInvoiceParams) (*Invoice, error) {
	q := url.Values{}
	if p.Id != nil {
		q.Set("id", p.Id.String())
	}
	if p.InvoiceNumber != nil {
		q.Set("invoiceNumber", *p.InvoiceNumber)
	}
	var inv Invoice
	_, err := c.getJSON(ctx, c.restPath("invoices"), q, &inv)
	return ret(&inv, err)
}

// SearchStatements returns one page of settled statements.
func (c *Client) SearchStatements(ctx context.Context, s StatementSearch) (*StatementPage, error) {
	var page StatementPage
	_, err := c.postJSON(ctx, c.restPath("driver-settlement-statements/search"), s, true, &page)
	return ret(&page, err)
}

// GetStatement reads one settled statement by number.
func (c *Client) GetStatement(ctx context.Context, number int32) (*Statement, error) {
	var s Statement
	_, err := c.getJSON(ctx, c.restPath("driver-settlement-statements/"+strconv.FormatInt(int64(number), 10)), nil, &s)
	return ret(&s, err)
}

// TrailerPage is one slice of the trailers.
type TrailerPage struct {
	Items []Trailer
	// Total is X-Total-Count: every trailer of the tenant.
	Total int64
	// Next is the URL of the next slice ("" on the last one).
	Next string
}

// ListTrailers returns one slice of the trailers, oldest first.
func (c *Client) ListTrailers(ctx context.Context, p ListTrailersParams) (*TrailerPage, error) {
	q := url.Values{}
	if p.Limit != nil {
		q.Set("limit", strconv.Itoa(int(*p.Limit)))
	}
	if p.After != nil {
		q.Set("after", *p.After)
	}
	return c.trailersAt(ctx, c.restPath("trailers"), q)
}

func (c *Client) trailersAt(ctx context.Context, path string, q url.Values) (*TrailerPage, error) {
	var page TrailerPage
	h, err := c.getJSON(ctx, path, q, &page.Items)
	if err != nil {
		return nil, err
	}
	page.Total, _ = strconv.ParseInt(h.Get("X-Total-Count"), 10, 64)
	page.Next = nextLink(h)
	return &page, nil
}

// SearchLocations returns one page of locations.
func (c *Client) SearchLocations(ctx context.Context, s LocationSearch) (*LocationPage, error) {
	var page LocationPage
	_, err := c.postJSON(ctx, c.restPath("locations/search"), s, true, &page)
	return ret(&page, err)
}

// SearchUsers returns one page of users.
func (c *Client) SearchUsers(ctx context.Context, s UserSearch) (*UserPage, error) {
	var page UserPage
	_, err := c.postJSON(ctx, c.restPath("users/search"), s, true, &page)
	return ret(&page, err)
}

// GetLoad reads a load snapshot by its load number.
func (c *Client) GetLoad(ctx context.Context, loadNumber string) (*Load, error) {
	var l Load
	_, err := c.getJSON(ctx, c.restPath("loads/"+url.PathEscape(loadNumber)), nil, &l)
	return ret(&l, err)
}

// ListWebhookEventTypes lists the event types a webhook can subscribe to.
func (c *Client) ListWebhookEventTypes(ctx context.Context) ([]EventType, error) {
	var types []EventType
	_, err := c.getJSON(ctx, c.restPath("webhooks/event-types"), nil, &types)
	return types, err
}

// ListWebhooks lists the tenant's webhooks (secrets are never listed).
func (c *Client) ListWebhooks(ctx context.Context) ([]Webhook, error) {
	var hooks []Webhook
	_, err := c.getJSON(ctx, c.restPath("webhooks"), nil, &hooks)
	return hooks, err
}

// CreateWebhook creates a Pending webhook; the answer is the only one that
// shows its signing secret (or, for standard-webhooks-ed25519, its public key).
func (c *Client) CreateWebhook(ctx context.Context, in WebhookCreate) (*WebhookWithSecret, error) {
	var w WebhookWithSecret
	_, err := c.postJSON(ctx, c.restPath("webhooks"), in, false, &w)
	return ret(&w, err)
}

func (c *Client) webhookPath(id, action string) string {
	p := c.restPath("webhooks/" + url.PathEscape(id))
	if action != "" {
		p += "/" + action
	}
	return p
}

// GetWebhook reads one webhook.
func (c *Client) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	_, err := c.getJSON(ctx, c.webhookPath(id, ""), nil, &w)
	return ret(&w, err)
}

// UpdateWebhook changes the fields set in in.
func (c *Client) UpdateWebhook(ctx context.Context, id string, in WebhookUpdate) (*Webhook, error) {
	body, err := jsonBody(in)
	if err != nil {
		return nil, err
	}
	var w Webhook
	// Setting the same fields twice leaves the same webhook.
	_, err = c.call(ctx, request{method: http.MethodPatch, path: c.webhookPath(id, ""), body: body, ctype: "application/json", idempotent: true}, &w)
	return ret(&w, err)
}

// DeleteWebhook deletes a webhook with its deliveries.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	_, err := c.call(ctx, request{method: http.MethodDelete, path: c.webhookPath(id, ""), idempotent: true}, nil)
	return err
}

// EnableWebhook turns Send Events on: the server verifies the endpoint and
// answers the resulting state (Active or FailedVerification).
func (c *Client) EnableWebhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	_, err := c.postJSON(ctx, c.webhookPath(id, "enable"), nil, false, &w)
	return ret(&w, err)
}

// DisableWebhook stops delivery at once.
func (c *Client) DisableWebhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	_, err := c.postJSON(ctx, c.webhookPath(id, "disable"), nil, true, &w)
	return ret(&w, err)
}

// RotateWebhookSecret issues a new signing secret, shown once; in may be nil.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, in *RotateSecret) (*WebhookWithSecret, error) {
	var body any
	if in != nil {
		body = in
	}
	var w WebhookWithSecret
	_, err := c.postJSON(ctx, c.webhookPath(id, "rotate-secret"), body, false, &w)
	return ret(&w, err)
}

// DeliveryPage is one page of a webhook's deliveries, newest first.
type DeliveryPage struct {
	Items []WebhookDelivery
	Next  string
}

// ListWebhookDeliveries returns one page of a webhook's deliveries.
func (c *Client) ListWebhookDeliveries(ctx context.Context, id string, p ListWebhookDeliveriesParams) (*DeliveryPage, error) {
	q := url.Values{}
	if p.Limit != nil {
		q.Set("limit", strconv.Itoa(int(*p.Limit)))
	}
	if p.After != nil {
		q.Set("after", *p.After)
	}
	return c.deliveriesAt(ctx, c.webhookPath(id, "deliveries"), q)
}

func (c *Client) deliveriesAt(ctx context.Context, path string, q url.Values) (*DeliveryPage, error) {
	var page DeliveryPage
	h, err := c.getJSON(ctx, path, q, &page.Items)
	if err != nil {
		return nil, err
	}
	page.Next = nextLink(h)
	return &page, nil
}

// RedeliverWebhookDelivery queues a delivery's event again (same event id).
func (c *Client) RedeliverWebhookDelivery(ctx context.Context, id, deliveryID string) (*WebhookDelivery, error) {
	var d WebhookDelivery
	_, err := c.postJSON(ctx, c.webhookPath(id, "deliveries/"+url.PathEscape(deliveryID)+"/redeliver"), nil, false, &d)
	return ret(&d, err)
}

// RecoverWebhookDeliveries re-queues every failed delivery created since
// in.Since and answers how many.
func (c *Client) RecoverWebhookDeliveries(ctx context.Context, id string, in Recover) (int64, error) {
	var out struct{ Requeued int64 }
	_, err := c.postJSON(ctx, c.webhookPath(id, "recover"), in, false, &out)
	return out.Requeued, err
}

// EventPage is one page of the events API, oldest first.
type EventPage struct {
	Items []EventEnvelope
	// Next is the URL of the next page ("" when caught up).
	Next string
}

// ListEvents returns one page of the tenant's events.
func (c *Client) ListEvents(ctx context.Context, p ListEventsParams) (*EventPage, error) {
	return c.eventsAt(ctx, c.restPath("events"), eventsQuery(p))
}

func eventsQuery(p ListEventsParams) url.Values {
	q := url.Values{}
	if p.After != nil {
		q.Set("after", *p.After)
	}
	if p.Limit != nil {
		q.Set("limit", strconv.Itoa(int(*p.Limit)))
	}
	if p.Type != nil {
		for _, t := range *p.Type {
			q.Add("type", string(t))
		}
	}
	if p.LoadNumber != nil {
		q.Set("loadNumber", *p.LoadNumber)
	}
	if p.SubsidiaryId != nil {
		q.Set("subsidiaryId", p.SubsidiaryId.String())
	}
	if p.Since != nil {
		q.Set("since", p.Since.Format(time.RFC3339Nano))
	}
	if p.IncludePreviousAttributes != nil {
		q.Set("includePreviousAttributes", strconv.FormatBool(*p.IncludePreviousAttributes))
	}
	return q
}

func (c *Client) eventsAt(ctx context.Context, path string, q url.Values) (*EventPage, error) {
	var page EventPage
	h, err := c.getJSON(ctx, path, q, &page.Items)
	if err != nil {
		return nil, err
	}
	page.Next = nextLink(h)
	return &page, nil
}

// MaxUploadBytes is the largest document UploadDocument sends (the server's
// default bound).
const MaxUploadBytes = 25 << 20

// DocumentTarget is what a document is attached to.
type DocumentTarget string

// The targets of an upload, each with its route.
const (
	DocumentForLoad    DocumentTarget = "loads"
	DocumentForTrip    DocumentTarget = "trips"
	DocumentForDriver  DocumentTarget = "drivers"
	DocumentForCarrier DocumentTarget = "carriers"
)

// UploadDocument attaches one file (PDF, JPEG, PNG or GIF) to a load (by
// load number), a trip, a driver or a carrier (by id). The file is read
// into memory (at most MaxUploadBytes) so that a refused request can be
// sent again.
func (c *Client) UploadDocument(ctx context.Context, target DocumentTarget, id, documentType, fileName string, file io.Reader) (*Document, error) {
	data, err := io.ReadAll(io.LimitReader(file, MaxUploadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("haulgraph: reading the document: %w", err)
	}
	if len(data) > MaxUploadBytes {
		return nil, fmt.Errorf("haulgraph: the document is larger than %d bytes", MaxUploadBytes)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("DocumentType", documentType); err != nil {
		return nil, err
	}
	part, err := mw.CreateFormFile("File", fileName)
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(data); err != nil {
		return nil, err
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	var d Document
	_, err = c.call(ctx, request{method: http.MethodPost, path: c.restPath(string(target) + "/" + url.PathEscape(id) + "/document"),
		body: buf.Bytes(), ctype: mw.FormDataContentType()}, &d)
	return ret(&d, err)
}

// Download is a document's bytes, streamed; close it.
type Download struct {
	io.ReadCloser
	ContentType        string
	ContentDisposition string
}

// DownloadDocument fetches a signed download link (GraphQL's
// Document.downloadUrl); the signature is the credential, no token is sent.
func (c *Client) DownloadDocument(ctx context.Context, signedURL string) (*Download, error) {
	res, cancel, err := c.send(ctx, request{method: http.MethodGet, path: signedURL, accept: "*/*", idempotent: true, stream: true, noAuth: true})
	if err != nil {
		return nil, err
	}
	return &Download{ReadCloser: &cancelOnClose{ReadCloser: res.Body, cancel: cancel},
		ContentType: res.Header.Get("Content-Type"), ContentDisposition: res.Header.Get("Content-Disposition")}, nil
}

// RevokeToken revokes an access token of this client (RFC 7009); when it
// is the one in use, the next call fetches another.
func (c *Client) RevokeToken(ctx context.Context, token string) error {
	if c.clientID == "" {
		return fmt.Errorf("haulgraph: RevokeToken needs WithClientCredentials")
	}
	form := url.Values{"token": {token}, "client_id": {c.clientID}, "client_secret": {c.clientSecret}}
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/oauth/revoke", body: []byte(form.Encode()),
		ctype: "application/x-www-form-urlencoded", idempotent: true, noAuth: true}, nil)
	if err == nil {
		c.dropToken(&oauth2.Token{AccessToken: token})
	}
	return err
}

type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// ret returns v, or nil with err.
func ret[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}
