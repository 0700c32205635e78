package webhooksig_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/haulgraph/haulgraph/webhooksig"
)

func newSecret(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

func headers(id string, ts int64, sig string) http.Header {
	h := http.Header{}
	h.Set(webhooksig.StandardIDHeader, id)
	h.Set(webhooksig.StandardTimestampHeader, strconv.FormatInt(ts, 10))
	h.Set(webhooksig.StandardSignatureHeader, sig)
	return h
}

func TestSignStandardVerifiesWithTheOfficialLibrary(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"e-1","type":"load.changed"}`)
	current, previous := newSecret(t), newSecret(t)
	now := time.Now().Unix()
	sig, err := webhooksig.StandardSignatures(webhooksig.SignStandard, current, previous, "e-1", now, body)
	if err != nil || len(strings.Split(sig, " ")) != 2 {
		t.Fatalf("%q: %v", sig, err)
	}
	for _, secret := range []string{current, previous} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, headers("e-1", now, sig)); err != nil {
			t.Fatalf("official library: %v", err)
		}
		// Its own signature equals ours.
		want, _ := wh.Sign("e-1", time.Unix(now, 0), body)
		if !strings.Contains(sig, want) {
			t.Fatalf("%q does not contain the library's %q", sig, want)
		}
	}
	wh, _ := standardwebhooks.NewWebhook(newSecret(t))
	if err := wh.Verify(body, headers("e-1", now, sig)); !errors.Is(err, standardwebhooks.ErrNoMatchingSignature) {
		t.Fatalf("another secret: %v", err)
	}
	for _, bad := range []string{"", "whsec_", "whsec_not base64", "whsk_AAAA", newSecret(t)[6:]} {
		if _, err := webhooksig.SignStandard(bad, "e-1", now, body); !errors.Is(err, webhooksig.ErrKey) {
			t.Errorf("key %q: %v", bad, err)
		}
	}
}

func TestSignStandardEd25519(t *testing.T) {
	t.Parallel()
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	oldPub, oldPriv, _ := ed25519.GenerateKey(rand.Reader)
	sk := func(k ed25519.PrivateKey) string { return "whsk_" + base64.StdEncoding.EncodeToString(k) }
	pk := func(k ed25519.PublicKey) string { return "whpk_" + base64.StdEncoding.EncodeToString(k) }
	body := []byte(`{"id":"e-1"}`)
	now := time.Now()
	sig, err := webhooksig.StandardSignatures(webhooksig.SignStandardEd25519, sk(priv), sk(oldPriv), "e-1", now.Unix(), body)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(sig, " ")
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "v1a,") || !strings.HasPrefix(parts[1], "v1a,") {
		t.Fatalf("%q", sig)
	}
	// Independently: the first is the new key's over "{id}.{ts}.{body}".
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(parts[0], "v1a,"))
	if !ed25519.Verify(pub, []byte("e-1."+strconv.FormatInt(now.Unix(), 10)+"."+string(body)), raw) {
		t.Fatal("not an ed25519 signature of the specified content")
	}
	h := headers("e-1", now.Unix(), sig)
	for _, key := range []string{pk(pub), pk(oldPub)} {
		if err := webhooksig.VerifyStandardEd25519(body, h, key, webhooksig.DefaultTolerance, now); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	for name, err := range map[string]error{
		"tampered body": webhooksig.VerifyStandardEd25519([]byte(`{"id":"e-2"}`), h, pk(pub), webhooksig.DefaultTolerance, now),
		"another key":   webhooksig.VerifyStandardEd25519(body, h, pk(other), webhooksig.DefaultTolerance, now),
		"another id":    webhooksig.VerifyStandardEd25519(body, headers("e-2", now.Unix(), sig), pk(pub), webhooksig.DefaultTolerance, now),
	} {
		if !errors.Is(err, webhooksig.ErrNoMatch) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := webhooksig.VerifyStandardEd25519(body, h, pk(pub), webhooksig.DefaultTolerance, now.Add(10*time.Minute)); !errors.Is(err, webhooksig.ErrTimestamp) {
		t.Errorf("old: %v", err)
	}
	if err := webhooksig.VerifyStandardEd25519(body, h, sk(priv), webhooksig.DefaultTolerance, now); !errors.Is(err, webhooksig.ErrKey) {
		t.Errorf("a private key as public: %v", err)
	}
	if _, err := webhooksig.SignStandardEd25519(newSecret(t), "e-1", now.Unix(), body); !errors.Is(err, webhooksig.ErrKey) {
		t.Errorf("whsec_ as ed25519: %v", err)
	}
}
