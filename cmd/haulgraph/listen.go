package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/events/webhook"
	"github.com/haulgraph/haulgraph/webhooksig"
)

const listenSynopsis = "--forward-to URL [--events TYPE,…] [--scheme SCHEME] [--from now|CURSOR] [--api URL]"

const listenNotes = `Follows the events API of the client's tenant and forwards every event to
URL (a receiver on your machine) signed exactly as a webhook delivery is:
the same body, the same headers and signature, under a signing secret of
this machine that listen prints when it starts and keeps across runs. One
line per event gives the receiver's answer; a failed forward is tried again
(--retries times) before listen moves on. listen resumes after the last
event it forwarded (the position is kept per API and client under the user's
config directory); the first run starts from now. Ctrl-C stops it.
`

// listenOptions are listen's flags.
type listenOptions struct {
	api               apiFlags
	forwardTo, events *string
	scheme, from      *string
	retries           *int
	interval          *time.Duration
	previous          *bool
	configDir         *string
}

func listenFlags(fs *flag.FlagSet) listenOptions {
	return listenOptions{
		api:       defineAPIFlags(fs),
		forwardTo: fs.String("forward-to", "", "the local URL events are POSTed to, e.g. http://localhost:3000/hooks (required)"),
		events:    fs.String("events", "", "comma-separated event types to forward (load.changed, load.status.changed, trip.changed); default all the client may read"),
		scheme:    fs.String("scheme", string(webhooks.SchemeService), "signature scheme: service, standard-webhooks or standard-webhooks-ed25519"),
		from:      fs.String("from", "", "where to start: now, or an event id or cursor to start after (default: where the last run stopped, else now)"),
		retries:   fs.Int("retries", 3, "further attempts of a forward the receiver failed (no answer or not 2xx)"),
		interval:  fs.Duration("interval", time.Second, "how often the events API is asked for new events"),
		previous:  fs.Bool("include-previous-attributes", false, "forward data.diff.previousAttributes, as a webhook created with includePreviousAttributes"),
		configDir: fs.String("config-dir", "", "where the signing keys and positions are kept (default: haulgraph under the user's config directory)"),
	}
}

func listenCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := listenFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}
	target, err := url.Parse(*o.forwardTo)
	if *o.forwardTo == "" {
		return usageError("listen: --forward-to is required")
	}
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return usageError(fmt.Sprintf("listen: --forward-to %q is not an http(s) URL", *o.forwardTo))
	}
	scheme := webhooks.SignatureScheme(*o.scheme)
	if !scheme.Valid() {
		return usageError(fmt.Sprintf("listen: unknown --scheme %q (service, standard-webhooks, standard-webhooks-ed25519)", *o.scheme))
	}
	if *o.retries < 0 || *o.interval <= 0 {
		return usageError("listen: --retries must be 0 or more and --interval positive")
	}
	dir := *o.configDir
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return fmt.Errorf("listen: no config directory (give --config-dir): %w", err)
		}
		dir = filepath.Join(base, "haulgraph")
	}
	c, err := o.api.signIn(ctx)
	if err != nil {
		return err
	}
	keys, err := machineKeys(dir)
	if err != nil {
		return err
	}
	l := &listener{
		api: c, target: target.String(), scheme: scheme, keys: keys, retries: *o.retries,
		interval: *o.interval, previous: *o.previous, out: stdout, errOut: stderr,
		cursorFile: filepath.Join(dir, "listen-"+positionKey(c)+".cursor"),
		forward:    &http.Client{Timeout: webhooks.DeliveryTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
	for _, t := range strings.Split(*o.events, ",") {
		if t = strings.TrimSpace(t); t != "" {
			l.types = append(l.types, t)
		}
	}
	switch {
	case *o.from == "now":
		l.since = time.Now()
	case *o.from != "":
		l.after = *o.from
	default:
		if b, err := os.ReadFile(l.cursorFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			l.after = string(bytes.TrimSpace(b))
		} else {
			l.since = time.Now()
		}
	}
	fmt.Fprintf(stdout, "Ready! Forwarding %s events of client %s to %s (scheme %s)\n", orAll(l.types), c.clientID, l.target, scheme)
	if scheme.Asymmetric() {
		fmt.Fprintf(stdout, "Your webhook public key is %s\n", keys.PublicKey)
	} else {
		fmt.Fprintf(stdout, "Your webhook signing secret is %s\n", keys.Secret)
	}
	if l.after != "" {
		fmt.Fprintf(stdout, "Resuming after %s\n", l.after)
	} else {
		fmt.Fprintf(stdout, "Starting from now (%s)\n", l.since.UTC().Format(time.RFC3339))
	}
	err = l.run(ctx)
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "Stopped")
		return nil
	}
	return err
}

