package haulgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Live subscriptions over WebSocket (graphql-transport-ws). Each event
// carries a cursor; when the connection drops, the iterator connects again
// and subscribes with after: the last cursor it yielded, so the server
// replays exactly what followed it: no gap and no duplicate.

// EventDiff is what a write changed.
type EventDiff struct {
	Changes []struct {
		Kind   string `json:"kind"`
		Target *struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"target"`
	} `json:"changes"`
	PreviousAttributes map[string]json.RawMessage `json:"previousAttributes"`
}

// LoadEvent is a load.changed or load.status.changed event.
type LoadEvent struct {
	ID        string `json:"id"`
	Cursor    string `json:"cursor"`
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Version   string `json:"version"`
	Data      struct {
		Load BoardLoad  `json:"load"`
		Diff *EventDiff `json:"diff"`
	} `json:"data"`
}

// TripEvent is a trip.changed event.
type TripEvent struct {
	ID        string `json:"id"`
	Cursor    string `json:"cursor"`
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Version   string `json:"version"`
	Data      struct {
		Trip Trip       `json:"trip"`
		Load BoardLoad  `json:"load"`
		Diff *EventDiff `json:"diff"`
	} `json:"data"`
}

// LoadEventFilter selects the events of a subscription; empty matches all.
type LoadEventFilter struct {
	LoadNumbers  []string `json:"loadNumbers,omitempty"`
	Statuses     []string `json:"statuses,omitempty"`
	SubsidiaryID string   `json:"subsidiaryId,omitempty"`
}

// SubscribeOptions tune a subscription.
type SubscribeOptions struct {
	Filter                    *LoadEventFilter
	IncludePreviousAttributes bool
	// After is a cursor (or an event id): start with what followed it.
	// Empty: the next event.
	After string
	// MaxRetries bounds consecutive failed connections (default 10); a
	// delivered event resets the count.
	MaxRetries int
	// OnReconnect, when set, is told of every reconnect: the error that
	// ended the connection and the cursor it resumes after.
	OnReconnect func(err error, after string)
}

const eventFields = `id cursor type timestamp version`

// LoadChanged yields load.changed events (load:read) until ctx ends, the
// loop breaks, or the server refuses the subscription (an *Error:
// CURSOR_EXPIRED, BAD_USER_INPUT, FORBIDDEN).
func (c *Client) LoadChanged(ctx context.Context, o SubscribeOptions) iter.Seq2[LoadEvent, error] {
	q := `subscription LoadChanged($filter: LoadEventFilter, $prev: Boolean, $after: String) {
  loadChanged(filter: $filter, includePreviousAttributes: $prev, after: $after) {
    ` + eventFields + ` data { load { ` + boardLoadFields + ` } diff { changes { kind target { type id } } previousAttributes } }
  }
}`
	return subscribe(c, ctx, "loadChanged", q, o, true, func(e LoadEvent) string { return e.Cursor })
}

// LoadStatusChanged yields load.status.changed events (load:read).
func (c *Client) LoadStatusChanged(ctx context.Context, o SubscribeOptions) iter.Seq2[LoadEvent, error] {
	q := `subscription LoadStatusChanged($filter: LoadEventFilter, $after: String) {
  loadStatusChanged(filter: $filter, after: $after) {
    ` + eventFields + ` data { load { ` + boardLoadFields + ` } }
  }
}`
	return subscribe(c, ctx, "loadStatusChanged", q, o, false, func(e LoadEvent) string { return e.Cursor })
}

// TripChanged yields trip.changed events (trip:read).
func (c *Client) TripChanged(ctx context.Context, o SubscribeOptions) iter.Seq2[TripEvent, error] {
	q := `subscription TripChanged($filter: LoadEventFilter, $prev: Boolean, $after: String) {
  tripChanged(filter: $filter, includePreviousAttributes: $prev, after: $after) {
    ` + eventFields + ` data { trip { id tripNumber } load { ` + boardLoadFields + ` } diff { changes { kind target { type id } } previousAttributes } }
  }
}`
	return subscribe(c, ctx, "tripChanged", q, o, true, func(e TripEvent) string { return e.Cursor })
}

func subscribe[T any](c *Client, ctx context.Context, field, query string, o SubscribeOptions, prev bool, cursor func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		after := o.After
		maxRetries := o.MaxRetries
		if maxRetries <= 0 {
			maxRetries = 10
		}
		failures := 0
		for {
			vars := map[string]any{}
			if o.Filter != nil {
				vars["filter"] = o.Filter
			}
			if prev {
				vars["prev"] = o.IncludePreviousAttributes
			}
			if after != "" {
				vars["after"] = after
			}
			stopped := false
			err := c.subscribeOnce(ctx, query, vars, func(raw json.RawMessage) error {
				var data map[string]json.RawMessage
				if err := json.Unmarshal(raw, &data); err != nil {
					return err
				}
				var v T
				if err := json.Unmarshal(data[field], &v); err != nil {
					return fmt.Errorf("haulgraph: decoding %s: %w", field, err)
				}
				after, failures = cursor(v), 0
				if !yield(v, nil) {
					stopped = true
					return errStop
				}
				return nil
			})
			if stopped || errors.Is(err, errCompleted) {
				return
			}
			if ctx.Err() != nil {
				yield(zero, ctx.Err())
				return
			}
			var apiErr *Error
			if errors.As(err, &apiErr) && !retryableRefusal(apiErr) || isFinalClose(err) {
				yield(zero, err)
				return
			}
			failures++
			if failures > maxRetries {
				yield(zero, fmt.Errorf("haulgraph: %s: giving up after %d reconnects: %w", field, maxRetries, err))
				return
			}
			if o.OnReconnect != nil {
				o.OnReconnect(err, after)
			}
			wait := min(100*time.Millisecond<<(failures-1), 10*time.Second)
			if apiErr != nil && apiErr.RetryAfter > wait {
				wait = apiErr.RetryAfter
			}
			if err := c.sleep(ctx, wait); err != nil {
				yield(zero, err)
				return
			}
		}
	}
}

var (
	errStop      = errors.New("haulgraph: subscription stopped")
	errCompleted = errors.New("haulgraph: the server completed the subscription")
)

// retryableRefusal: a refusal that passes with time (rate limits, an
// instance that cannot answer now); any other is final.
func retryableRefusal(e *Error) bool {
	return e.Code == "RATE_LIMITED" || e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusServiceUnavailable
}

// isFinalClose: close codes that a reconnect cannot mend (a message the
// server did not understand, an id in use).
func isFinalClose(err error) bool {
	var ce *websocket.CloseError
	return errors.As(err, &ce) && (ce.Code == 4400 || ce.Code == 4409)
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// subscribeOnce runs one connection with one subscription, handing each
// next payload's data to onNext, until an error ends it.
func (c *Client) subscribeOnce(ctx context.Context, query string, vars map[string]any, onNext func(json.RawMessage) error) error {
	tok, err := c.Token(ctx)
	if err != nil {
		return err
	}
	u := *c.base
	u.Scheme = map[string]string{"https": "wss", "http": "ws"}[c.base.Scheme]
	u.Path = "/graphql"
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 10 * time.Second, Proxy: http.ProxyFromEnvironment}
	// The same TLS settings and proxy as the HTTP client's.
	if tr, ok := c.http.Transport.(*http.Transport); ok {
		d.TLSClientConfig, d.Proxy = tr.TLSClientConfig, tr.Proxy
	}
	conn, res, err := d.DialContext(ctx, u.String(), http.Header{"User-Agent": {c.userAgent}})
	if err != nil {
		if res != nil {
			return readError(res)
		}
		return fmt.Errorf("haulgraph: subscribe: %w", err)
	}
	// The connection is closed when ctx ends, which ends the read below;
	// this function waits for the watcher before it returns.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-ctx.Done():
		case <-done:
		}
		conn.Close()
	})
	defer func() { close(done); wg.Wait() }()

	write := func(m wsMessage) error { return conn.WriteJSON(m) }
	init, _ := json.Marshal(map[string]string{"Authorization": "Bearer " + tok.AccessToken})
	if err := write(wsMessage{Type: "connection_init", Payload: init}); err != nil {
		return err
	}
	sub, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	for {
		var m wsMessage
		if err := conn.ReadJSON(&m); err != nil {
			// 4401: the token expired or was refused; reconnect with another.
			if websocket.IsCloseError(err, 4401) {
				c.dropToken(tok)
			}
			return err
		}
		switch m.Type {
		case "connection_ack":
			if err := write(wsMessage{ID: "1", Type: "subscribe", Payload: sub}); err != nil {
				return err
			}
		case "ping":
			if err := write(wsMessage{Type: "pong"}); err != nil {
				return err
			}
		case "next":
			var p struct {
				Data   json.RawMessage `json:"data"`
				Errors []gqlError      `json:"errors"`
			}
			if err := json.Unmarshal(m.Payload, &p); err != nil {
				return err
			}
			if len(p.Errors) > 0 {
				e := &Error{}
				p.Errors[0].fill(e)
				return e
			}
			if err := onNext(p.Data); err != nil {
				if errors.Is(err, errStop) {
					_ = write(wsMessage{ID: "1", Type: "complete"})
				}
				return err
			}
		case "error":
			var errs []gqlError
			e := &Error{Detail: string(m.Payload)}
			if json.Unmarshal(m.Payload, &errs) == nil && len(errs) > 0 {
				errs[0].fill(e)
			}
			return e
		case "complete":
			return errCompleted
		}
	}
}
