package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"
)

const triggerNotes = `Makes a real change to a load of the client's tenant through the public
GraphQL API, so that the event goes out on every channel (events API,
subscriptions, webhooks, haulgraph listen), and prints what it changed:
  load.changed          sets the load's poNumber to a new TRIGGER-… value
  load.status.changed   moves the load from Open to Quoted, or back (also emits load.changed)
  trip.changed          gives the load's first trip another trailer
Without --load, the newest load that fits is taken (Open or Quoted for a
status change, one with a trip for trip.changed). The client needs
load:read and load:update, and trip:update and trailer:read for trips.
`

// triggerTypes are the event types trigger can cause, as its actions.
var triggerTypes = []string{"load.changed", "load.status.changed", "trip.changed"}

func triggerActions() []action {
	actions := make([]action, len(triggerTypes))
	for i, t := range triggerTypes {
		actions[i] = action{name: t, synopsis: "[--load LD-…] [--api URL]", flags: []string{"load", "api", "client-id", "client-secret", "audience"}}
	}
	return actions
}

type triggerOptions struct {
	api  apiFlags
	load *string
}

func triggerFlags(fs *flag.FlagSet) triggerOptions {
	return triggerOptions{
		api:  defineAPIFlags(fs),
		load: fs.String("load", "", "the load number to change (default: the newest that fits)"),
	}
}

func triggerCmd(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError("trigger: no event type given")
	}
	kind := args[0]
	fs := flag.NewFlagSet("trigger "+kind, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := triggerFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(err.Error())
	}
	c, err := o.api.signIn(ctx)
	if err != nil {
		return err
	}
	switch kind {
	case "load.changed":
		return triggerLoadChanged(ctx, c, *o.load, stdout)
	case "load.status.changed":
		return triggerStatusChanged(ctx, c, *o.load, stdout)
	case "trip.changed":
		return triggerTripChanged(ctx, c, *o.load, stdout)
	}
	return usageError(fmt.Sprintf("trigger: unknown event type %q", kind))
}

type triggerTrip struct {
	ID         string  `json:"id"`
	TripNumber string  `json:"tripNumber"`
	TrailerID  *string `json:"trailerId"`
}

type triggerLoad struct {
	LoadNumber string        `json:"loadNumber"`
	Status     string        `json:"status"`
	PONumber   string        `json:"poNumber"`
	Trips      []triggerTrip `json:"trips"`
}

const triggerLoadFields = `loadNumber status poNumber trips { id tripNumber trailerId }`

// pickLoad is the load named, or the newest of statuses (any when none)
// that accepts (nil: any).
func pickLoad(ctx context.Context, c *apiClient, number string, statuses []string, accepts func(triggerLoad) bool) (triggerLoad, error) {
	if number != "" {
		var got struct{ Load *triggerLoad }
		if err := c.graphql(ctx, `query($n: String!) { load(loadNumber: $n) { `+triggerLoadFields+` } }`, map[string]any{"n": number}, &got); err != nil {
			return triggerLoad{}, err
		}
		if got.Load == nil {
			return triggerLoad{}, fmt.Errorf("no load %s", number)
		}
		return *got.Load, nil
	}
	filter := map[string]any{}
	if len(statuses) > 0 {
		filter["statuses"] = statuses
	}
	var after *string
	for range 5 { // at most 500 loads looked at
		var got struct {
			Loads struct {
				Items    []triggerLoad
				PageInfo struct {
					HasNextPage bool
					EndCursor   *string
				}
			}
		}
		q := `query($f: LoadFilter, $a: String) { loads(filter: $f, first: 100, after: $a) { items { ` + triggerLoadFields + ` } pageInfo { hasNextPage endCursor } } }`
		if err := c.graphql(ctx, q, map[string]any{"f": filter, "a": after}, &got); err != nil {
			return triggerLoad{}, err
		}
		for _, l := range got.Loads.Items {
			if accepts == nil || accepts(l) {
				return l, nil
			}
		}
		if !got.Loads.PageInfo.HasNextPage {
			break
		}
		after = got.Loads.PageInfo.EndCursor
	}
	return triggerLoad{}, fmt.Errorf("no load fits; name one with --load")
}

