package safezip

import (
	"archive/zip"
	"bytes"
	"errors"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
)

type file struct {
	name, body string
	// size is the inflated size the header states; 0 states the truth.
	size  uint64
	flags uint16
}

// archiveOf stores files in a zip archive, in order, with the sizes and
// flags their headers state.
func archiveOf(t *testing.T, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		size := f.size
		if size == 0 {
			size = uint64(len(f.body))
		}
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: f.name, Method: zip.Store, Flags: f.flags, CRC32: crc32.ChecksumIEEE([]byte(f.body)),
			CompressedSize64: uint64(len(f.body)), UncompressedSize64: size,
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var small = Limits{MaxEntries: 5, MaxEntry: 100, MaxTotal: 150}

func TestNames(t *testing.T) {
	a, err := Open(archiveOf(t,
		file{name: "b/ok.xml", body: "1"}, file{name: "../evil.xml", body: "2"}, file{name: "/abs.xml", body: "3"},
		file{name: `C:\win.xml`, body: "4"}, file{name: `dir\sub\x.xml`, body: "5"},
	), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Names(); !slices.Equal(got, []string{"b/ok.xml", "dir/sub/x.xml"}) {
		t.Errorf("names %q", got)
	}
	if name, ok := a.Canonical("B/OK.XML"); !ok || name != "b/ok.xml" {
		t.Errorf("case-insensitive lookup: %q %v", name, ok)
	}
}

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []file
		read  []string
		kind  error
		says  string
	}{
		{"too many entries", []file{{name: "1"}, {name: "2"}, {name: "3"}, {name: "4"}, {name: "5"}, {name: "6"}}, nil, ErrTooLarge, "6 entries, more than the 5"},
		{"declared too large", []file{{name: "a", body: "x", size: 1000}}, []string{"a"}, ErrTooLarge, "entry a decompresses to more than"},
		{"lying header", []file{{name: "a", body: strings.Repeat("x", 90), size: 10}}, []string{"a"}, ErrTooLarge, "more than its declared 10 bytes"},
		{"too much in all", []file{{name: "a", body: strings.Repeat("x", 90)}, {name: "b", body: strings.Repeat("y", 90)}}, []string{"a", "b"}, ErrTooLarge, "more than 0 MB in all"},
		{"encrypted", []file{{name: "a", body: "x", flags: 1}}, []string{"a"}, ErrEncrypted, "entry a is encrypted inside the zip"},
		{"missing", []file{{name: "a", body: "x"}}, []string{"b"}, ErrMissing, "b is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Open(archiveOf(t, tc.files...), small)
			for _, name := range tc.read {
				if err != nil {
					break
				}
				_, err = a.Read(name)
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want %v saying %q", err, tc.kind, tc.says)
			}
		})
	}
	if _, err := Open([]byte("not a zip"), small); !errors.Is(err, ErrNotZip) {
		t.Errorf("not a zip: %v", err)
	}
}
