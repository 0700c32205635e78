package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/testkit"
)

// Loopback is refused at dial time unless the development flag is on, even
// when the URL got past validation (DNS can point anywhere).
func TestDialTimeSSRFProtection(t *testing.T) {
	t.Parallel()
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	strict := &Challenger{Client: NewClient(ClientOptions{}), AllowInsecure: true}
	err := strict.Challenge(context.Background(), srv.URL, "c")
	if !errors.Is(err, ErrForbiddenAddress) || hits != 0 {
		t.Fatalf("loopback reached without the flag: %v, hits %d", err, hits)
	}
	// By name, too: localhost resolves to loopback and is refused at dial time.
	_, port, _ := splitHostPort(srv.URL)
	if err := strict.Challenge(context.Background(), "http://localhost:"+port, "c"); !errors.Is(err, ErrForbiddenAddress) || hits != 0 {
		t.Fatalf("localhost reached: %v", err)
	}
	// Plain http is refused unless the flag is on.
	noHTTP := &Challenger{Client: NewClient(ClientOptions{AllowLoopback: true})}
	if err := noHTTP.Challenge(context.Background(), srv.URL, "c"); err == nil || hits != 0 {
		t.Fatalf("http allowed without the flag: %v", err)
	}
	dev := &Challenger{Client: NewClient(ClientOptions{AllowLoopback: true}), AllowInsecure: true}
	_ = dev.Challenge(context.Background(), srv.URL, "c")
	if hits != 1 {
		t.Fatal("the development flag did not allow loopback")
	}
	// Private ranges stay refused even with the flag.
	for _, u := range []string{"https://10.0.0.1/", "https://169.254.169.254/", "https://[fe80::1]/", "https://0.0.0.0/"} {
		if err := dev.Challenge(context.Background(), u, "c"); !errors.Is(err, ErrForbiddenAddress) {
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
		v := &Challenger{Client: NewClient(ClientOptions{AllowLoopback: true, RootCAs: poolOf(c.srv)})}
		err := v.Challenge(context.Background(), c.srv.URL, "abc")
		if (err == nil) != c.ok {
			t.Fatalf("%s: err %v, want ok=%v", c.srv.URL, err, c.ok)
		}
	}
}

// A failed request is reported by kind: the state reason and the attempt log
// never show the resolver's or an internal address.
func TestRequestErrorsShowNoInternalAddresses(t *testing.T) {
	t.Parallel()
	v := &Challenger{Client: NewClient(ClientOptions{})}
	err := v.Challenge(context.Background(), "https://nonexistent.invalid/hooks", "c")
	if err == nil || err.Error() != NoAnswer {
		t.Fatalf("unresolvable host: %v", err)
	}
	err = v.Challenge(context.Background(), "https://10.0.0.1/hooks", "c")
	if !errors.Is(err, ErrForbiddenAddress) || err.Error() != NoAnswer {
		t.Fatalf("private address: %v", err)
	}
}

// A name that resolves, at dial time, to an IPv6 form of an internal IPv4
// address is refused by the dialer's check, not merely unreachable.
func TestDialTimeEmbeddedIPv4Refused(t *testing.T) {
	t.Parallel()
	z := &testkit.Resolver{}
	v := &Challenger{Client: NewClient(ClientOptions{AllowLoopback: true, Resolver: z}), AllowInsecure: true}
	for _, a := range []string{"64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a00:1", "2002:7f00:1::", "::127.0.0.1",
		"::ffff:0:7f00:1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fec0::1", "100::1", "192.0.2.1", "198.51.100.7", "::ffff:10.0.0.1"} {
		z.Set(a)
		err := v.Challenge(context.Background(), "http://hooks.example:8080/h", "c")
		if !errors.Is(err, ErrForbiddenAddress) || err.Error() != NoAnswer {
			t.Errorf("%s: %v (cause %v)", a, err, Cause(err))
		}
	}
}

// A closed port, an HTTP server and another protocol's listener read the
// same to the tenant: no port scan through delivery or verification errors.
func TestNoAnswerTellsNoListenerApart(t *testing.T) {
	t.Parallel()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "https://" + closed.Addr().String() + "/h"
	closed.Close()
	other := testkit.OtherProtocol(t)
	plain := httptest.NewServer(http.NotFoundHandler()) // plain HTTP where TLS is spoken
	defer plain.Close()
	v := &Challenger{Client: NewClient(ClientOptions{AllowLoopback: true}), AllowInsecure: true}
	for _, u := range []string{closedURL, "https://" + other + "/h", strings.Replace(plain.URL, "http:", "https:", 1) + "/h",
		"http://" + other + "/h"} {
		if err := v.Challenge(context.Background(), u, "c"); err == nil || err.Error() != NoAnswer {
			t.Errorf("%s: %v", u, err)
		}
	}
}