func orAll(types []string) string {
	if len(types) == 0 {
		return "all"
	}
	return strings.Join(types, ", ")
}

// listenKeys are this machine's signing keys: an HMAC secret for the
// service and standard-webhooks schemes, an ed25519 pair for the other.
type listenKeys struct {
	Secret     string `json:"secret"`
	PrivateKey string `json:"private_key"`
	PublicKey  string `json:"public_key"`
}

// machineKeys reads the keys kept in dir, making them the first time.
func machineKeys(dir string) (listenKeys, error) {
	path := filepath.Join(dir, "listen-keys.json")
	var k listenKeys
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &k); err != nil || k.Secret == "" || k.PrivateKey == "" {
			return k, fmt.Errorf("listen: %s is damaged (remove it for new keys): %v", path, err)
		}
		return k, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return k, fmt.Errorf("listen: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return k, err
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return k, err
	}
	k = listenKeys{
		Secret:     webhooksig.SecretPrefix + base64.StdEncoding.EncodeToString(b),
		PrivateKey: webhooksig.PrivateKeyPrefix + base64.StdEncoding.EncodeToString(priv),
		PublicKey:  webhooksig.PublicKeyPrefix + base64.StdEncoding.EncodeToString(pub),
	}
	js, _ := json.MarshalIndent(k, "", "  ")
	if err := writeFileAtomic(path, append(js, '\n')); err != nil {
		return k, fmt.Errorf("listen: keeping the signing keys: %w", err)
	}
	return k, nil
}

// writeFileAtomic replaces path with b (mode 0600), never leaving it half
// written.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o600)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// positionKey names the position file of one API and client: cursors are
// sealed to a tenant, so each client keeps its own.
func positionKey(c *apiClient) string {
	h := sha256.Sum256([]byte(c.base.String() + "\x00" + c.clientID))
	return hex.EncodeToString(h[:8])
}

// listener follows the events API and forwards what it reads.
type listener struct {
	api        *apiClient
	forward    *http.Client
	target     string
	scheme     webhooks.SignatureScheme
	keys       listenKeys
	types      []string
	retries    int
	interval   time.Duration
	previous   bool
	out        io.Writer
	errOut     io.Writer
	cursorFile string

	// Where the next page starts: after an event id or cursor, else at a time.
	after string
	since time.Time
}

// run reads page after page and forwards each event in order until ctx
// ends; it waits interval when nothing new is there.
func (l *listener) run(ctx context.Context) error {
	failing := false
	for {
		events, more, err := l.page(ctx)
		if err != nil {
			var se *statusError
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.As(err, &se) && se.status == http.StatusGone:
				l.after, l.since = "", time.Now()
				fmt.Fprintf(l.errOut, "haulgraph: the events after the saved position are no longer kept (%v); continuing from now\n", err)
				continue
			case errors.As(err, &se) && se.status/100 == 4 && se.status != http.StatusTooManyRequests && se.status != http.StatusRequestTimeout:
				return fmt.Errorf("events API: %w", err)
			}
			if !failing {
				fmt.Fprintf(l.errOut, "haulgraph: events API: %v; trying again\n", err)
			}
			failing = true
			wait := l.interval
			if errors.As(err, &se) && se.retryAfter > wait {
				wait = se.retryAfter
			}
			if !sleep(ctx, wait) {
				return ctx.Err()
			}
			continue
		}
		failing = false
		for _, e := range events {
			if err := l.deliver(ctx, e); err != nil {
				return err
			}
		}
		if !more && !sleep(ctx, l.interval) {
			return ctx.Err()
		}
	}
}

