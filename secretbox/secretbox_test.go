package secretbox

import (
	"bytes"
	"encoding/base64"
	"testing"
)

func TestSealOpenRoundTripAndTamper(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	s1, s2 := b.Seal([]byte("whsec_x")), b.Seal([]byte("whsec_x"))
	if bytes.Equal(s1, s2) {
		t.Fatal("two seals of one secret are equal: the nonce is not random")
	}
	if bytes.Contains(s1, []byte("whsec_x")) {
		t.Fatal("the plaintext is visible in the ciphertext")
	}
	got, err := b.Open(s1)
	if err != nil || string(got) != "whsec_x" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	s1[len(s1)-1] ^= 1
	if _, err := b.Open(s1); err == nil {
		t.Fatal("a tampered ciphertext opened")
	}
	other, _ := New(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{8}, 32)))
	if _, err := other.Open(s2); err == nil {
		t.Fatal("another key opened the ciphertext")
	}
	if _, err := New(base64.StdEncoding.EncodeToString([]byte("short"))); err == nil {
		t.Fatal("a short key was accepted")
	}
}
