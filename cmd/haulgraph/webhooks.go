package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage"
)

// webhooksActions are the webhooks command's actions, named as the REST
// routes name them.
var webhooksActions = []action{
	{name: "create", synopsis: `--tenant SLUG --name NAME --url URL --events "load.changed load.status.changed" [--subsidiary ID] [--include-previous-attributes] [--signature-scheme SCHEME]`,
		notes: "The signature scheme is fixed once created. Prints the signing secret, this once\n" +
			"(a standard-webhooks-ed25519 webhook has none: its publicKey verifies deliveries).\n",
		flags:    []string{"tenant", "name", "url", "events", "subsidiary", "include-previous-attributes", "signature-scheme"},
		required: []string{"tenant", "name", "url", "events"}},
	{name: "list", synopsis: "--tenant SLUG", flags: []string{"tenant"}, required: []string{"tenant"}},
	{name: "get", synopsis: "--tenant SLUG --id ID", flags: []string{"tenant", "id"}, required: []string{"tenant", "id"}},
	{name: "update", synopsis: `--tenant SLUG --id ID [--name NAME] [--url URL] [--events "..."] [--include-previous-attributes=true|false]`,
		flags: []string{"tenant", "id", "name", "url", "events", "include-previous-attributes"}, required: []string{"tenant", "id"}},
	{name: "enable", synopsis: "--tenant SLUG --id ID", notes: "Send Events on: sends the verification request.\n",
		flags: []string{"tenant", "id"}, required: []string{"tenant", "id"}},
	{name: "disable", synopsis: "--tenant SLUG --id ID", flags: []string{"tenant", "id"}, required: []string{"tenant", "id"}},
	{name: "rotate-secret", aliases: []string{"regenerate-secret"}, synopsis: "--tenant SLUG --id ID [--rotation-window 24h]",
		notes: "Prints the new signing secret, this once; the old one still signs (as v0) for the rotation window.\n",
		flags: []string{"tenant", "id", "rotation-window"}, required: []string{"tenant", "id"}},
	{name: "delete", synopsis: "--tenant SLUG --id ID", flags: []string{"tenant", "id"}, required: []string{"tenant", "id"}},
	{name: "redeliver", synopsis: "--tenant SLUG --id ID (--delivery DELIVERY_ID | --event EVENT_ID)",
		notes: "Queues the event of a delivery again for the webhook: a new delivery with the same event id.\n" +
			"--event (by event id) is deprecated: REST and GraphQL redeliver by delivery id.\n",
		flags: []string{"tenant", "id", "delivery", "event"}, required: []string{"tenant", "id"}},
	{name: "deliveries", synopsis: "--tenant SLUG --id ID [--limit 20]", flags: []string{"tenant", "id", "limit"}, required: []string{"tenant", "id"}},
	{name: "recover", synopsis: "--tenant SLUG --id ID --since TIME",
		notes: "Re-queues the failed deliveries since TIME (RFC 3339, or a duration ago such as 2h).\n",
		flags: []string{"tenant", "id", "since"}, required: []string{"tenant", "id", "since"}},
}

const webhooksNotes = "Output is JSON. Signing secrets are printed once, by create and rotate-secret.\n"

// checkWebhookFlags refuses malformed ids, schemes, limits and times
// before the database is opened.
func checkWebhookFlags(action string, fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		switch {
		case err != nil:
		case f.Name == "id" || f.Name == "subsidiary" || f.Name == "delivery":
			if _, e := uuid.Parse(v); e != nil || len(v) != 36 {
				err = fmt.Errorf("--%s %q is not an id", f.Name, v)
			}
		case f.Name == "signature-scheme" && !webhooks.SignatureScheme(v).Valid():
			err = fmt.Errorf("--signature-scheme %q: use service, standard-webhooks or standard-webhooks-ed25519", v)
		case f.Name == "limit":
			if n, _ := strconv.Atoi(v); n < 1 || n > 100 {
				err = fmt.Errorf("--limit %s: give 1 to 100", v)
			}
		case f.Name == "since":
			_, err = parseSince(v, time.Now())
		}
	})
	if err == nil && action == "redeliver" && (fs.Lookup("delivery").Value.String() == "") == (fs.Lookup("event").Value.String() == "") {
		err = errors.New("give one of --delivery and --event")
	}
	return err
}

