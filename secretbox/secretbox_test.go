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
