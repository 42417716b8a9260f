package bomb

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"io"
	"strings"
	"testing"
)

func TestZlib(t *testing.T) {
	tests := []struct {
		name, prefix, unit string
		size               int64
	}{
		{name: "empty", unit: Spaces},
		{name: "under one unit", unit: Moves, size: 5},
		{name: "part of a chunk", unit: Moves, size: 1000},
		{name: "whole chunks and a tail", unit: Moves, size: 3*chunkSize + 12345},
		{name: "prefix", prefix: "1 0 << /A 1 >>\n", unit: Spaces, size: 2*chunkSize + 7},
		{name: "default unit", size: 70},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			z := Zlib(tc.prefix, tc.unit, tc.size)
			r, err := zlib.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			// The reader checks the Adler-32 checksum at the end.
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			unit := tc.unit
			if unit == "" {
				unit = Spaces
			}
			want := tc.prefix + strings.Repeat(unit, int(tc.size)/len(unit))
			if string(got) != want {
				t.Errorf("inflated to %d bytes, want %d", len(got), len(want))
			}
			if tc.size >= chunkSize && int64(len(z))*100 > tc.size {
				t.Errorf("%d bytes compressed for %d: not a bomb", len(z), tc.size)
			}
		})
	}
}

func TestEPUBs(t *testing.T) {
	const size = 3 << 20
	books := EPUBs(size)
	for name, data := range books {
		t.Run(name, func(t *testing.T) {
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			var ch *zip.File
			for _, f := range zr.File {
				if f.Name == "OEBPS/ch1.xhtml" {
					ch = f
				}
			}
			if ch == nil {
				t.Fatal("no chapter")
			}
			rc, err := ch.Open()
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, rc)
			switch name {
			case "zip-bomb.epub":
				if err != nil || n != int64(ch.UncompressedSize64) || n < size {
					t.Errorf("read %d of %d: %v", n, ch.UncompressedSize64, err)
				}
			case "zip-bomb-lying.epub":
				if err == nil {
					t.Errorf("read %d bytes of a header that claims %d without an error", n, ch.UncompressedSize64)
				}
			case "entity-bomb.epub":
				if err != nil || n > 4096 {
					t.Errorf("read %d: %v", n, err)
				}
			}
		})
	}
}
