package eventlog

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"

	"github.com/google/uuid"
)

// Cursors seals outbox positions into event cursors that only their
// tenant can use. The position is global (PostgreSQL's transaction id and a
// row number), so in the clear two of a tenant's cursors would count the
// other tenants' writes between them. Sealed, a cursor reads as random bytes
// and opens only for the tenant it was made for.
//
// The sealing is deterministic (SIV): the IV is an HMAC of the tenant and
// the position, and the position is encrypted with AES-CTR under that IV.
// One event has one cursor on every transport, and the IV doubles as the
// authentication tag.
type Cursors struct {
	mac   []byte
	block cipher.Block
}

// EventCursorLength is the length of a cursor: base64url of the IV (16
// bytes) and the encrypted position (16 bytes), unpadded.
const EventCursorLength = 43

var cursorEncoding = base64.RawURLEncoding.Strict()

// NewCursors seals with key, a 32-byte key of this purpose only (the
// app derives it from the master key: secretbox.Derive with
// secretbox.EventCursorsLabel).
func NewCursors(key []byte) *Cursors {
	mac, err1 := hkdf.Key(sha256.New, key, nil, "iv", 32)
	enc, err2 := hkdf.Key(sha256.New, key, nil, "position", 32)
	if err1 != nil || err2 != nil { // only for lengths HKDF cannot produce
		panic("domain: event cursor keys")
	}
	block, err := aes.NewCipher(enc)
	if err != nil {
		panic(err) // a 32-byte key always makes a cipher
	}
	return &Cursors{mac: mac, block: block}
}

// iv is the synthetic IV of a position of tenant.
func (c *Cursors) iv(tenant uuid.UUID, plain []byte) []byte {
	m := hmac.New(sha256.New, c.mac)
	m.Write(tenant[:])
	m.Write(plain)
	return m.Sum(nil)[:aes.BlockSize]
}

// Seal is the cursor of tenant's event at pos.
func (c *Cursors) Seal(tenant uuid.UUID, pos Position) string {
	var buf [32]byte
	plain := buf[16:]
	binary.BigEndian.PutUint64(plain[:8], uint64(pos.Xact))
	binary.BigEndian.PutUint64(plain[8:], uint64(pos.Seq))
	iv := c.iv(tenant, plain)
	copy(buf[:16], iv)
	cipher.NewCTR(c.block, iv).XORKeyStream(plain, plain)
	return cursorEncoding.EncodeToString(buf[:])
}

// Open reads a cursor Seal made for tenant. Anything else — another
// tenant's cursor, an altered one, the unsealed cursors of old, garbage —
// is not a cursor: ok is false, with no lookup, so all of them answer alike.
func (c *Cursors) Open(tenant uuid.UUID, s string) (pos Position, ok bool) {
	if c == nil || len(s) != EventCursorLength {
		return Position{}, false
	}
	var buf [32]byte
	if n, err := cursorEncoding.Decode(buf[:], []byte(s)); err != nil || n != len(buf) {
		return Position{}, false
	}
	iv, plain := buf[:16], buf[16:]
	cipher.NewCTR(c.block, iv).XORKeyStream(plain, plain)
	if !hmac.Equal(iv, c.iv(tenant, plain)) {
		return Position{}, false
	}
	pos = Position{Xact: int64(binary.BigEndian.Uint64(plain[:8])), Seq: int64(binary.BigEndian.Uint64(plain[8:]))}
	return pos, pos.Xact >= 0 && pos.Seq >= 0
}
