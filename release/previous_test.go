package release

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/testkit"
)

const testKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// TestPreviousReleaseOnCurrentSchema: during a rolling upgrade the new
// release's `migrate` runs first and instances of the previous release
// keep serving on the migrated schema. The previous release, built from
// the commit CHANGELOG.md names, starts on a database this code migrated
// (applying nothing itself) and serves a token, REST and GraphQL reads, a
// write, the write's event on a subscription and its webhook delivery.
func TestPreviousReleaseOnCurrentSchema(t *testing.T) {
	t.Parallel()
	root, prev := previous(t)
	bin := buildRelease(t, root, prev)
	ctx := context.Background()

	// This code migrates an empty database (as the new release's
	// `haulgraph migrate` does) and writes what the old binary will use: a
	// tenant, a client, an enabled webhook and one load.
	dbURL := dbtest.EmptyURL(t)
	a, err := app.New(ctx, app.Config{DatabaseURL: dbURL, Audience: app.DefaultAudience, PublicURL: "http://127.0.0.1",
		BlobURL: "file://" + t.TempDir(), EncryptionKey: testKey, DevAllowHTTPWebhooks: true, TokenTTL: time.Hour},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tenantID, subID := uuid.New(), uuid.New()
	err = a.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, 'acme', 'Acme')", tenantID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'Main')", subID, tenantID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	hooks := testkit.NewReceiver(t)
	as := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenantID, ClientID: "setup",
		Scopes: []domain.Scope{domain.ScopeWebhookManage, domain.ScopeLoadCreate}})
	name := "ERP"
	hook, _, err := a.Webhooks.Service.Create(as, webhooks.Input{Name: &name, URL: &hooks.URL, SubsidiaryID: &subID, EventTypes: []string{"load.changed"}})
	if err != nil {
		t.Fatal(err)
	}
	if hook, err = a.Webhooks.Service.Enable(as, hook.ID); err != nil || hook.State != webhooks.WebhookActive {
		t.Fatalf("enable: %v %v", hook, err)
	}
	if _, err := a.Events.LoadWrites.CreateLoad(as, loads.Input{LoadNumber: "L-1", SubsidiaryID: subID.String(),
		Stops: []loads.StopInput{{Type: "Pickup", Name: "A"}}}); err != nil {
		t.Fatal(err)
	}
	client, secret, err := a.Auth.CreateClient(ctx, tenantID, authSpec())
	if err != nil {
		t.Fatal(err)
	}
	migrations := func() (n int) {
		t.Helper()
		if err := a.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	applied := migrations()

	srv := startRelease(t, bin, dbURL)
	// Ready: every migration it knows is applied, the newer ones ignored.
	if res, err := http.Get(srv.admin + "/readyz"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("%s: /readyz: %v %v\n%s", prev.Version, res, err, srv.stderr)
	} else {
		res.Body.Close()
	}
	tok, err := (&clientcredentials.Config{ClientID: client.ClientID, ClientSecret: secret, TokenURL: srv.url + "/oauth/token",
		EndpointParams: url.Values{"audience": {app.DefaultAudience}}}).Token(ctx)
	if err != nil {
		t.Fatalf("%s: token: %v\n%s", prev.Version, err, srv.stderr)
	}
	call := func(method, path, body string) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, srv.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %s %s: %v", prev.Version, method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || strings.Contains(string(b), `"errors"`) {
			t.Fatalf("%s: %s %s: %d %s", prev.Version, method, path, res.StatusCode, b)
		}
		return b
	}

	// REST reads: the load, and the event of its creation (whose id the
	// subscription resumes after, so it misses nothing written later).
	if b := call("GET", "/api/p/v1/loads/L-1", ""); !strings.Contains(string(b), `"L-1"`) {
		t.Fatalf("%s: REST load: %s", prev.Version, b)
	}
	// The events API lists an event once no older transaction of the
	// cluster is still open (its visibility horizon): other tests' databases
	// share the cluster, so the listing is asked again until then.
	var events []struct{ ID string }
	for deadline := time.Now().Add(time.Minute); ; {
		if err := json.Unmarshal(call("GET", "/api/p/v1/events?type=load.changed", ""), &events); err != nil || len(events) > 1 {
			t.Fatalf("%s: REST events: %v %v", prev.Version, events, err)
		}
		if len(events) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: REST events: the load's event not listed after a minute", prev.Version)
		}
		time.Sleep(50 * time.Millisecond) // polling the horizon, bounded by the deadline
	}
	// A GraphQL read.
	if b := call("POST", "/graphql", `{"query":"{ load(loadNumber: \"L-1\") { loadNumber stops { name } } }"}`); !strings.Contains(string(b), `"L-1"`) {
		t.Fatalf("%s: GraphQL load: %s", prev.Version, b)
	}
	// A subscription over server-sent events, then a write (GraphQL).
	sub := subscribe(t, srv.url, tok.AccessToken, events[0].ID)
	call("POST", "/graphql", `{"query":"mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }",
		"variables":{"in":{"loadNumber":"L-2","subsidiaryId":"`+subID.String()+`","stops":[{"type":"Pickup","name":"B"}]}}}`)
	select {
	case got := <-sub:
		if got != "L-2" {
			t.Fatalf("%s: the subscription received load %s, want L-2", prev.Version, got)
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s: no event on the subscription within a minute\n%s", prev.Version, srv.stderr)
	}
	// The write's webhook delivery (the setup load's comes too).
	for deliveredLoad(hooks.NextWithin(t, time.Minute)) != "L-2" {
	}

	// The event the previous binary wrote is valid against the schemas this
	// code publishes: the catalogue's, and the events API's in the OpenAPI
	// document, since this release hands it out as stored.
	var payload []byte
	if err := a.DB.Pool.QueryRow(ctx, "SELECT payload FROM events WHERE type = 'load.changed' AND payload->'data'->'load'->>'LoadNumber' = 'L-2'").Scan(&payload); err != nil {
		t.Fatalf("%s: the event of L-2: %v", prev.Version, err)
	}
	t.Logf("%s wrote: %s", prev.Version, payload)
	checkPublished(t, prev.Version, payload)

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-srv.exited
	if srv.err != nil {
		t.Fatalf("%s: serve exited with %v\n%s", prev.Version, srv.err, srv.stderr)
	}
	if s := srv.stderr.String(); strings.Contains(s, `"level":"ERROR"`) || strings.Contains(s, "panic") {
		t.Errorf("%s logged errors on this schema:\n%s", prev.Version, s)
	}
	if n := migrations(); n != applied {
		t.Errorf("%s recorded %d migrations of its own on a schema this code migrated (%d before)", prev.Version, n-applied, applied)
	}
}

