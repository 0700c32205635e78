package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/events/webhook"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// received is one request the local receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver is the integrator's local endpoint: it records every request and
// answers 503 to the first one (so listen has to try it again).
type receiver struct {
	mu   sync.Mutex
	got  []received
	seen int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.seen++
	if rc.seen == 1 {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	rc.got = append(rc.got, received{header: r.Header.Clone(), body: body})
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestListenForwardsTriggeredEvents: `haulgraph listen --forward-to` (the
// built binary) forwards the events that three `haulgraph trigger` runs
// cause, each the events API's envelope byte for byte, with a delivery's
// headers, signed with the secret listen printed (webhooksig verifies it); a
// receiver's failure is tried again; a restarted listen, with the same
// secret, forwards what happened while it was stopped and nothing it had
// forwarded already, only the types asked for, signed in the Standard
// Webhooks schemes when asked (HMAC, then ed25519 with a printed public key).
func TestListenForwardsTriggeredEvents(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	res, err := seed.Run(context.Background(), srv.DB, seed.Options{Tenant: "cli", Scale: 1})
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	tn := apptest.Tenant{ID: res.TenantID, Slug: "cli", SubsidiaryID: res.SubsidiaryID}
	id, secret := srv.Client(t, tn, domain.ScopeLoadRead, domain.Scope("load:update"), domain.ScopeTripRead, domain.ScopeTripUpdate, domain.ScopeTrailerRead)
	token := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead)
	rc := &receiver{}
	hooks := httptest.NewServer(rc)
	t.Cleanup(hooks.Close)
	home := t.TempDir()
	env := apptest.CleanEnv("HAULGRAPH_CLIENT_ID="+id, "HAULGRAPH_CLIENT_SECRET="+secret, "HOME="+home, "XDG_CONFIG_HOME="+home)
	bin := haulgraphBinary(t)

	listen := func(args ...string) (*exec.Cmd, *apptest.LockedBuffer) {
		cmd := exec.Command(bin, append([]string{"listen", "--forward-to", hooks.URL + "/hooks", "--api", srv.URL, "--interval", "100ms"}, args...)...)
		cmd.Env, cmd.Dir = env, t.TempDir()
		out, errOut := &apptest.LockedBuffer{}, &apptest.LockedBuffer{}
		cmd.Stdout, cmd.Stderr = out, errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		waitUntil(t, 60*time.Second, "listen printed no Ready line; stderr: "+errOut.String(), func() bool {
			return strings.Contains(out.String(), "Starting from") || strings.Contains(out.String(), "Resuming after")
		})
		return cmd, out
	}
	stop := func(cmd *exec.Cmd, out *apptest.LockedBuffer) {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("listen after Ctrl-C: %v\n%s", err, out)
		}
		if !strings.HasSuffix(out.String(), "Stopped\n") {
			t.Fatalf("listen did not say it stopped:\n%s", out)
		}
	}
	trigger := func(kind, want string) {
		cmd := exec.Command(bin, "trigger", kind, "--api", srv.URL)
		cmd.Env, cmd.Dir = env, t.TempDir()
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil || !regexp.MustCompile(want).MatchString(out.String()) {
			t.Fatalf("trigger %s: %v\nstdout %q; want %q\nstderr %s", kind, err, out.String(), want, errOut.String())
		}
	}
	// events lists what the events API holds for the tenant since start.
	start := time.Now()
	events := func() []json.RawMessage {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/p/v1/events?limit=100&since="+url.QueryEscape(start.UTC().Format(time.RFC3339Nano)), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list []json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		return list
	}
	type envelope struct{ ID, Type string }
	parse := func(b []byte) envelope {
		var e envelope
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	// check: the events API now holds total events since start; of those
	// from from on, the ones of types (nil: all) are what the receiver got
	// since the last check, in order, each the same bytes with a delivery's
	// headers, verified by verify.
	var expected []json.RawMessage
	check := func(from, total int, types []string, verify func(r received) error) {
		t.Helper()
		var want []json.RawMessage
		waitUntil(t, 60*time.Second, "the events never reached the events API", func() bool {
			want = events()
			return len(want) >= total
		})
		if len(want) != total {
			t.Fatalf("the events API holds %d events; want %d", len(want), total)
		}
		before := len(expected)
		for _, w := range want[from:] {
			if types == nil || slices.Contains(types, parse(w).Type) {
				expected = append(expected, w)
			}
		}
		waitUntil(t, 60*time.Second, "the receiver did not get every event", func() bool { return len(rc.all()) >= len(expected) })
		got := rc.all()
		if len(got) != len(expected) {
			var ids []string
			for _, r := range got {
				ids = append(ids, r.header.Get(webhooksig.EventHeader)+" "+r.header.Get(webhooksig.EventIDHeader))
			}
			t.Fatalf("receiver got %d requests; want %d: %q", len(got), len(expected), ids)
		}
		for i := before; i < len(expected); i++ {
			e, r := parse(expected[i]), got[i]
			if !bytes.Equal(r.body, expected[i]) {
				t.Errorf("event %d: forwarded body\n%s\nis not the events API's\n%s", i, r.body, expected[i])
			}
			if r.header.Get(webhooksig.EventIDHeader) != e.ID || r.header.Get(webhooksig.EventHeader) != e.Type ||
				r.header.Get("User-Agent") != webhook.UserAgent || r.header.Get(webhooksig.DeliveryHeader) == "" ||
				!strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
				t.Errorf("event %d (%s %s): headers %v", i, e.Type, e.ID, r.header)
			}
			if err := verify(r); err != nil {
				t.Errorf("event %d (%s): signature: %v", i, e.Type, err)
			}
		}
	}

	// forwarded waits for listen's lines of n forwards and returns them.
	// listen prints a forward's line once its answer is in, which may be
	// after the receiver recorded the request, and saves its position right
	// after: an interrupt before the line makes the next run send that event
	// again (at least once), so a run is stopped only after its lines.
	lineRE := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d  (\S+) +(\S+)  --> \[(\d+)\] POST \S+/hooks(.*)$`)
	forwarded := func(out *apptest.LockedBuffer, n int) [][]string {
		t.Helper()
		var lines [][]string
		waitUntil(t, 60*time.Second, fmt.Sprintf("listen printed fewer than %d forwards", n), func() bool {
			lines = lineRE.FindAllStringSubmatch(out.String(), -1)
			return len(lines) >= n
		})
		return lines
	}

	first, out := listen()
	m := regexp.MustCompile(`signing secret is (whsec_\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("listen printed no signing secret:\n%s", out)
	}
	whsec := m[1]
	trigger("load.changed", `^load LD-\S+: poNumber ".*" -> "TRIGGER-\S+" \(load.changed\)\n$`)
	trigger("load.status.changed", `^load LD-\S+: status (Open -> Quoted|Quoted -> Open) `)
	trigger("trip.changed", `^trip \S+ of load LD-\S+: trailer \S+ -> \S+ `)
	check(0, 4, nil, func(r received) error {
		if r.header.Get(webhooksig.TimestampHeader) == "" {
			return webhooksig.ErrMalformed
		}
		return webhooksig.Verify(r.body, r.header.Get(webhooksig.SignatureHeader), whsec, webhooksig.DefaultTolerance)
	})
	var types []string
	for _, r := range rc.all() {
		types = append(types, r.header.Get(webhooksig.EventHeader))
	}
	if want := []string{"load.changed", "load.changed", "load.status.changed", "trip.changed"}; !slices.Equal(types, want) {
		t.Fatalf("forwarded %v; want %v", types, want)
	}
	lines := forwarded(out, 4)
	if len(lines) != 4 || lines[0][3] != "204" || lines[0][4] != " (2 attempts)" || lines[3][1] != "trip.changed" {
		t.Fatalf("listen's lines (the first forward answered 503, then 204):\n%s", out)
	}
	stop(first, out)

	// While listen is stopped: one more event, which the next run resumes
	// to; that run forwards only the types asked for.
	trigger("trip.changed", `\(trip.changed\)`)
	again, out2 := listen("--scheme", "standard-webhooks", "--events", "trip.changed, load.status.changed")
	last := parse(events()[3]).ID
	if !strings.Contains(out2.String(), "Resuming after "+last) || !strings.Contains(out2.String(), "signing secret is "+whsec+"\n") {
		t.Fatalf("restarted listen, after %s with secret %s, printed:\n%s", last, whsec, out2)
	}
	trigger("load.status.changed", `\(load.changed, load.status.changed\)`)
	wh, err := standardwebhooks.NewWebhook(whsec)
	if err != nil {
		t.Fatal(err)
	}
	check(4, 7, []string{"trip.changed", "load.status.changed"}, func(r received) error { return wh.Verify(r.body, r.header) })
	if n := len(rc.all()); n != 6 {
		t.Fatalf("receiver got %d events; want the 4 of the first run, the trip.changed and the load.status.changed", n)
	}
	if lines := forwarded(out2, 2); len(lines) != 2 {
		t.Fatalf("the second run's lines:\n%s", out2)
	}
	stop(again, out2)

	// The asymmetric scheme: listen prints this machine's public key, and
	// each forward carries a v1a signature it verifies.
	third, out3 := listen("--scheme", "standard-webhooks-ed25519")
	m = regexp.MustCompile(`public key is (whpk_\S+)`).FindStringSubmatch(out3.String())
	if m == nil || strings.Contains(out3.String(), whsec) {
		t.Fatalf("listen with ed25519 printed no public key, or the HMAC secret:\n%s", out3)
	}
	trigger("load.changed", `\(load.changed\)`)
	check(7, 8, nil, func(r received) error {
		return webhooksig.VerifyStandardEd25519(r.body, r.header, m[1], webhooksig.DefaultTolerance, time.Now())
	})
	if lines := forwarded(out3, 1); len(lines) != 1 {
		t.Fatalf("the third run's lines:\n%s", out3)
	}
	stop(third, out3)
	// Every event the triggers caused was checked against the published
	// schemas where the server appended it to its outbox (apptest).
	if got := srv.EmittedChecked()[eventlog.ChannelOutbox]; got != 8 {
		t.Fatalf("%d outbox envelopes checked against the schemas, want the triggers' 8", got)
	}

	// A position the events API no longer keeps (an event id it never had)
	// is said on stderr and listen goes on from now; one that is no position
	// at all fails listen with the API's complaint.
	gone, outGone := listen("--from", "00000000-0000-4000-8000-000000000000-0")
	waitUntil(t, 30*time.Second, "listen did not report the lost position", func() bool {
		return strings.Contains(gone.Stderr.(*apptest.LockedBuffer).String(), "no longer kept")
	})
	stop(gone, outGone)
	bad := exec.Command(bin, "listen", "--forward-to", hooks.URL+"/hooks", "--api", srv.URL, "--from", "not-a-cursor")
	bad.Env, bad.Dir = env, t.TempDir()
	var badErr bytes.Buffer
	bad.Stderr = &badErr
	if err := bad.Run(); bad.ProcessState.ExitCode() != 1 || !strings.Contains(badErr.String(), "HTTP 400") || !strings.Contains(badErr.String(), "after: ") {
		t.Fatalf("listen --from not-a-cursor: %v, stderr %q; want exit 1 naming after", err, badErr.String())
	}
	if n := len(rc.all()); n != 7 {
		t.Fatalf("receiver got %d events; want 7", n)
	}
}
