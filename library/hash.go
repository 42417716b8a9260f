package library

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/zeebo/blake3"
)

// HashPrefix names the algorithm in a hash's text form, so that a future
// change of algorithm is detectable in stored data.
const HashPrefix = "blake3-"

// Hash is the BLAKE3-256 digest of a file's bytes: the identity of a book.
// The zero Hash is "no hash".
type Hash [32]byte

// String returns "blake3-<64 hex digits>".
func (h Hash) String() string { return HashPrefix + hex.EncodeToString(h[:]) }

// Short returns the first 12 hex digits, enough to name a book to a person.
func (h Hash) Short() string { return hex.EncodeToString(h[:6]) }

// IsZero reports whether h is the zero Hash.
func (h Hash) IsZero() bool { return h == Hash{} }

// ParseHash parses the form String returns.
func ParseHash(s string) (Hash, error) {
	var h Hash
	hexPart, ok := strings.CutPrefix(s, HashPrefix)
	if !ok {
		return h, fmt.Errorf("parse hash %q: not a %s hash", s, strings.TrimSuffix(HashPrefix, "-"))
	}
	if len(hexPart) != 2*len(h) {
		return h, fmt.Errorf("parse hash %q: want %d hex digits", s, 2*len(h))
	}
	if _, err := hex.Decode(h[:], []byte(hexPart)); err != nil {
		return h, fmt.Errorf("parse hash %q: %w", s, err)
	}
	return h, nil
}

// MarshalText gives a Hash its text form in JSON and every other text
// encoding, so that every output names a book's content the same way.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText parses the form MarshalText writes.
func (h *Hash) UnmarshalText(text []byte) error {
	p, err := ParseHash(string(text))
	if err != nil {
		return err
	}
	*h = p
	return nil
}

// Value stores a Hash as its text form.
func (h Hash) Value() (driver.Value, error) { return h.String(), nil }

// Scan reads a Hash stored by Value.
func (h *Hash) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("scan hash: unsupported type %T", src)
	}
	p, err := ParseHash(s)
	if err != nil {
		return err
	}
	*h = p
	return nil
}

// SumBytes hashes data in memory.
func SumBytes(data []byte) Hash { return Hash(blake3.Sum256(data)) }

// HashReader hashes everything r yields, streaming through buf (allocated
// when nil), and returns the hash and the number of bytes read.
func HashReader(r io.Reader, buf []byte) (Hash, int64, error) {
	if buf == nil {
		buf = make([]byte, 1<<20)
	}
	hr := blake3.New()
	n, err := io.CopyBuffer(hr, r, buf)
	if err != nil {
		return Hash{}, n, err
	}
	var h Hash
	hr.Sum(h[:0])
	return h, n, nil
}