type webhookOpts struct {
	tenant, id, name, url, events, subsidiary, scheme, eventID, since *string
	deliveryID                                                        *string
	prevAttrs                                                         *bool
	window                                                            *time.Duration
	limit                                                             *int
}

// webhookFlags defines the webhooks flags on fs: for running and for --help.
func webhookFlags(fs *flag.FlagSet) webhookOpts {
	return webhookOpts{
		tenant:     fs.String("tenant", "", "tenant slug (required)"),
		id:         fs.String("id", "", "webhook id"),
		name:       fs.String("name", "", "webhook name"),
		url:        fs.String("url", "", "endpoint URL (https)"),
		events:     fs.String("events", "", "space- or comma-separated event types"),
		subsidiary: fs.String("subsidiary", "", "subsidiary id"),
		prevAttrs:  fs.Bool("include-previous-attributes", false, "send data.diff.previousAttributes"),
		scheme:     fs.String("signature-scheme", string(webhooks.SchemeService), "how deliveries are signed: service, standard-webhooks or standard-webhooks-ed25519"),
		window:     fs.Duration("rotation-window", webhooks.DefaultRotationWindow, "how long the old secret still signs (v0)"),
		eventID:    fs.String("event", "", "event id to redeliver (deprecated: use --delivery)"),
		deliveryID: fs.String("delivery", "", "delivery whose event to redeliver"),
		limit:      fs.Int("limit", 20, "deliveries to list (at most 100)"),
		since:      fs.String("since", "", "recover: RFC 3339 time, or a duration ago (e.g. 2h)"),
	}
}

// webhooksCmd manages webhooks as an operator acting for one tenant.
func webhooksCmd(ctx context.Context, args []string, stdout io.Writer) error {
	return manageCmd(ctx, args, stdout, nil)
}

