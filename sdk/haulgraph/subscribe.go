package haulgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"
)

// SubscribeParams choose a live subscription. Every field is optional.
type SubscribeParams struct {
	// Type is EventLoadChanged (default, scope load:read),
	// EventLoadStatusChanged or EventTripChanged (trip:read).
	Type         EventType
	LoadNumbers  []string
	Statuses     []LoadStatus
	SubsidiaryID string
	// IncludePreviousAttributes fills Diff.PreviousAttributes.
	IncludePreviousAttributes bool
	// After is a cursor or an event id: start with what followed it.
	// Empty: the next event.
	After string
	// MaxReconnects bounds consecutive failed connections (default 10); a
	// delivered event resets the count.
	MaxReconnects int
	// OnReconnect, when set, is told of every reconnect: the error that
	// ended the connection and the cursor it resumes after.
	OnReconnect func(err error, after string)
}

const eventFields = `id cursor type timestamp version`

var subscriptions = map[EventType]struct{ field, query string }{
	EventLoadChanged: {"loadChanged", `subscription LoadChanged($filter: LoadEventFilter, $prev: Boolean, $after: String) {
  loadChanged(filter: $filter, includePreviousAttributes: $prev, after: $after) {
    ` + eventFields + ` data { load { ` + loadFields + ` } diff { changes { kind target { type id } } previousAttributes } }
  }
}`},
	EventLoadStatusChanged: {"loadStatusChanged", `subscription LoadStatusChanged($filter: LoadEventFilter, $after: String) {
  loadStatusChanged(filter: $filter, after: $after) {
    ` + eventFields + ` data { load { ` + loadFields + ` } }
  }
}`},
	EventTripChanged: {"tripChanged", `subscription TripChanged($filter: LoadEventFilter, $prev: Boolean, $after: String) {
  tripChanged(filter: $filter, includePreviousAttributes: $prev, after: $after) {
    ` + eventFields + ` data { trip { id tripNumber } load { ` + loadFields + ` } diff { changes { kind target { type id } } previousAttributes } }
  }
}`},
}

// Subscribe follows events live over WebSocket (graphql-transport-ws)
// until ctx ends, the loop breaks, or the server refuses the subscription
// (an *Error: CURSOR_EXPIRED, BAD_USER_INPUT, FORBIDDEN). When the
// connection drops it connects again and subscribes after the last event it
// yielded, so the server replays exactly what followed: no gap, no
// duplicate.
func (s *EventService) Subscribe(ctx context.Context, p *SubscribeParams) iter.Seq2[Event, error] {
	o := SubscribeParams{}
	if p != nil {
		o = *p
	}
	if o.Type == "" {
		o.Type = EventLoadChanged
	}
	c := s.c
	return func(yield func(Event, error) bool) {
		sub, ok := subscriptions[o.Type]
		if !ok {
			yield(Event{}, fmt.Errorf("haulgraph: no subscription to %q", o.Type))
			return
		}
		after := o.After
		maxReconnects := o.MaxReconnects
		if maxReconnects <= 0 {
			maxReconnects = 10
		}
		filter := map[string]any{}
		if len(o.LoadNumbers) > 0 {
			filter["loadNumbers"] = o.LoadNumbers
		}
		if len(o.Statuses) > 0 {
			filter["statuses"] = o.Statuses
		}
		set(filter, "subsidiaryId", o.SubsidiaryID)
		failures := 0
		for {
			vars := map[string]any{}
			if len(filter) > 0 {
				vars["filter"] = filter
			}
			if o.Type != EventLoadStatusChanged {
				vars["prev"] = o.IncludePreviousAttributes
			}
			if after != "" {
				vars["after"] = after
			}
			stopped := false
			err := c.subscribeOnce(ctx, sub.query, vars, func(raw json.RawMessage) error {
				var data map[string]Event
				if err := json.Unmarshal(raw, &data); err != nil {
					return fmt.Errorf("haulgraph: decoding %s: %w", sub.field, err)
				}
				e := data[sub.field]
				after, failures = e.Cursor, 0
				if !yield(e, nil) {
					stopped = true
					return errStop
				}
				return nil
			})
			if stopped || errors.Is(err, errCompleted) {
				return
			}
			if ctx.Err() != nil {
				yield(Event{}, ctx.Err())
				return
			}
			var apiErr *Error
			if errors.As(err, &apiErr) && !retryableRefusal(apiErr) || isFinalClose(err) {
				yield(Event{}, err)
				return
			}
			failures++
			if failures > maxReconnects {
				yield(Event{}, fmt.Errorf("haulgraph: %s: giving up after %d reconnects: %w", sub.field, maxReconnects, err))
				return
			}
			if o.OnReconnect != nil {
				o.OnReconnect(err, after)
			}
			wait := c.backoff(failures - 1)
			if apiErr != nil && apiErr.RetryAfter > 0 {
				wait = min(apiErr.RetryAfter, c.cfg.maxWait)
			}
			if err := c.cfg.sleep(ctx, wait); err != nil {
				yield(Event{}, err)
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
	var ce *wsCloseError
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
	u := *c.cfg.base
	u.Scheme = map[string]string{"https": "wss", "http": "ws"}[u.Scheme]
	u.Path = "/graphql"
	conn, res, err := dialWS(ctx, c.cfg.http, &u, "graphql-transport-ws", http.Header{"User-Agent": {c.cfg.userAgent}})
	if err != nil {
		if res != nil && res.StatusCode >= 400 {
			return readError(res, c.cfg.now())
		}
		if res != nil {
			res.Body.Close()
		}
		return fmt.Errorf("haulgraph: subscribe: %w", err)
	}
	// The connection is closed when ctx ends, which ends the read below;
	// this function waits for the watcher before it returns.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
		case <-done:
		}
		conn.Close()
	}()
	defer func() { close(done); wg.Wait() }()

	write := func(m wsMessage) error { return conn.write(opText, jsonBody(m)) }
	init := jsonBody(map[string]string{"Authorization": "Bearer " + tok.AccessToken})
	if err := write(wsMessage{Type: "connection_init", Payload: init}); err != nil {
		return err
	}
	sub := jsonBody(map[string]any{"query": query, "variables": vars})
	for {
		raw, err := conn.readMessage()
		if err != nil {
			// 4401: the token expired or was refused; reconnect with another.
			var ce *wsCloseError
			if errors.As(err, &ce) && ce.Code == 4401 {
				c.dropToken(tok.AccessToken)
			}
			return err
		}
		var m wsMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("haulgraph: a message that is not JSON: %w", err)
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
