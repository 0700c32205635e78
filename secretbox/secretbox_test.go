package secretbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSealOpenRoundTripAndBinding(t *testing.T) {
	t.Parallel()
	b, err := New(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	sealed := b.Seal([]byte("whsec_abc"), []byte("row-1"))
	got, err := b.Open(sealed, []byte("row-1"))
	if err != nil || string(got) != "whsec_abc" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := b.Open(sealed, []byte("row-2")); err == nil {
		t.Fatal("a value sealed for row-1 opened as row-2")
	}
	other, _ := New(NewKey())
	if _, err := other.Open(sealed, []byte("row-1")); err == nil {
		t.Fatal("opened with another key")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := b.Open(sealed, []byte("row-1")); err == nil {
		t.Fatal("tampered ciphertext opened")
	}
}

func TestNewRejectsBadKeys(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"", "not base64!", "c2hvcnQ="} {
		if _, err := New(k); err == nil {
			t.Errorf("New(%q) accepted", k)
		}
	}
}

func TestLoadOrCreateKeyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "encryption.key")
	k1, err := LoadOrCreateKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", st.Mode(), err)
	}
	k2, err := LoadOrCreateKeyFile(path)
	if err != nil || k1 != k2 {
		t.Fatalf("second load gave %q, %v; want %q", k2, err, k1)
	}
	if _, err := New(k1); err != nil {
		t.Fatal(err)
	}
}

// TestSealsUnderTheDerivedKey: what Seal writes is sealed under the HKDF
// sealing key, not under the master key itself, and each label gives its
// own key.
func TestSealsUnderTheDerivedKey(t *testing.T) {
	t.Parallel()
	keyB64 := NewKey()
	master, _ := DecodeKey(keyB64)
	b, err := New(keyB64)
	if err != nil {
		t.Fatal(err)
	}
	sealed := b.Seal([]byte("whsec_abc"), []byte("row-1"))
	raw, _ := newGCM(master)
	if _, err := raw.Open(nil, sealed[:raw.NonceSize()], sealed[raw.NonceSize():], []byte("row-1")); err == nil {
		t.Fatal("a new value opens under the master key itself: it was not sealed under the derived key")
	}
	derived, _ := newGCM(Derive(master, SealingLabel))
	if got, err := derived.Open(nil, sealed[:derived.NonceSize()], sealed[derived.NonceSize():], []byte("row-1")); err != nil || string(got) != "whsec_abc" {
		t.Fatalf("the sealing key does not open it: %q, %v", got, err)
	}
	s, l := Derive(master, SealingLabel), Derive(master, LinksLabel)
	if string(s) == string(l) || string(s) == string(master) || string(l) == string(master) || len(s) != 32 {
		t.Fatal("the derived keys are not distinct 32-byte keys")
	}
	if string(Derive(master, SealingLabel)) != string(s) {
		t.Fatal("Derive is not deterministic")
	}
}

// TestValuesSealedUnderTheMasterKeyStillOpen: secrets sealed before keys
// were derived (AES-GCM directly under the master key) keep opening.
func TestValuesSealedUnderTheMasterKeyStillOpen(t *testing.T) {
	t.Parallel()
	keyB64 := NewKey()
	master, _ := DecodeKey(keyB64)
	old, _ := newGCM(master)
	nonce := make([]byte, old.NonceSize())
	sealed := old.Seal(nonce, nonce, []byte("whsec_old"), []byte("row-1"))
	b, err := New(keyB64)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := b.Open(sealed, []byte("row-1")); err != nil || string(got) != "whsec_old" {
		t.Fatalf("Open(old value) = %q, %v", got, err)
	}
	if _, err := b.Open(sealed, []byte("row-2")); err == nil {
		t.Fatal("an old value opened for another row")
	}
}