// buildRelease builds the binary of release r from its commit: the tree
// from `git archive`, `go build -trimpath` with the shared module and build
// caches (the packages unchanged since r are cached already). A commit's
// tree never changes, so the binary is kept (apptest.Kept) under the
// commit's full hash and the toolchain's version, and later runs take it
// from there instead of linking it again.
func buildRelease(t *testing.T, root string, r Release) string {
	t.Helper()
	rev, err := exec.Command("git", "-C", root, "rev-parse", "--verify", r.Commit+"^{commit}").Output()
	if err != nil {
		t.Fatalf("git rev-parse %s: %v", r.Commit, err)
	}
	var kept string
	_, err = apptest.Kept("release", strings.TrimSpace(string(rev))+" "+runtime.Version(), func(dir string) error {
		kept = filepath.Join(dir, "haulgraph-"+r.Version)
		if _, err := os.Stat(kept); err == nil {
			return nil
		}
		tmp := t.TempDir()
		src := filepath.Join(tmp, "src")
		if err := os.Mkdir(src, 0o755); err != nil {
			return err
		}
		archive := exec.Command("git", "-C", root, "archive", "--format=tar", r.Commit)
		untar := exec.Command("tar", "-x", "-C", src)
		pipe, err := archive.StdoutPipe()
		if err != nil {
			return err
		}
		untar.Stdin = pipe
		var aerr, uerr strings.Builder
		archive.Stderr, untar.Stderr = &aerr, &uerr
		if err := untar.Start(); err != nil {
			return err
		}
		if err := archive.Run(); err != nil {
			return fmt.Errorf("git archive %s: %v %s", r.Commit, err, aerr.String())
		}
		if err := untar.Wait(); err != nil {
			return fmt.Errorf("tar: %v %s", err, uerr.String())
		}
		bin := filepath.Join(tmp, "haulgraph-"+r.Version)
		build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/haulgraph")
		build.Dir = src
		build.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s from %s: %v\n%s", r.Version, r.Commit, err, out)
		}
		return apptest.CopyExecutable(bin, kept) // kept whole or not at all
	})
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

