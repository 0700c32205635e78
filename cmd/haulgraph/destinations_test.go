package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/haulgraph/haulgraph/brokertest"
)

// The destinations command creates a JetStream destination (the broker is
// connected to, the token taken out of the URL), and lists it beside the
// webhooks, which the webhooks command lists alone.
func TestDestinationsCLI(t *testing.T) {
	ctx := context.Background()
	sub := webhookCLIEnv(t)
	srv, err := brokertest.NATS(t.TempDir(), "--auth", "tok3n")
	if err == nil {
		err = srv.Start(10 * time.Second)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := nats.Connect("nats://"+srv.Addr, nats.Token("tok3n"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"erp.>"}}); err != nil {
		t.Fatal(err)
	}
	run := func(cmd func(context.Context, []string, *bytes.Buffer) error, args ...string) any {
		t.Helper()
		var out bytes.Buffer
		if err := cmd(ctx, args, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var v any
		_ = json.Unmarshal(out.Bytes(), &v)
		return v
	}
	dests := func(ctx context.Context, args []string, out *bytes.Buffer) error {
		return destinationsCmd(ctx, args, out)
	}
	hooks := func(ctx context.Context, args []string, out *bytes.Buffer) error { return webhooksCmd(ctx, args, out) }
	created := run(dests, "create", "--tenant", "acme", "--type", "nats-jetstream", "--name", "erp", "--url", "nats://tok3n@"+srv.Addr,
		"--subject-prefix", "erp", "--events", "load.changed", "--subsidiary", sub.String()).(map[string]any)
	d, _ := created["webhook"].(map[string]any)
	if d["type"] != "nats-jetstream" || d["state"] != "Active" || d["url"] != "nats://"+srv.Addr || !strings.HasPrefix(created["secret"].(string), "whsec_") {
		t.Fatalf("create printed %v", created)
	}
	if list := run(dests, "list", "--tenant", "acme").([]any); len(list) != 1 {
		t.Fatalf("destinations list: %v", list)
	}
	if list := run(hooks, "list", "--tenant", "acme").([]any); len(list) != 0 {
		t.Fatalf("webhooks list shows a broker destination: %v", list)
	}
	var out bytes.Buffer
	err = destinationsCmd(ctx, []string{"create", "--tenant", "acme", "--type", "nats-jetstream", "--name", "x", "--url", "nats://wrong@" + srv.Addr,
		"--subject-prefix", "erp", "--events", "load.changed", "--subsidiary", sub.String()}, &out)
	if err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Fatalf("a wrong token: %v", err)
	}
}
