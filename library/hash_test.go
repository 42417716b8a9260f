package library

import (
	"strings"
	"testing"
)

func TestHashRoundTrip(t *testing.T) {
	h := SumBytes([]byte("hello"))
	s := h.String()
	if !strings.HasPrefix(s, "blake3-") || len(s) != len("blake3-")+64 {
		t.Fatalf("String() = %q", s)
	}
	// b3sum of "hello" (no newline).
	if want := "blake3-ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f"; s != want {
		t.Fatalf("hash of hello = %s, want %s", s, want)
	}
	p, err := ParseHash(s)
	if err != nil || p != h {
		t.Fatalf("ParseHash(%q) = %v, %v", s, p, err)
	}
	for _, bad := range []string{"", "sha1-00", "blake3-xyz", "blake3-" + strings.Repeat("0", 63)} {
		if _, err := ParseHash(bad); err == nil {
			t.Errorf("ParseHash(%q) succeeded", bad)
		}
	}
	hr, n, err := HashReader(strings.NewReader("hello"), nil)
	if err != nil || hr != h || n != 5 {
		t.Fatalf("HashReader = %v, %d, %v", hr, n, err)
	}
}
