package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// burst keeps API requests running against a server until it stops: it
// proves that a stop drains what it accepted. Every answer must be whole
// (the body reads to its end and is JSON) and 200. Once the stop signal has
// been sent (signalled), a request may fail to get an answer at all: the
// listener is closed, a clean refusal; before it, nothing may fail.
type burst struct {
	signalled atomic.Bool
	answered  atomic.Int64
	refused   atomic.Int64
	drained   atomic.Int64  // answered after the signal, sent before it
	first     chan struct{} // closed after the tenth answer
	once      sync.Once
	wg        sync.WaitGroup
	mu        sync.Mutex
	problems  []string
}

// startBurst runs workers that GET the load path with the token, each until
// it meets a refusal after the signal (or 10,000 requests).
func startBurst(t *testing.T, base, token, path string, workers int) *burst {
	t.Helper()
	b := &burst{first: make(chan struct{})}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	for range workers {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			for range 10000 {
				if !b.request(client, base+path, token) {
					return
				}
			}
		}()
	}
	return b
}

// request makes one request; false ends the worker.
func (b *burst) request(client *http.Client, url, token string) bool {
	after := b.signalled.Load() // read before sending: a refusal must follow the signal
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		// After the signal the closed listener refuses connections; a
		// request sent before it was accepted and must be answered.
		var op *net.OpError
		if b.signalled.Load() && (after || errors.As(err, &op) && op.Op == "dial") {
			b.refused.Add(1)
		} else {
			b.problem("sent before the signal, not answered: %v", err)
		}
		return false
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		b.problem("answer cut short (%d bytes read): %v", len(body), err)
		return false
	case resp.StatusCode != http.StatusOK:
		b.problem("status %d: %s", resp.StatusCode, body)
		return false
	case !json.Valid(body):
		b.problem("answer is not whole JSON: %.200s", body)
		return false
	}
	if !after && b.signalled.Load() {
		b.drained.Add(1)
	}
	if b.answered.Add(1) == 10 {
		close(b.first)
	}
	return true
}

func (b *burst) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// wait waits for every worker and reports what went wrong.
func (b *burst) wait(t *testing.T) {
	t.Helper()
	b.wg.Wait()
	for _, p := range b.problems {
		t.Errorf("request burst: %s", p)
	}
	if b.answered.Load() < 10 {
		t.Errorf("request burst: only %d answers", b.answered.Load())
	}
	t.Logf("request burst: %d whole answers (%d of them in flight at the signal), %d refused after it",
		b.answered.Load(), b.drained.Load(), b.refused.Load())
}

// clientToken gets a token from the server for client credentials.
func clientToken(t *testing.T, base, id, secret string) string {
	t.Helper()
	resp, err := http.PostForm(base+"/oauth/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {id}, "client_secret": {secret}, "audience": {"https://api.haulgraph.local"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" || !strings.HasPrefix(tok.AccessToken, "ey") {
		t.Fatalf("token: %d %v", resp.StatusCode, err)
	}
	return tok.AccessToken
}

// slowRequest sends a GraphQL request whose body is only half written when
// the stop signal comes; the rest follows once the server has closed its
// listener (it refuses new connections), so the request is provably in
// flight during the shutdown, which must still answer it whole.
func slowRequest(t *testing.T, base, token string, stopping <-chan struct{}) <-chan error {
	t.Helper()
	body := `{"query":"{ load(loadNumber: \"L-A\") { loadNumber } }"}`
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", pr)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	done := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err != nil {
			done <- fmt.Errorf("in flight at the signal, not answered: %w", err)
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"loadNumber":"L-A"`) {
			done <- fmt.Errorf("in flight at the signal: status %d, %q, %v", resp.StatusCode, b, err)
			return
		}
		done <- nil
	}()
	go func() {
		defer pw.Close()
		half := len(body) / 2
		if _, err := io.WriteString(pw, body[:half]); err != nil {
			return
		}
		<-stopping
		addr := strings.TrimPrefix(base, "http://")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				break // the listener is closed: the shutdown has begun
			}
			c.Close()
			time.Sleep(5 * time.Millisecond) // polling the listener of another process
		}
		_, _ = io.WriteString(pw, body[half:])
	}()
	return done
}
