// Package secretbox encrypts small secrets at rest (signing keys, webhook
// secrets) with AES-256-GCM under a key derived from HAULGRAPH_ENCRYPTION_KEY.
//
// The configured key is a master key: each use gets its own key derived with
// HKDF-SHA256 under its own label (SealingLabel here, LinksLabel for the
// download links, EventCursorsLabel for event cursors), so no key ever
// serves two purposes.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The HKDF labels of the keys derived from the master key.
const (
	SealingLabel = "haulgraph/secretbox/v2"
	LinksLabel   = "haulgraph/document-links/v2"
	// EventCursorsLabel: the key that seals event cursors to their tenant
	// (eventlog.Cursors).
	EventCursorsLabel = "haulgraph/event-cursors/v1"
)

// Box seals with the sealing key and opens with it or, for values sealed
// before keys were derived, with the master key itself.
type Box struct{ aead, legacy cipher.AEAD }

// New builds a Box from the configured master key: base64 (standard or URL
// alphabet, padded or not) of exactly 32 bytes.
func New(keyB64 string) (*Box, error) {
	master, err := DecodeKey(keyB64)
	if err != nil {
		return nil, err
	}
	aead, err := newGCM(Derive(master, SealingLabel))
	if err != nil {
		return nil, err
	}
	legacy, err := newGCM(master)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead, legacy: legacy}, nil
}

// Derive returns the 32-byte key for one purpose (label) from the master key.
func Derive(master []byte, label string) []byte {
	k, err := hkdf.Key(sha256.New, master, nil, label, 32)
	if err != nil { // only for lengths HKDF cannot produce; 32 always can
		panic(err)
	}
	return k
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal encrypts plaintext; aad (for example the row's id) binds the
// ciphertext to its place, so a sealed value copied to another row fails to open.
// The output is nonce || ciphertext.
func (b *Box) Seal(plaintext, aad []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand never fails on supported platforms
	return b.aead.Seal(nonce, nonce, plaintext, aad)
}

// Open decrypts what Seal produced with the same aad, also a value sealed
// directly under the master key (before HKDF): GCM authenticates, so a value
// opens under at most one of the two keys.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, errors.New("secretbox: sealed value too short")
	}
	for _, aead := range []cipher.AEAD{b.aead, b.legacy} {
		if out, err := aead.Open(nil, sealed[:n], sealed[n:], aad); err == nil {
			return out, nil
		}
	}
	return nil, errors.New("secretbox: cannot decrypt (wrong HAULGRAPH_ENCRYPTION_KEY?)")
}

// NewKey returns a fresh random key, base64-encoded.
func NewKey() string {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

// LoadOrCreateKeyFile returns the key stored at path, creating it (0600) with
// a fresh key when it does not exist: `make run` needs no configuration.
func LoadOrCreateKeyFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		key := strings.TrimSpace(string(b))
		if _, err := DecodeKey(key); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	key := NewKey()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another process won the race: use its key
		return LoadOrCreateKeyFile(path)
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return key, f.Close()
}

// DecodeKey reads a configured key (see New) into its 32 bytes.
func DecodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != 32 {
				return nil, fmt.Errorf("secretbox: the encryption key must be 32 bytes, got %d", len(k))
			}
			return k, nil
		}
	}
	return nil, errors.New("secretbox: the encryption key is not valid base64")
}
