package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// destinationsActions are the destinations command's: the webhooks
// command's over every destination type, create taking a type and its
// broker's settings.
func destinationsActions() []action {
	out := slices.Clone(webhooksActions)
	for i, a := range out {
		if a.name == "create" {
			a.synopsis = `--tenant SLUG --type TYPE --name NAME --url URL --events "..." [--subject-prefix P | --exchange X [--routing-key T]] [--creds-file FILE] [...]`
			a.notes = "TYPE is webhook, nats-jetstream or rabbitmq. A broker's credentials go in the URL\n" +
				"(amqps://user:password@host/vhost, tls://user:password@host:4222, tls://token@host:4222)\n" +
				"or, for NATS, in a creds file; they are sealed and never shown again. The broker is\n" +
				"connected to once before the destination is stored. Prints the signing secret, this once.\n"
			a.flags = append(slices.Clone(a.flags), "type", "subject-prefix", "exchange", "routing-key", "creds-file")
			a.required = append(slices.Clone(a.required), "type")
			out[i] = a
		}
	}
	return out
}

type destinationOpts struct {
	typ, subjectPrefix, exchange, routingKey, credsFile *string
}

// destinationFlags defines the destinations command's own flags on fs.
func destinationFlags(fs *flag.FlagSet) destinationOpts {
	return destinationOpts{
		typ:           fs.String("type", string(webhooks.TypeWebhook), "webhook, nats-jetstream or rabbitmq"),
		subjectPrefix: fs.String("subject-prefix", "", "NATS subject prefix (nats-jetstream)"),
		exchange:      fs.String("exchange", "", "exchange (rabbitmq)"),
		routingKey:    fs.String("routing-key", webhooks.DefaultRoutingKey, "routing-key template of {tenant}, {type} and {load} (rabbitmq)"),
		credsFile:     fs.String("creds-file", "", "NATS credentials file (user JWT and NKey seed) or NKey seed file"),
	}
}

// input adds the destination flags that were given to in.
func (o destinationOpts) input(in *webhooks.Input, set map[string]bool) error {
	if set["type"] {
		t := webhooks.Type(*o.typ)
		in.Type = &t
	}
	if set["subject-prefix"] || set["exchange"] || set["routing-key"] {
		in.Broker = &webhooks.Broker{SubjectPrefix: *o.subjectPrefix, Exchange: *o.exchange}
		if set["routing-key"] {
			in.Broker.RoutingKey = *o.routingKey
		}
	}
	if set["creds-file"] {
		b, err := os.ReadFile(*o.credsFile)
		if err != nil {
			return fmt.Errorf("--creds-file: %w", err)
		}
		in.Credentials = &webhooks.Credentials{Creds: string(b)}
	}
	return nil
}

// destinationsCmd manages every destination type as an operator acting for
// one tenant.
func destinationsCmd(ctx context.Context, args []string, stdout io.Writer) error {
	return manageCmd(ctx, args, stdout, &destinationOpts{})
}

// destinationJSON is webhookJSON with the type and a broker's settings.
func destinationJSON(w *webhooks.Webhook) map[string]any {
	out := webhookJSON(w)
	out["type"] = w.Type
	if w.Broker != nil {
		out["broker"] = w.Broker
	}
	return out
}
