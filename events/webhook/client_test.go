package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Loopback is refused at dial time unless the development flag is on, even
// when the URL got past validation (DNS can point anywhere).
func TestDialTimeSSRFProtection(t *testing.T) {
	t.Parallel()
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	strict := &Verifier{Client: NewClient(ClientOptions{}), AllowInsecure: true}
	err := strict.Verify(context.Background(), srv.URL, "c")
	if !errors.Is(err, ErrForbiddenAddress) || hits != 0 {
		t.Fatalf("loopback reached without the flag: %v, hits %d", err, hits)
	}
	// By name, too: localhost resolves to loopback and is refused at dial time.
	_, port, _ := splitHostPort(srv.URL)
	if err := strict.Verify(context.Background(), "http://localhost:"+port, "c"); !errors.Is(err, ErrForbiddenAddress) || hits != 0 {
		t.Fatalf("localhost reached: %v", err)
	}
	// Plain http is refused unless the flag is on.
	noHTTP := &Verifier{Client: NewClient(ClientOptions{AllowLoopback: true})}
	if err := noHTTP.Verify(context.Background(), srv.URL, "c"); err == nil || hits != 0 {
		t.Fatalf("http allowed without the flag: %v", err)
	}
	dev := &Verifier{Client: NewClient(ClientOptions{AllowLoopback: true}), AllowInsecure: true}
	_ = dev.Verify(context.Background(), srv.URL, "c")
	if hits != 1 {
		t.Fatal("the development flag did not allow loopback")
	}
	// Private ranges stay refused even with the flag.
	for _, u := range []string{"https://10.0.0.1/", "https://169.254.169.254/", "https://[fe80::1]/", "https://0.0.0.0/"} {
		if err := dev.Verify(context.Background(), u, "c"); !errors.Is(err, ErrForbiddenAddress) {
			t.Fatalf("%s: %v", u, err)
		}
	}
}

func TestTLSBelow12Refused(t *testing.T) {
	t.Parallel()
	answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"challenge":"` + r.Header.Get("X-Service-Challenge") + `"}`))
	})
	old := httptest.NewUnstartedServer(answer)
	old.TLS = &tls.Config{MaxVersion: tls.VersionTLS11}
	old.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	old.StartTLS()
	defer old.Close()
	modern := httptest.NewTLSServer(answer)
	defer modern.Close()
	for _, c := range []struct {
		srv *httptest.Server
		ok  bool
	}{{modern, true}, {old, false}} {
		v := &Verifier{Client: NewClient(ClientOptions{AllowLoopback: true, RootCAs: poolOf(c.srv)})}
		err := v.Verify(context.Background(), c.srv.URL, "abc")
		if (err == nil) != c.ok {
			t.Fatalf("%s: err %v, want ok=%v", c.srv.URL, err, c.ok)
		}
	}
}

// A failed request is reported by kind: the state reason and the attempt log
// never show the resolver's or an internal address.
func TestRequestErrorsShowNoInternalAddresses(t *testing.T) {
	t.Parallel()
	v := &Verifier{Client: NewClient(ClientOptions{})}
	err := v.Verify(context.Background(), "https://nonexistent.invalid/hooks", "c")
	if err == nil || err.Error() != "request failed: the host name does not resolve" {
		t.Fatalf("unresolvable host: %v", err)
	}
	err = v.Verify(context.Background(), "https://10.0.0.1/hooks", "c")
	if !errors.Is(err, ErrForbiddenAddress) || strings.Contains(err.Error(), "10.0.0.1") {
		t.Fatalf("private address: %v", err)
	}
}