// event is one envelope as the events API wrote it: its bytes are the body
// a delivery carries.
type event struct {
	ID, Type string
	body     []byte
}

// page reads the events after the current position; more reports that
// another page follows at once.
func (l *listener) page(ctx context.Context) ([]event, bool, error) {
	q := url.Values{"limit": {"100"}}
	if l.after != "" {
		q.Set("after", l.after)
	} else {
		q.Set("since", l.since.UTC().Format(time.RFC3339Nano))
	}
	if len(l.types) > 0 {
		q.Set("type", strings.Join(l.types, ","))
	}
	if l.previous {
		q.Set("includePreviousAttributes", "true")
	}
	resp, body, err := l.api.get(ctx, "/api/p/v1/events", q)
	if err != nil {
		return nil, false, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, false, fmt.Errorf("events API: not a list of events: %w", err)
	}
	events := make([]event, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &events[i]); err != nil || events[i].ID == "" {
			return nil, false, fmt.Errorf("events API: an event without id: %s", r)
		}
		events[i].body = r
	}
	return events, strings.Contains(resp.Header.Get("Link"), `rel="next"`), nil
}

// deliver forwards e (retrying a failure), prints its line and moves the
// saved position past it. A forward cut short by ctx leaves the position
// before e, so the next run sends e again.
func (l *listener) deliver(ctx context.Context, e event) error {
	var status int
	var err error
	attempt := 0
	for ; attempt <= l.retries; attempt++ {
		if attempt > 0 && !sleep(ctx, time.Duration(250<<min(attempt-1, 5))*time.Millisecond) {
			return ctx.Err()
		}
		status, err = l.send(ctx, e)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil && status/100 == 2 {
			break
		}
	}
	answer := fmt.Sprintf("[%d]", status)
	if err != nil {
		answer = "[no answer: " + err.Error() + "]"
	}
	tries := ""
	if attempt > 0 {
		tries = fmt.Sprintf(" (%d attempts)", min(attempt+1, l.retries+1))
	}
	fmt.Fprintf(l.out, "%s  %-19s %s  --> %s POST %s%s\n", time.Now().Format("15:04:05"), e.Type, e.ID, answer, l.target, tries)
	l.after = e.ID
	if err := writeFileAtomic(l.cursorFile, []byte(e.ID+"\n")); err != nil {
		return fmt.Errorf("listen: saving the position: %w", err)
	}
	return nil
}

// send POSTs e once, with the headers and signature of a webhook delivery
// (events/webhook's Worker.send) under this machine's key.
func (l *listener) send(ctx context.Context, e event) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.target, bytes.NewReader(e.body))
	if err != nil {
		return 0, err
	}
	key := l.keys.Secret
	if l.scheme.Asymmetric() {
		key = l.keys.PrivateKey
	}
	d := webhook.Delivery{EventID: e.ID, EventType: e.Type, AttemptID: uuid.NewString(), Scheme: l.scheme, Key: key}
	if err := webhook.SetHeaders(req.Header, d, time.Now().Unix(), e.body); err != nil {
		return 0, err
	}
	trace := make([]byte, 24)
	_, _ = rand.Read(trace)
	req.Header.Set("traceparent", "00-"+hex.EncodeToString(trace[:16])+"-"+hex.EncodeToString(trace[16:])+"-01")
	resp, err := l.forward.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// sleep waits d unless ctx ends first; it reports whether ctx is still on.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
