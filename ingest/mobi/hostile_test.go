package mobi

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestHostile checks that broken and hostile books fail with the error
// that says what is wrong, within the limits, and never panic.
func TestHostile(t *testing.T) {
	// A PalmDOC record of back references only: 10 bytes out for every 2
	// in, 300 KB from one record.
	bomb := []byte("abcdefghij")
	for range 30000 {
		pair := 0x8000 | 10<<3 | 7
		bomb = append(bomb, byte(pair>>8), byte(pair))
	}
	// HUFF phrases that double at every level: phrase k is phrase k-1
	// twice, a gigabyte at the top.
	doubling := map[byte][]byte{}
	for k := byte(2); k < 32; k++ {
		doubling[k] = []byte{k - 1, k - 1}
	}
	small := defaultLimits()
	small.maxText = 8 << 10
	for _, tc := range []struct {
		name string
		book testBook
		lim  limits
		kind error
		want string
	}{
		{"PalmDOC bomb", testBook{records: [][]byte{bomb}, noTrailing: true}, defaultLimits(), ErrTooLarge,
			"text record 1 decompresses to more than 65536 bytes"},
		{"text past the limit", mobi6Book(), small, ErrTooLarge, "the text decompresses to more than"},
		{"back reference before the record", testBook{records: [][]byte{{'a', 0x80, 0x50}}, noTrailing: true}, defaultLimits(),
			ErrDamaged, "text record 1 does not decompress: a back reference of 10 bytes points before the record's start"},
		{"HUFF phrase that contains itself", testBook{compression: compressHuff, html: "x\x05",
			cdic: cdicWith(map[byte][]byte{5: {5}})}, defaultLimits(), ErrDamaged, "a CDIC phrase contains itself"},
		{"HUFF doubling phrases", testBook{compression: compressHuff, html: "\x1f", noTrailing: true,
			cdic: cdicWith(doubling)}, defaultLimits(), ErrTooLarge, "decompresses to more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parse(context.Background(), tc.book.bytes(), tc.lim)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) || d != nil {
				t.Errorf("err = %v, want %v containing %q", err, tc.kind, tc.want)
			}
		})
	}
}

// TestBrokenStructure damages a readable book's records and indexes: what
// can still be read is, and nothing panics.
func TestBrokenStructure(t *testing.T) {
	be := binary.BigEndian
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		text   string // must still be read; "" when the book must fail as damaged
	}{
		{"record past the end", func(b []byte) []byte {
			n := int(be.Uint16(b[76:]))
			be.PutUint32(b[78+8*(n-1):], uint32(len(b)+1000))
			return b
		}, "Waves broke"},
		{"text record inside the header", func(b []byte) []byte {
			be.PutUint32(b[78+8*2:], 90)
			return b
		}, ""},
		{"truncated in the text", func(b []byte) []byte {
			return b[:int(be.Uint32(b[78+8*3:]))+100]
		}, ""},
		{"truncated after the text", func(b []byte) []byte {
			n := int(be.Uint16(b[76:]))
			last := int(be.Uint32(b[78+8*(n-3):]))
			return b[:last]
		}, "Waves broke"},
		{"NCX index counting a million records", func(b []byte) []byte {
			i := strings.Index(string(b), "INDX")
			be.PutUint32(b[i+24:], 1<<20)
			return b
		}, "Waves broke"},
		{"TAGX past its record", func(b []byte) []byte {
			i := strings.Index(string(b), "TAGX")
			be.PutUint32(b[i+4:], 1<<30)
			return b
		}, "Waves broke"},
		{"header record cut short", func(b []byte) []byte {
			r0 := int(be.Uint32(b[78:]))
			be.PutUint32(b[78+8:], uint32(r0+10))
			return b
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.damage(mobi6Book().bytes())
			d, err := Parse(context.Background(), data)
			if tc.text == "" {
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("err = %v, want a damaged book", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, d)
			if !strings.Contains(d.Text(), tc.text) {
				t.Errorf("text lacks %q", tc.text)
			}
		})
	}
}

// TestKF8Budget checks that reassembly stops on a fragment index that
// would copy a large skeleton too often.
func TestKF8Budget(t *testing.T) {
	b := kf8Book()
	f := &b.files[0]
	f.head = f.head + strings.Repeat("<!-- padding -->", 500)
	for range 300 {
		f.frags = append(f.frags, "<p>x</p>")
	}
	lim := defaultLimits()
	lim.maxText = 200 << 10
	_, err := parse(context.Background(), b.bytes(), lim)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "reassemble") {
		t.Errorf("err = %v", err)
	}
	if _, err := Parse(context.Background(), b.bytes()); err != nil {
		t.Errorf("with the default limits: %v", err)
	}
}
