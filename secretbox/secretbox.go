// Package secretbox encrypts small secrets at rest (webhook signing secrets)
// with AES-256-GCM under the key from configuration.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// Box seals and opens secrets with one key.
type Box struct{ aead cipher.AEAD }

// New builds a Box from a base64-encoded 32-byte key (HAULGRAPH_ENCRYPTION_KEY).
func New(keyBase64 string) (*Box, error) {
	key, err := base64.StdEncoding.DecodeString(keyBase64)
	if err != nil {
		return nil, fmt.Errorf("secretbox: the key is not base64: %w", err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("secretbox: the key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext; the random nonce is prepended to the result.
func (b *Box) Seal(plaintext []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic("secretbox: no randomness: " + err.Error())
	}
	return b.aead.Seal(nonce, nonce, plaintext, nil)
}

// Open decrypts what Seal produced, failing on any tampering or a wrong key.
func (b *Box) Open(sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, errors.New("secretbox: ciphertext too short")
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, errors.New("secretbox: cannot decrypt (wrong key or tampered data)")
	}
	return out, nil
}