type process struct {
	cmd    *exec.Cmd
	url    string
	admin  string // the admin listener (probes)
	stderr *apptest.LockedBuffer
	exited chan struct{} // closed once err is set
	err    error
}

// startRelease runs `bin serve` on dbURL until it serves.
func startRelease(t *testing.T, bin, dbURL string) *process {
	t.Helper()
	addr, admin := apptest.FreeAddr(t), apptest.FreeAddr(t)
	p := &process{cmd: exec.Command(bin, "serve"), url: "http://" + addr, admin: "http://" + admin, stderr: &apptest.LockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Dir = t.TempDir()
	p.cmd.Env = apptest.CleanEnv("DATABASE_URL="+dbURL, "HAULGRAPH_ADDR="+addr, "HAULGRAPH_ADMIN_ADDR="+admin,
		"HAULGRAPH_ENCRYPTION_KEY="+testKey, "HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS=true",
		"HAULGRAPH_BLOB_URL=file://"+filepath.Join(p.cmd.Dir, "blobs"))
	out := apptest.NewOutput()
	p.cmd.Stdout, p.cmd.Stderr = out, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.exited })
	if !out.WaitFor("HaulGraph serving on", p.exited, 2*time.Minute) {
		t.Fatalf("the previous release did not start serving:\n%s%s", out, p.stderr)
	}
	return p
}

// subscribe opens loadChanged over server-sent events, resuming after the
// event id after, and sends the load number of each event it receives.
func subscribe(t *testing.T, base, token, after string) <-chan string {
	t.Helper()
	q := url.Values{"query": {`subscription($after: String) { loadChanged(after: $after) { id data { load { loadNumber } } } }`},
		"variables": {`{"after":"` + after + `"}`}}
	req, _ := http.NewRequest("GET", base+"/graphql/stream?"+q.Encode(), nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Fatalf("subscription: %d %s", res.StatusCode, b)
	}
	loads := make(chan string, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			var ev struct {
				Data struct {
					LoadChanged struct {
						Data struct{ Load struct{ LoadNumber string } }
					}
				}
			}
			if ok && json.Unmarshal([]byte(data), &ev) == nil {
				select {
				case loads <- ev.Data.LoadChanged.Data.Load.LoadNumber:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() { res.Body.Close(); wg.Wait() })
	return loads
}

// deliveredLoad is the load number a webhook delivery carries.
func deliveredLoad(d testkit.Delivery) string {
	var ev struct {
		Data struct{ Load struct{ LoadNumber string } }
	}
	_ = json.Unmarshal(d.Body, &ev)
	return ev.Data.Load.LoadNumber
}

func authSpec() auth.ClientSpec {
	return auth.ClientSpec{Name: "previous release", Scopes: []domain.Scope{domain.ScopeLoadRead, domain.ScopeLoadCreate}}
}