// manageCmd is the webhooks command, and with dest the destinations
// command (every type: its flags and its service).
func manageCmd(ctx context.Context, args []string, stdout io.Writer, dest *destinationOpts) error {
	if len(args) == 0 {
		return usageError("no action given")
	}
	action := args[0]
	fs := flag.NewFlagSet("webhooks "+action, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := webhookFlags(fs)
	if dest != nil {
		*dest = destinationFlags(fs)
	}
	tenant, id, name, url, events, subsidiary, prevAttrs := o.tenant, o.id, o.name, o.url, o.events, o.subsidiary, o.prevAttrs
	scheme, window, eventID, limit, since := o.scheme, o.window, o.eventID, o.limit, o.since
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *tenant == "" {
		return errors.New("--tenant is required")
	}
	a, err := openApp(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	tn, err := (&storage.Tenants{DB: a.DB}).TenantBySlug(ctx, *tenant)
	if domain.CodeOf(err) == domain.CodeNotFound {
		return fmt.Errorf("unknown tenant %q", *tenant)
	}
	if err != nil {
		return err
	}
	tenantID := tn.ID
	ctx = domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenantID, ClientID: "cli", Scopes: []domain.Scope{domain.ScopeWebhookManage}})
	svc, render := a.Webhooks.Service, webhookJSON
	if dest != nil {
		svc, render = a.Webhooks.Destinations, destinationJSON
	}
	webhookID := func() (uuid.UUID, error) {
		u, err := uuid.Parse(*id)
		if err != nil {
			return u, errors.New("--id must be a webhook id")
		}
		return u, nil
	}
	input := webhooks.Input{}
	if set["name"] {
		input.Name = name
	}
	if set["url"] {
		input.URL = url
	}
	if set["events"] {
		input.EventTypes = strings.FieldsFunc(*events, func(r rune) bool { return r == ' ' || r == ',' })
	}
	if set["include-previous-attributes"] {
		input.IncludePreviousAttributes = prevAttrs
	}
	if set["signature-scheme"] {
		s := webhooks.SignatureScheme(*scheme)
		input.SignatureScheme = &s
	}
	if dest != nil {
		if err := dest.input(&input, set); err != nil {
			return err
		}
	}

	var out any
	switch action {
	case "create":
		if set["subsidiary"] {
			s, err := uuid.Parse(*subsidiary)
			if err != nil {
				return errors.New("--subsidiary must be an id")
			}
			input.SubsidiaryID = &s
		}
		if input.EventTypes == nil {
			input.EventTypes = []string{}
		}
		w, secret, err := svc.Create(ctx, input)
		if err != nil {
			return err
		}
		out = withSecret(render(w), secret)
	case "list":
		ws, err := svc.List(ctx)
		if err != nil {
			return err
		}
		list := make([]map[string]any, len(ws))
		for i := range ws {
			list[i] = render(&ws[i])
		}
		out = list
	case "get", "update", "enable", "disable", "delete", "rotate-secret", "redeliver", "deliveries", "recover":
		wid, err := webhookID()
		if err != nil {
			return err
		}
		var w *webhooks.Webhook
		switch action {
		case "get":
			w, err = svc.Get(ctx, wid)
		case "update":
			w, err = svc.Update(ctx, wid, input)
		case "enable":
			w, err = svc.Enable(ctx, wid)
		case "disable":
			w, err = svc.Disable(ctx, wid)
		case "delete":
			err = svc.Delete(ctx, wid)
			out = map[string]any{"deleted": wid}
		case "rotate-secret":
			var secret string
			if w, secret, err = svc.RegenerateSecret(ctx, wid, window); err == nil {
				out = withSecret(render(w), secret)
			}
		case "redeliver":
			var d *webhooks.Delivery
			if *o.deliveryID != "" {
				d, err = svc.RedeliverDelivery(ctx, wid, uuid.MustParse(*o.deliveryID))
			} else {
				d, err = svc.Redeliver(ctx, wid, *eventID)
			}
			if err == nil {
				out = deliveryJSON(d)
			}
		case "recover":
			var from time.Time
			if from, err = parseSince(*since, time.Now()); err == nil {
				var n int
				if n, err = svc.Recover(ctx, wid, from); err == nil {
					out = map[string]any{"webhookId": wid, "since": from.Format(time.RFC3339), "requeued": n}
				}
			}
		case "deliveries":
			var ds []webhooks.Delivery
			if ds, err = svc.Deliveries(ctx, wid, *limit); err == nil {
				list := make([]map[string]any, len(ds))
				for i := range ds {
					list[i] = deliveryJSON(&ds[i])
				}
				out = list
			}
		}
		if err != nil {
			return err
		}
		if out == nil {
			out = render(w)
		}
	default:
		return usageError(fmt.Sprintf("unknown action %q", action))
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func webhookJSON(w *webhooks.Webhook) map[string]any {
	out := map[string]any{
		"id": w.ID, "name": w.Name, "url": w.URL, "eventTypes": w.EventTypes, "subsidiaryId": w.SubsidiaryID,
		"includePreviousAttributes": w.IncludePreviousAttributes, "signatureScheme": w.SignatureScheme, "publicKey": nil,
		"state": w.State, "stateLabel": w.State.Label(),
		"stateReason": w.StateReason, "rotationEndsAt": w.RotationEndsAt, "createdAt": w.CreatedAt.Format(time.RFC3339),
	}
	if w.PublicKey != "" {
		out["publicKey"] = w.PublicKey
	}
	return out
}

// withSecret is create's and rotate-secret's answer: the secret, when
// the scheme has one to show.
func withSecret(w map[string]any, secret string) map[string]any {
	out := map[string]any{"webhook": w}
	if secret != "" {
		out["secret"] = secret
	}
	return out
}

func deliveryJSON(d *webhooks.Delivery) map[string]any {
	attempts := make([]map[string]any, len(d.Attempts))
	for i, a := range d.Attempts {
		attempts[i] = map[string]any{"id": a.ID, "attempt": a.Attempt, "statusCode": a.StatusCode, "latencyMs": a.LatencyMS,
			"error": a.Error, "attemptedAt": a.AttemptedAt.Format(time.RFC3339), "signatureScheme": a.SignatureScheme}
	}
	return map[string]any{"id": d.ID, "eventId": d.EventID, "eventType": d.EventType, "status": d.Status, "attempt": d.Attempt,
		"nextAttemptAt": d.NextAttemptAt, "createdAt": d.CreatedAt.Format(time.RFC3339), "signatureScheme": d.SignatureScheme,
		"attempts": attempts}
}

// parseSince reads --since: an RFC 3339 time, or a duration before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, errors.New("--since must be an RFC 3339 time or a duration such as 2h")
}