func triggerLoadChanged(ctx context.Context, c *apiClient, number string, w io.Writer) error {
	l, err := pickLoad(ctx, c, number, nil, nil)
	if err != nil {
		return fmt.Errorf("trigger load.changed: %w", err)
	}
	po := "TRIGGER-" + time.Now().UTC().Format("20060102-150405.000000")
	var got struct{ UpdateLoad triggerLoad }
	if err := c.graphql(ctx, `mutation($n: String!, $po: String!) { updateLoad(loadNumber: $n, input: {poNumber: $po}) { `+triggerLoadFields+` } }`,
		map[string]any{"n": l.LoadNumber, "po": po}, &got); err != nil {
		return fmt.Errorf("trigger load.changed: %w", err)
	}
	fmt.Fprintf(w, "load %s: poNumber %q -> %q (load.changed)\n", l.LoadNumber, l.PONumber, got.UpdateLoad.PONumber)
	return nil
}

func triggerStatusChanged(ctx context.Context, c *apiClient, number string, w io.Writer) error {
	l, err := pickLoad(ctx, c, number, []string{"Open", "Quoted"}, nil)
	if err != nil {
		return fmt.Errorf("trigger load.status.changed: %w", err)
	}
	next := map[string]string{"Open": "Quoted", "Quoted": "Open"}[l.Status]
	if next == "" {
		return fmt.Errorf("trigger load.status.changed: load %s is %s; it moves loads between Open and Quoted only: name another with --load", l.LoadNumber, l.Status)
	}
	var got struct{ ChangeLoadStatus triggerLoad }
	if err := c.graphql(ctx, `mutation($n: String!, $s: LoadStatus!) { changeLoadStatus(loadNumber: $n, status: $s) { `+triggerLoadFields+` } }`,
		map[string]any{"n": l.LoadNumber, "s": next}, &got); err != nil {
		return fmt.Errorf("trigger load.status.changed: %w", err)
	}
	fmt.Fprintf(w, "load %s: status %s -> %s (load.changed, load.status.changed)\n", l.LoadNumber, l.Status, got.ChangeLoadStatus.Status)
	return nil
}

func triggerTripChanged(ctx context.Context, c *apiClient, number string, w io.Writer) error {
	l, err := pickLoad(ctx, c, number, nil, func(l triggerLoad) bool { return len(l.Trips) > 0 })
	if err != nil {
		return fmt.Errorf("trigger trip.changed: %w", err)
	}
	if len(l.Trips) == 0 {
		return fmt.Errorf("trigger trip.changed: load %s has no trip: name another with --load", l.LoadNumber)
	}
	trip := l.Trips[0]
	var trailers struct {
		Trailers struct {
			Items []struct {
				ID         string  `json:"id"`
				TrailerNum *string `json:"trailerNum"`
			}
		}
	}
	if err := c.graphql(ctx, `{ trailers(first: 2) { items { id trailerNum } } }`, nil, &trailers); err != nil {
		return fmt.Errorf("trigger trip.changed: %w", err)
	}
	var to, toName string
	for _, t := range trailers.Trailers.Items {
		if trip.TrailerID == nil || t.ID != *trip.TrailerID {
			to, toName = t.ID, t.ID
			if t.TrailerNum != nil && *t.TrailerNum != "" {
				toName = *t.TrailerNum
			}
			break
		}
	}
	if to == "" {
		return fmt.Errorf("trigger trip.changed: the tenant needs two trailers to swap one")
	}
	var got struct{ UpdateTrip triggerTrip }
	if err := c.graphql(ctx, `mutation($id: ID!, $t: ID!) { updateTrip(id: $id, input: {trailerId: $t}) { id tripNumber trailerId } }`,
		map[string]any{"id": trip.ID, "t": to}, &got); err != nil {
		return fmt.Errorf("trigger trip.changed: %w", err)
	}
	from := "none"
	if trip.TrailerID != nil && *trip.TrailerID != "" {
		from = *trip.TrailerID
	}
	fmt.Fprintf(w, "trip %s of load %s: trailer %s -> %s (%s) (trip.changed)\n", trip.TripNumber, l.LoadNumber, from, to, toName)
	return nil
}
